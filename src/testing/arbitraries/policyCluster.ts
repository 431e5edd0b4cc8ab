/**
 * `policyClusterObjects(constraints)` / `policyCluster(constraints)`: small clusters for policy
 * properties: namespaces x, y, z (random `team` labels), 1-3 pods each with labels from
 * POD_LABELS, IPv4 `10.0.<ns>.<pod>` and sometimes an IPv6 `fd00::<ns>:<pod>`, containerPorts
 * `serve-<port>-<proto>` on 80/81 (a random subset, so named ports are sometimes unserved), plus
 * NetworkPolicies, AdminNetworkPolicies and a BaselineAdminNetworkPolicy.
 */
import fc from "fast-check";
import { makeCluster, type Cluster } from "../../model/cluster.js";
import type {
  AdminNetworkPolicy,
  BaselineAdminNetworkPolicy,
  Namespace,
  NetworkPolicy,
  Pod,
} from "../../model/kinds.js";
import { adminNetworkPolicy, baselineAdminNetworkPolicy } from "./adminNetworkPolicy.js";
import { networkPolicy } from "./networkPolicy.js";
import { labelsFrom, NAMESPACE_LABELS, POD_LABELS } from "./policyLabelSelector.js";

export interface PolicyClusterConstraints {
  /** Maximum NetworkPolicies; default 4. */
  readonly maxNetworkPolicies?: number;
  /** Maximum AdminNetworkPolicies; default 2 (0 for NetworkPolicy-only properties). */
  readonly maxAdminPolicies?: number;
  /** Whether a BANP may be generated; default true. */
  readonly baseline?: boolean;
  /** Restrict NetworkPolicy port protocols. */
  readonly protocols?: readonly ("TCP" | "UDP" | "SCTP")[];
  /** Allow hostNetwork pods; default false. */
  readonly hostNetwork?: boolean;
}

export interface PolicyClusterObjects {
  namespaces: Namespace[];
  pods: Pod[];
  networkPolicies: NetworkPolicy[];
  adminNetworkPolicies: AdminNetworkPolicy[];
  baselineAdminNetworkPolicies: BaselineAdminNetworkPolicy[];
}

const NAMESPACES = ["x", "y", "z"] as const;
const PORTS = [
  "serve-80-tcp",
  "serve-80-udp",
  "serve-80-sctp",
  "serve-81-tcp",
  "serve-81-udp",
  "serve-81-sctp",
] as const;

function pod(
  ns: string,
  nsIndex: number,
  i: number,
  hostNetworkAllowed: boolean,
): fc.Arbitrary<Pod> {
  return fc
    .record({
      // Often the same labels, so that pods differ only in ports or IPs (equivalence classes).
      labels: fc.oneof(labelsFrom(POD_LABELS), fc.constant({ app: "web" })),
      ports: fc.subarray([...PORTS]),
      v6: fc.boolean(),
      hostNetwork: hostNetworkAllowed ? fc.boolean() : fc.constant(false),
      node: fc.constantFrom(1, 2),
    })
    .map(({ labels, ports, v6, hostNetwork, node }) => {
      // hostNetwork pods have their node's IP
      const v4 = hostNetwork ? `192.168.0.${node}` : `10.0.${nsIndex + 1}.${i + 1}`;
      const ips = v6 && !hostNetwork ? [v4, `fd00::${nsIndex + 1}:${i + 1}`] : [v4];
      return {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: `p${i}`, namespace: ns, labels },
        spec: {
          nodeName: `node-${node}`,
          ...(hostNetwork ? { hostNetwork: true } : {}),
          containers: ports.map((name) => {
            const [, port, proto] = name.split("-");
            return {
              name: `c-${port}-${proto}`,
              ports: [
                { name, containerPort: Number(port), protocol: (proto ?? "tcp").toUpperCase() },
              ],
            };
          }),
        },
        status: { podIP: v4, podIPs: ips.map((ip) => ({ ip })) },
      };
    });
}

