/**
 * Truth tables: the verdict for every ordered pair of pods (self pairs included) and every
 * (port, protocol) probe. Pods are grouped into equivalence classes (classes.ts); each class pair
 * is evaluated once per probe and the result copied to its pod pairs. `naivePolicyMatrix` is the
 * pair-by-pair reference used by tests and the benchmark.
 */
import type { Cluster } from "../model/cluster.js";
import { PROTOCOLS, type Protocol } from "../net/port.js";
import type { CompiledPolicies, Direction } from "./compiled.js";
import { podClasses } from "./classes.js";
import { connectionAddresses, type Connection, type Party } from "./connection.js";
import { toCompiled } from "./evaluate.js";
import type { PodFacts } from "./facts.js";
import { completeOptions, type PolicyOptions } from "./options.js";
import type { SubjectPolicies } from "./select.js";
import { subjectClasses, type SubjectClasses } from "./subject-classes.js";
import { directionMask, isLocalNodeIngress } from "./verdict.js";
import { connectionVerdict, type Verdict } from "./verdict3.js";

export interface MatrixProbe {
  readonly port: number;
  readonly protocol: Protocol;
}

/** `"unknown"`: depends on domainNames that cannot be resolved offline (see verdict3.ts). */
export type MatrixCell = boolean | "unknown";

export interface MatrixRow {
  readonly from: string;
  readonly to: string;
  readonly port: number;
  readonly protocol: Protocol;
  readonly allowed: MatrixCell;
}

/** Cell encoding in `PolicyMatrix.verdicts`. */
export const DENIED = 0;
export const ALLOWED = 1;
export const UNKNOWN = 2;

function cellOf(byte: number | undefined): MatrixCell {
  return byte === UNKNOWN ? "unknown" : byte === ALLOWED;
}

function byteOf(v: Verdict): number {
  return v === "allowed" ? ALLOWED : v === "denied" ? DENIED : UNKNOWN;
}

export interface MatrixOptions extends Partial<PolicyOptions> {
  /** Destination ports; default: every containerPort number pods declare (or 80 if none). */
  readonly ports?: readonly number[];
  /** Default: TCP, UDP, SCTP. */
  readonly protocols?: readonly Protocol[];
}

export interface PolicyMatrix {
  /** `ns/pod`, in input order. */
  readonly pods: readonly string[];
  readonly probes: readonly MatrixProbe[];
  /**
   * 1 = allowed, 0 = denied, 2 = unknown (unresolved domainNames), at
   * `(from * pods.length + to) * probes.length + probe`.
   */
  readonly verdicts: Uint8Array;
  /** Number of pod equivalence classes used (pods.length for the naive path). */
  readonly classes: number;
}

export function matrixProbes(cp: CompiledPolicies, opts: MatrixOptions | undefined): MatrixProbe[] {
  let ports = opts?.ports;
  if (ports === undefined || ports.length === 0) {
    const declared = new Set<number>();
    for (const p of cp.facts.pods) for (const c of p.containerPorts) declared.add(c.port);
    ports = declared.size > 0 ? [...declared].sort((a, b) => a - b) : [80];
  }
  const protocols =
    opts?.protocols !== undefined && opts.protocols.length > 0 ? opts.protocols : PROTOCOLS;
  const probes: MatrixProbe[] = [];
  for (const port of ports) for (const protocol of protocols) probes.push({ port, protocol });
  return probes;
}

function conn(src: PodFacts, dst: PodFacts, probe: MatrixProbe): Connection {
  return {
    src: { kind: "pod", pod: src },
    dst: { kind: "pod", pod: dst },
    port: probe.port,
    protocol: probe.protocol,
  };
}

/**
 * The truth table. A connection is allowed iff the source's egress and the destination's ingress
 * allow it, so each direction is tabulated on its own, per (subject class, peer class, probe):
 * egress over (source subject class, destination peer class), ingress over (destination subject
 * class, source peer class). Subject classes that no policy selects always allow and are never
 * evaluated. Each pod pair is then two table lookups.
 */
