/**
 * `service(constraints)`: a defaulted Service (as the API server stores it) with 1-3 ports of
 * distinct (name, protocol), biased towards the cases kube-proxy treats specially: several
 * protocols on one port number, NodePort/LoadBalancer, traffic policies, externalIPs, LB
 * source ranges and session affinity. Addresses come from the caller (`index`), so a cluster
 * built from several services never reuses one.
 */
import fc from "fast-check";
import type { Service } from "../../model/kinds.js";

export interface ServiceConstraints {
  /** Distinguishes this service's name and addresses; default 0. */
  readonly index?: number;
  readonly namespace?: string;
  /** Restricts port protocols; default all three. */
  readonly protocols?: readonly ("TCP" | "UDP" | "SCTP")[];
  /** Allowed service types; default ClusterIP, NodePort, LoadBalancer. */
  readonly types?: readonly ("ClusterIP" | "NodePort" | "LoadBalancer")[];
}

/** 172.30.x.y for service `index` (index < 65536). */
export function clusterIPFor(index: number): string {
  return `172.30.${(index >> 8) & 255}.${(index & 255) + (index < 255 ? 1 : 0)}`;
}

export function service(c: ServiceConstraints = {}): fc.Arbitrary<Service> {
  const index = c.index ?? 0;
  const protocols = c.protocols ?? ["TCP", "UDP", "SCTP"];
  const port = fc.record({
    protocol: fc.constantFrom(...protocols),
    port: fc.constantFrom(80, 443, 53, 1, 65535),
  });
  return fc
    .record({
      type: fc.constantFrom(...(c.types ?? ["ClusterIP", "NodePort", "LoadBalancer"])),
      // Distinct (protocol, port): two ports may share a number only across protocols.
      ports: fc.uniqueArray(port, {
        minLength: 1,
        maxLength: 3,
        selector: (p) => `${p.protocol}/${p.port}`,
      }),
      unnamed: fc.boolean(),
      externalTrafficPolicy: fc.constantFrom("Cluster", "Local"),
      internalTrafficPolicy: fc.constantFrom("Cluster", "Local"),
      externalIP: fc.boolean(),
      sourceRanges: fc.constantFrom<readonly string[]>([], ["203.0.113.0/25"], ["192.168.0.0/24"]),
      affinity: fc.boolean(),
    })
    .map((s): Service => {
      // Names are unique; a port may be unnamed only when it is alone (API validation).
      const ports = s.ports.map((p) => ({
        ...p,
        name: s.unnamed && s.ports.length === 1 ? "" : `${p.protocol.toLowerCase()}${p.port}`,
      }));
      const external = s.type !== "ClusterIP";
      const lb = s.type === "LoadBalancer";
      const localExt = external && s.externalTrafficPolicy === "Local";
      return {
        apiVersion: "v1",
        kind: "Service",
        metadata: { namespace: c.namespace ?? "ns", name: `svc${index}` },
        spec: {
          type: s.type,
          clusterIP: clusterIPFor(index),
          clusterIPs: [clusterIPFor(index)],
          ipFamilies: ["IPv4"],
          ipFamilyPolicy: "SingleStack",
          ports: ports.map((p, i) => ({
            ...(p.name === "" ? {} : { name: p.name }),
            protocol: p.protocol,
            port: p.port,
            targetPort: 8000 + i,
            ...(external ? { nodePort: 30000 + ((index * 3 + i) % 2768) } : {}),
          })),
          sessionAffinity: s.affinity ? "ClientIP" : "None",
          ...(s.affinity ? { sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } } } : {}),
          ...(external ? { externalTrafficPolicy: s.externalTrafficPolicy } : {}),
          internalTrafficPolicy: s.internalTrafficPolicy,
          ...(s.externalIP ? { externalIPs: [`192.168.99.${(index % 200) + 20}`] } : {}),
          ...(lb && s.sourceRanges.length > 0
            ? { loadBalancerSourceRanges: [...s.sourceRanges] }
            : {}),
          ...(lb && localExt ? { healthCheckNodePort: 32000 + (index % 700) } : {}),
        },
        ...(lb
          ? {
              status: {
                loadBalancer: { ingress: [{ ip: `5.6.${(index >> 8) & 255}.${index & 255}` }] },
              },
            }
          : {}),
      };
    });
}