export function policyClusterObjects(
  c: PolicyClusterConstraints = {},
): fc.Arbitrary<PolicyClusterObjects> {
  const nsArb = fc.tuple(
    ...NAMESPACES.map(() =>
      fc.record({ labels: labelsFrom(NAMESPACE_LABELS), pods: fc.integer({ min: 1, max: 3 }) }),
    ),
  );
  return nsArb.chain((nss) => {
    const namespaces: Namespace[] = nss.map((n, i) => ({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: {
        name: NAMESPACES[i] as string,
        labels: { ...n.labels, "kubernetes.io/metadata.name": NAMESPACES[i] as string },
      },
    }));
    const pods = fc.tuple(
      ...nss.flatMap((n, ni) =>
        Array.from({ length: n.pods }, (_, i) =>
          pod(NAMESPACES[ni] as string, ni, i, c.hostNetwork ?? false),
        ),
      ),
    );
    const nps = fc
      .array(fc.tuple(fc.constantFrom(...NAMESPACES), fc.nat()), {
        maxLength: c.maxNetworkPolicies ?? 4,
      })
      .chain((list) =>
        list.length === 0
          ? fc.constant<NetworkPolicy[]>([])
          : fc.tuple(
              ...list.map(([ns], i) =>
                networkPolicy({
                  namespace: ns,
                  index: i,
                  ...(c.protocols !== undefined ? { protocols: c.protocols } : {}),
                }),
              ),
            ),
      );
    const anps = fc
      .integer({ min: 0, max: c.maxAdminPolicies ?? 2 })
      .chain((n): fc.Arbitrary<readonly AdminNetworkPolicy[]> =>
        n === 0
          ? fc.constant([])
          : fc.tuple(...Array.from({ length: n }, (_, i) => adminNetworkPolicy({ index: i }))),
      );
    const banp: fc.Arbitrary<BaselineAdminNetworkPolicy[]> =
      c.baseline === false
        ? fc.constant([])
        : fc
            .option(baselineAdminNetworkPolicy(), { nil: undefined })
            .map((b) => (b === undefined ? [] : [b]));
    return fc.record({ pods, nps, anps, banp }).map(({ pods, nps, anps, banp }) => ({
      namespaces,
      pods: [...pods],
      networkPolicies: [...nps],
      adminNetworkPolicies: [...anps],
      baselineAdminNetworkPolicies: [...banp],
    }));
  });
}

export function toPolicyCluster(o: PolicyClusterObjects): Cluster {
  return makeCluster(o);
}

export function policyCluster(c: PolicyClusterConstraints = {}): fc.Arbitrary<Cluster> {
  return policyClusterObjects(c).map(toPolicyCluster);
}

/**
 * Adds "twins": copies of existing pods with the same labels but another name, IP and set of
 * named ports. Equivalence classes must tell such pods apart exactly when a policy can.
 */
export function withTwinPods(
  arb: fc.Arbitrary<PolicyClusterObjects>,
): fc.Arbitrary<PolicyClusterObjects> {
  return arb.chain((o) =>
    fc
      .array(
        fc.record({
          of: fc.nat(),
          ip: fc.constantFrom(
            "10.0.1.2",
            "10.0.2.1",
            "10.0.3.7",
            "10.0.3.200",
            "10.0.1.77",
            "10.9.0.1",
          ),
          ports: fc.subarray([...PORTS]),
        }),
        { minLength: 1, maxLength: 3 },
      )
      .map((twins) => {
        const pods = [...o.pods];
        const taken = new Set(pods.map((p) => p.status?.podIP));
        twins.forEach((t, i) => {
          const src = pods[t.of % pods.length];
          if (src === undefined || taken.has(t.ip) || src.spec?.hostNetwork === true) return;
          taken.add(t.ip);
          pods.push({
            ...src,
            metadata: { ...src.metadata, name: `twin${i}` },
            spec: {
              ...src.spec,
              containers: t.ports.map((name) => {
                const [, port, proto] = name.split("-");
                return {
                  name: `c-${port}-${proto}`,
                  ports: [
                    { name, containerPort: Number(port), protocol: (proto ?? "tcp").toUpperCase() },
                  ],
                };
              }),
            },
            status: { podIP: t.ip, podIPs: [{ ip: t.ip }] },
          });
        });
        return { ...o, pods };
      }),
  );
}
