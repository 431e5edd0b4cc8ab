/**
 * `probe(cluster)`: a connection between two pods of `cluster`, or from a pod to one of its
 * services' cluster IPs, on a port and protocol the destination declares (a containerPort, a
 * service port) or an off-by-one neighbour of one (port ± 1, or the same port on another
 * protocol), biased to SCTP; the destination address is in one of the source pod's families.
 * Clusters without such a pair give the constant `undefined`.
 */
import fc from "fast-check";
import type { Probe } from "../../backends/backend.js";
import type { Cluster } from "../../model/cluster.js";
import type { Pod } from "../../model/kinds.js";

type Protocol = Probe["protocol"];

interface Target {
  readonly to: string;
  /** (protocol, port) the destination declares. */
  readonly declared: readonly (readonly [Protocol, number])[];
}

const PROTOCOLS: readonly Protocol[] = ["sctp", "tcp", "udp"];

function lower(p: string | undefined): Protocol {
  return (p ?? "TCP").toLowerCase() as Protocol;
}

function podRef(p: Pod): string {
  return `${p.metadata?.namespace ?? "default"}/${p.metadata?.name ?? ""}`;
}

function targets(cluster: Cluster, pods: readonly Pod[]): Target[] {
  const out: Target[] = [];
  for (const p of pods) {
    const declared = (p.spec?.containers ?? []).flatMap((ctr) =>
      (ctr.ports ?? []).map((port) => [lower(port.protocol), port.containerPort] as const),
    );
    for (const { ip } of p.status?.podIPs ?? [])
      if (ip !== undefined) out.push({ to: ip, declared });
  }
  for (const s of cluster.services) {
    const declared = (s.spec?.ports ?? []).map(
      (port) => [lower(port.protocol), port.port] as const,
    );
    for (const ip of s.spec?.clusterIPs ?? []) if (ip !== "None") out.push({ to: ip, declared });
  }
  return out;
}

function neighbour(
  declared: readonly (readonly [Protocol, number])[],
): fc.Arbitrary<[Protocol, number]> {
  const base: fc.Arbitrary<readonly [Protocol, number]> =
    declared.length === 0 ? fc.constant(["sctp", 80] as const) : fc.constantFrom(...declared);
  return fc
    .record({
      pick: base,
      shift: fc.constantFrom(0, 0, 0, -1, 1),
      otherProtocol: fc.oneof(
        { weight: 4, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom(...PROTOCOLS) },
      ),
    })
    .map(({ pick: [proto, port], shift, otherProtocol }) => {
      const shifted = port + shift;
      return [otherProtocol ?? proto, shifted < 1 || shifted > 65535 ? port : shifted];
    });
}

function familiesOf(p: Pod): Set<boolean> {
  return new Set(
    (p.status?.podIPs ?? []).flatMap((a) => (a.ip === undefined ? [] : [a.ip.includes(":")])),
  );
}

export function probe(cluster: Cluster): fc.Arbitrary<Probe | undefined> {
  const pods = cluster.pods.filter((p) => (p.status?.podIPs ?? []).length > 0);
  const all = targets(cluster, pods);
  // Only pairs a pod can address: the target's family is one of the source pod's.
  const pairs = pods.flatMap((from) => {
    const fams = familiesOf(from);
    return all.filter((t) => fams.has(t.to.includes(":"))).map((target) => ({ from, target }));
  });
  if (pairs.length === 0) return fc.constant(undefined);
  return fc.constantFrom(...pairs).chain(({ from, target }) =>
    neighbour(target.declared).map(([protocol, port]): Probe => ({
      protocol,
      from: podRef(from),
      to: target.to,
      port,
    })),
  );
}