export function computePolicyMatrix(
  cluster: Cluster | CompiledPolicies,
  options?: MatrixOptions,
): PolicyMatrix {
  const cp = toCompiled(cluster, options);
  // Unresolved domainNames need the three-valued path; truth tables rarely have them.
  if (cp.undecidable) return naivePolicyMatrix(cp, options);
  const opts = completeOptions(options);
  const probes = matrixProbes(cp, options);
  const pods = cp.facts.pods;
  const n = pods.length;
  const P = probes.length;
  const peers = podClasses(cp, pods);
  const C = peers.representatives.length;
  const egress = subjectClasses(cp, opts, "Egress", pods, peers.portNames, peers.nodeMatters);
  const ingress = subjectClasses(cp, opts, "Ingress", pods, peers.portNames, peers.nodeMatters);
  // Per (subject class, peer class): W words of probe bits, and whether they are computed yet.
  const W = Math.ceil(P / 30);
  const eMask = new Uint32Array(egress.representatives.length * C * W);
  const iMask = new Uint32Array(ingress.representatives.length * C * W);
  const eDone = new Uint8Array(egress.representatives.length * C);
  const iDone = new Uint8Array(ingress.representatives.length * C);
  const fill = (
    dir: Direction,
    mask: Uint32Array,
    sc: SubjectClasses,
    s: number,
    peer: number,
    cell: number,
  ): void => {
    const subject = sc.representatives[s] as PodFacts;
    const party: Party = { kind: "pod", pod: peers.representatives[peer] as PodFacts };
    const { srcIP, dstIP } =
      dir === "Egress"
        ? connectionAddresses({ kind: "pod", pod: subject }, party)
        : connectionAddresses(party, { kind: "pod", pod: subject });
    if (dir === "Ingress" && isLocalNodeIngress(subject, party, opts)) {
      for (let w = 0; w < W; w++) mask[cell * W + w] = 0x3fffffff;
      return;
    }
    directionMask(
      sc.selections[s] as SubjectPolicies,
      dir,
      subject,
      party,
      dir === "Egress" ? dstIP : srcIP,
      probes,
      opts,
      mask,
      cell * W,
    );
  };
  const verdicts = new Uint8Array(n * n * P);
  const hasCnp = [...cp.adminPolicies, ...cp.baselinePolicies].some(
    (p) => p.tier === "ClusterNetworkPolicy",
  );
  for (let i = 0; i < n; i++) {
    const se = egress.classOf[i] as number;
    const pi = peers.classOf[i] as number;
    const srcOpen = egress.open[se] === true;
    for (let j = 0; j < n; j++) {
      const out = (i * n + j) * P;
      if (i === j && opts.selfTraffic === "allow") {
        verdicts.fill(1, out, out + P);
        continue;
      }
      if (i === j && hasCnp) {
        // Own IP: no CNP applies (spec §3.5), which the per-class tables cannot express.
        for (let k = 0; k < P; k++)
          verdicts[out + k] = byteOf(
            connectionVerdict(
              cp,
              conn(pods[i] as PodFacts, pods[i] as PodFacts, probes[k] as MatrixProbe),
              opts,
            ),
          );
        continue;
      }
      const si = ingress.classOf[j] as number;
      const dstOpen = ingress.open[si] === true;
      if (srcOpen && dstOpen) {
        verdicts.fill(1, out, out + P);
        continue;
      }
      const eCell = se * C + (peers.classOf[j] as number);
      const iCell = si * C + pi;
      if (!srcOpen && eDone[eCell] === 0) {
        fill("Egress", eMask, egress, se, peers.classOf[j] as number, eCell);
        eDone[eCell] = 1;
      }
      if (!dstOpen && iDone[iCell] === 0) {
        fill("Ingress", iMask, ingress, si, pi, iCell);
        iDone[iCell] = 1;
      }
      for (let w = 0; w < W; w++) {
        const m =
          (srcOpen ? 0x3fffffff : (eMask[eCell * W + w] as number)) &
          (dstOpen ? 0x3fffffff : (iMask[iCell * W + w] as number));
        const end = Math.min(P, (w + 1) * 30);
        for (let k = w * 30; k < end; k++) verdicts[out + k] = (m >>> (k - w * 30)) & 1;
      }
    }
  }
  return { pods: pods.map((p) => p.id), probes, verdicts, classes: C };
}

