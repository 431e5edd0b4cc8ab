/**
 * `nodeEnvironment(constraints)`: a NodeEnvironment built by the `nodeEnv` builder (so defaulted
 * and validated as `--node-env` is): node-1 or node-2 with IPs in the families asked for, the
 * default `lo`/`eth0` interfaces or an extra interface holding a second address, and kernel
 * capabilities where SCTP or IPVS may be missing.
 */
import fc from "fast-check";
import type { NodeEnvironment } from "../../model/node-environment.js";
import { nodeEnv } from "../builders/node-env.js";
import type { Family } from "./pod.js";

export interface NodeEnvironmentConstraints {
  /** Families of the node IPs; default IPv4. */
  readonly families?: readonly Family[];
}

const NODE_IPS: Readonly<Record<string, Readonly<Record<Family, string>>>> = {
  "node-1": { IPv4: "192.168.0.1", IPv6: "2001:db8::1" },
  "node-2": { IPv4: "192.168.0.2", IPv6: "2001:db8::2" },
};

export function nodeEnvironment(c: NodeEnvironmentConstraints = {}): fc.Arbitrary<NodeEnvironment> {
  const families = c.families ?? ["IPv4"];
  return fc
    .record({
      name: fc.constantFrom("node-1", "node-2"),
      extraInterface: fc.boolean(),
      sctp: fc.boolean(),
      ipvs: fc.boolean(),
    })
    .map(({ name, extraInterface, sctp, ipvs }) => {
      const ips = families.map((f) => NODE_IPS[name]![f]);
      const interfaces = extraInterface
        ? [
            { name: "lo", addresses: ["127.0.0.1/8", "::1/128"] },
            {
              name: "eth0",
              addresses: ips.map((ip) => (ip.includes(":") ? `${ip}/64` : `${ip}/24`)),
            },
            { name: "eth1", addresses: ["192.168.99.11/24"] },
          ]
        : undefined;
      return nodeEnv({
        name,
        ips,
        ipFamilies: families,
        ...(interfaces !== undefined ? { interfaces } : {}),
        kernel: { sctp, ipvs },
      });
    });
}
