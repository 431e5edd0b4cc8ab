/**
 * `service(constraints)`: a defaulted Service (as the API server stores it) with 1-3 ports of
 * distinct (name, protocol), biased towards the cases kube-proxy treats specially: several
 * protocols on one port number, NodePort/LoadBalancer, traffic policies, externalIPs, LB
 * source ranges and session affinity. Addresses come from the caller (`index`), so a cluster
 * built from several services never reuses one. In a cluster with IPv6 (`families`), the
 * Service's stack is drawn too: SingleStack in either family, PreferDualStack or
 * RequireDualStack in either order, with one cluster IP per family (as the API server
 * allocates them; RequireDualStack only where the cluster has both families).
 */
import fc from "fast-check";
import type { Service } from "../../model/kinds.js";
import { formatIP, parseIP } from "../../net/index.js";

type Family = "IPv4" | "IPv6";

export interface ServiceConstraints {
  /** Distinguishes this service's name and addresses; default 0. */
  readonly index?: number;
  readonly namespace?: string;
  /** Restricts port protocols; default all three. */
  readonly protocols?: readonly ("TCP" | "UDP" | "SCTP")[];
  /** Allowed service types; default ClusterIP, NodePort, LoadBalancer. */
  readonly types?: readonly ("ClusterIP" | "NodePort" | "LoadBalancer")[];
  /** The cluster's IP families (its first is the default); default IPv4 only: SingleStack IPv4. */
  readonly families?: readonly Family[];
}

/** A Service's ipFamilyPolicy with the ipFamilies it ends up with. */
export interface ServiceStack {
  readonly ipFamilyPolicy: "SingleStack" | "PreferDualStack" | "RequireDualStack";
  readonly ipFamilies: readonly Family[];
}

/** The stacks a Service may have in a cluster of these families (in the cluster's order). */
export function serviceStacks(families: readonly Family[]): ServiceStack[] {
  const [first, second] = families;
  if (first === undefined) return [{ ipFamilyPolicy: "SingleStack", ipFamilies: ["IPv4"] }];
  if (second === undefined)
    // PreferDualStack on a single-stack cluster gets the one family it has.
    return [
      { ipFamilyPolicy: "SingleStack", ipFamilies: [first] },
      { ipFamilyPolicy: "PreferDualStack", ipFamilies: [first] },
    ];
  return [
    { ipFamilyPolicy: "SingleStack", ipFamilies: [first] },
    { ipFamilyPolicy: "SingleStack", ipFamilies: [second] },
    { ipFamilyPolicy: "PreferDualStack", ipFamilies: [first, second] },
    { ipFamilyPolicy: "PreferDualStack", ipFamilies: [second, first] },
    { ipFamilyPolicy: "RequireDualStack", ipFamilies: [first, second] },
    { ipFamilyPolicy: "RequireDualStack", ipFamilies: [second, first] },
  ];
}

/** fd00:172:30::<index+1> (the IPv6 counterpart of clusterIPFor). */
export function clusterIPv6For(index: number): string {
  return canonical(`fd00:172:30::${(index + 1).toString(16)}`);
}

function canonical(ip: string): string {
  const a = parseIP(ip, "lenient");
  if (a === undefined) throw new Error(`arbitrary made an invalid address ${ip}`);
  return formatIP(a);
}

/** 172.30.x.y for service `index` (index < 65536). */
export function clusterIPFor(index: number): string {
  return `172.30.${(index >> 8) & 255}.${(index & 255) + (index < 255 ? 1 : 0)}`;
}

export function service(c: ServiceConstraints = {}): fc.Arbitrary<Service> {
  const index = c.index ?? 0;
  const protocols = c.protocols ?? ["TCP", "UDP", "SCTP"];
  const families = c.families ?? ["IPv4"];
  const dualCapable = families.includes("IPv6");
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
      // Only drawn in clusters with IPv6, so IPv4-only draws stay as they were.
      ...(dualCapable ? { stack: fc.constantFrom(...serviceStacks(families)) } : {}),
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
      const stack: ServiceStack = ("stack" in s ? s.stack : undefined) ?? {
        ipFamilyPolicy: "SingleStack",
        ipFamilies: ["IPv4"],
      };
      const clusterIPs = stack.ipFamilies.map((f) =>
        f === "IPv4" ? clusterIPFor(index) : clusterIPv6For(index),
      );
      const v6 = stack.ipFamilies[0] === "IPv6";
      return {
        apiVersion: "v1",
        kind: "Service",
        metadata: { namespace: c.namespace ?? "ns", name: `svc${index}` },
        spec: {
          type: s.type,
          clusterIP: clusterIPs[0] ?? clusterIPFor(index),
          clusterIPs,
          ipFamilies: [...stack.ipFamilies],
          ipFamilyPolicy: stack.ipFamilyPolicy,
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
          ...(s.externalIP
            ? {
                externalIPs: [
                  v6
                    ? canonical(`2001:db8:99::${((index % 200) + 20).toString(16)}`)
                    : `192.168.99.${(index % 200) + 20}`,
                ],
              }
            : {}),
          ...(lb && s.sourceRanges.length > 0
            ? { loadBalancerSourceRanges: v6 ? ["2001:db8:203::/64"] : [...s.sourceRanges] }
            : {}),
          ...(lb && localExt ? { healthCheckNodePort: 32000 + (index % 700) } : {}),
        },
        ...(lb
          ? {
              status: {
                loadBalancer: {
                  ingress: [
                    {
                      ip: v6
                        ? canonical(`2001:db8:5:6::${index.toString(16)}`)
                        : `5.6.${(index >> 8) & 255}.${index & 255}`,
                    },
                  ],
                },
              },
            }
          : {}),
      };
    });
}