/** Reference: every pod pair and probe evaluated on its own, no classes, no caching. */
export function naivePolicyMatrix(
  cluster: Cluster | CompiledPolicies,
  options?: MatrixOptions & { readonly pods?: readonly string[] },
): PolicyMatrix {
  const cp = toCompiled(cluster, options);
  const opts = completeOptions(options);
  const probes = matrixProbes(cp, options);
  const wanted = options?.pods;
  const pods =
    wanted === undefined ? cp.facts.pods : cp.facts.pods.filter((p) => wanted.includes(p.id));
  const n = pods.length;
  const P = probes.length;
  const verdicts = new Uint8Array(n * n * P);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++)
      for (let k = 0; k < P; k++)
        verdicts[(i * n + j) * P + k] = byteOf(
          connectionVerdict(
            cp,
            conn(pods[i] as PodFacts, pods[j] as PodFacts, probes[k] as MatrixProbe),
            opts,
          ),
        );
  return { pods: pods.map((p) => p.id), probes, verdicts, classes: n };
}

/** Rows in table order: per probe, then per source, then per destination. */
export function* matrixRows(m: PolicyMatrix): Generator<MatrixRow> {
  const n = m.pods.length;
  const P = m.probes.length;
  for (let k = 0; k < P; k++) {
    const probe = m.probes[k] as MatrixProbe;
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++)
        yield {
          from: m.pods[i] as string,
          to: m.pods[j] as string,
          port: probe.port,
          protocol: probe.protocol,
          allowed: cellOf(m.verdicts[(i * n + j) * P + k]),
        };
  }
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Rows sorted by (from, to, port, protocol), so that the same cluster gives the same bytes
 * whatever order its files and documents came in.
 */
export function* sortedMatrixRows(m: PolicyMatrix): Generator<MatrixRow> {
  const n = m.pods.length;
  const P = m.probes.length;
  const pods = m.pods.map((id, i) => ({ id, i })).sort((a, b) => compareText(a.id, b.id));
  const probes = m.probes
    .map((p, k) => ({ p, k }))
    .sort((a, b) => a.p.port - b.p.port || compareText(a.p.protocol, b.p.protocol));
  for (const from of pods)
    for (const to of pods)
      for (const { p, k } of probes)
        yield {
          from: from.id,
          to: to.id,
          port: p.port,
          protocol: p.protocol,
          allowed: cellOf(m.verdicts[(from.i * n + to.i) * P + k]),
        };
}

/** Verdict lookup by names; undefined when the pod or probe is not in the table. */
export function matrixVerdict(
  m: PolicyMatrix,
  from: string,
  to: string,
  port: number,
  protocol: Protocol,
): MatrixCell | undefined {
  const i = m.pods.indexOf(from);
  const j = m.pods.indexOf(to);
  const k = m.probes.findIndex((p) => p.port === port && p.protocol === protocol);
  if (i < 0 || j < 0 || k < 0) return undefined;
  return cellOf(m.verdicts[(i * m.pods.length + j) * m.probes.length + k]);
}

/** The library contract (interfaces.md): the truth table as rows. */
export function policyMatrix(
  cluster: Cluster | CompiledPolicies,
  options?: MatrixOptions,
): MatrixRow[] {
  return [...matrixRows(computePolicyMatrix(cluster, options))];
}
