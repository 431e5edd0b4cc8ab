/**
 * `pod(constraints)`: a running v1 Pod on one of two nodes with labels from the policy
 * vocabulary, IPv4 `10.<ns+1>.<i>.<h>` and/or IPv6 `fd00::<ns+1>:<i>` by `families`, and named
 * containerPorts biased to SCTP and to the edges: port 1 and 65535, the same number on several
 * protocols, neighbours 79/80/81 (so off-by-one probes and named-port lookups are tested).
 */
import fc from "fast-check";
import type { Pod } from "../../model/kinds.js";
import { labelsFrom, POD_LABELS } from "./policyLabelSelector.js";

export type Family = "IPv4" | "IPv6";
export type KubeProtocol = "TCP" | "UDP" | "SCTP";

export interface PodConstraints {
  readonly namespace?: string;
  /** Distinguishes this pod's name and addresses within its namespace; default 0. */
  readonly index?: number;
  /** Distinguishes addresses between namespaces; default 0. */
  readonly namespaceIndex?: number;
  /** IP families the pod has addresses in (in this order); default IPv4. */
  readonly families?: readonly Family[];
  /** Node names to schedule on; default node-1, node-2. */
  readonly nodeNames?: readonly string[];
}

/** Container ports: SCTP twice as likely as each other protocol. */
export const POD_PORT_PROTOCOLS: readonly KubeProtocol[] = ["SCTP", "SCTP", "TCP", "UDP"];
export const POD_PORT_NUMBERS: readonly number[] = [1, 79, 80, 81, 9999, 65535];

export function podAddresses(
  families: readonly Family[],
  nsIndex: number,
  index: number,
): string[] {
  const h = (index % 250) + 1;
  const i = Math.floor(index / 250) % 256;
  return families.map((f) =>
    f === "IPv4"
      ? `10.${(nsIndex % 250) + 1}.${i}.${h}`
      : `fd00::${((nsIndex % 250) + 1).toString(16)}:${(index + 1).toString(16)}`,
  );
}

export function pod(c: PodConstraints = {}): fc.Arbitrary<Pod> {
  const ns = c.namespace ?? "x";
  const index = c.index ?? 0;
  const ips = podAddresses(c.families ?? ["IPv4"], c.namespaceIndex ?? 0, index);
  const port = fc.record({
    protocol: fc.constantFrom(...POD_PORT_PROTOCOLS),
    containerPort: fc.constantFrom(...POD_PORT_NUMBERS),
  });
  return fc
    .record({
      labels: fc.oneof(labelsFrom(POD_LABELS), fc.constant({ app: "web" })),
      ports: fc.uniqueArray(port, {
        maxLength: 4,
        selector: (p) => `${p.protocol}/${p.containerPort}`,
      }),
      node: fc.constantFrom(...(c.nodeNames ?? ["node-1", "node-2"])),
      named: fc.boolean(),
    })
    .map(({ labels, ports, node, named }): Pod => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { namespace: ns, name: `p${index}`, labels },
      spec: {
        nodeName: node,
        containers: [
          {
            name: "main",
            image: "registry.k8s.io/pause:3.10",
            ports: ports.map((p) => ({
              // Port names are IANA_SVC_NAMEs: at most 15 characters, unique in the pod.
              ...(named ? { name: `${p.protocol.toLowerCase()}-${p.containerPort}` } : {}),
              containerPort: p.containerPort,
              protocol: p.protocol,
            })),
          },
        ],
      },
      status: {
        phase: "Running",
        ...(ips[0] === undefined ? {} : { podIP: ips[0] }),
        podIPs: ips.map((ip) => ({ ip })),
      },
    }));
}
