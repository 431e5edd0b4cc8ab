/**
 * `hostPortPod(constraints)`: a Pod scheduled on a node, with one container whose ports carry
 * `hostPort`s, as the API server stores it (protocol defaulted). Host ports come from a small
 * pool so that pods collide, biased to the cases the hostport implementations treat specially:
 * one port number under several protocols, SCTP, a hostIP (loopback or the node IP), and
 * container ports at the edges (1, 65535). Names and pod IPs follow `index`, so pods built with
 * distinct indexes never share either.
 */
import fc from "fast-check";
import type { Pod } from "../../model/kinds.js";

export interface HostPortPodConstraints {
  /** Distinguishes this pod's name, uid and pod IP; default 0 (index < 250). */
  readonly index?: number;
  readonly family?: "IPv4" | "IPv6";
  readonly nodeName?: string;
  readonly namespace?: string;
  /** The host port pool; default [8080, 8081, 9000]. */
  readonly hostPorts?: readonly number[];
  /** Default all three. */
  readonly protocols?: readonly ("TCP" | "UDP" | "SCTP")[];
  /** hostIP candidates besides "unset"; default none. */
  readonly hostIPs?: readonly string[];
  /** Default 3. */
  readonly maxPorts?: number;
}

/** 10.244.1.<index+2> or fd00:10:244:1::<index+2>: inside the node's pod CIDR. */
export function hostPortPodIP(index: number, family: "IPv4" | "IPv6" = "IPv4"): string {
  return family === "IPv4" ? `10.244.1.${index + 2}` : `fd00:10:244:1::${(index + 2).toString(16)}`;
}

export function hostPortPod(c: HostPortPodConstraints = {}): fc.Arbitrary<Pod> {
  const index = c.index ?? 0;
  const family = c.family ?? "IPv4";
  const protocols = c.protocols ?? ["TCP", "UDP", "SCTP"];
  const hostIP = fc.constantFrom<(string | undefined)[]>(undefined, ...(c.hostIPs ?? []));
  const port = fc.record({
    hostPort: fc.constantFrom(...(c.hostPorts ?? [8080, 8081, 9000])),
    containerPort: fc.oneof(fc.constantFrom(1, 80, 65535), fc.integer({ min: 1, max: 65535 })),
    protocol: fc.constantFrom(...protocols),
    hostIP,
  });
  const ip = hostPortPodIP(index, family);
  return fc
    .uniqueArray(port, {
      minLength: 1,
      maxLength: c.maxPorts ?? 3,
      // The API server rejects two container ports with the same (hostPort, protocol, hostIP).
      selector: (p) => `${p.hostPort}/${p.protocol}/${p.hostIP ?? ""}`,
    })
    .map((ports): Pod => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: `hp-${index}`,
        namespace: c.namespace ?? "default",
        uid: `00000000-0000-4000-8000-${index.toString().padStart(12, "0")}`,
      },
      spec: {
        nodeName: c.nodeName ?? "node-a",
        containers: [
          {
            name: "c",
            image: "registry.k8s.io/pause:3.9",
            ports: ports.map((p) => ({
              containerPort: p.containerPort,
              hostPort: p.hostPort,
              protocol: p.protocol,
              ...(p.hostIP !== undefined ? { hostIP: p.hostIP } : {}),
            })),
          },
        ],
      },
      status: { phase: "Running", podIP: ip, podIPs: [{ ip }] },
    }));
}
