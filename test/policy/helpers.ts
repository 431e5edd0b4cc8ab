/** Shared helpers for policy tests: build clusters from generated objects, compute tables. */
import { makeCluster, type Cluster } from "../../src/model/cluster.js";
import type { NetworkPolicy, Pod } from "../../src/model/kinds.js";
import type { PolicyClusterObjects } from "../../src/testing/arbitraries/policyCluster.js";
import {
  computePolicyMatrix,
  naivePolicyMatrix,
  type MatrixOptions,
  type PolicyMatrix,
} from "../../src/policy/matrix.js";
import type { Protocol } from "../../src/net/port.js";

export const PROBE_PORTS = [80, 81, 82];
export const PROBE_PROTOCOLS: Protocol[] = ["TCP", "UDP", "SCTP"];

export function cluster(o: PolicyClusterObjects): Cluster {
  return makeCluster(o);
}

export function table(o: PolicyClusterObjects | Cluster, opts: MatrixOptions = {}): PolicyMatrix {
  const c = "sources" in o ? o : cluster(o);
  return computePolicyMatrix(c, { ports: PROBE_PORTS, protocols: PROBE_PROTOCOLS, ...opts });
}

export function naiveTable(o: PolicyClusterObjects, opts: MatrixOptions = {}): PolicyMatrix {
  return naivePolicyMatrix(cluster(o), { ports: PROBE_PORTS, protocols: PROBE_PROTOCOLS, ...opts });
}

/** Cells (as "from to port proto") where `a` allows and `b` denies. */
export function lost(a: PolicyMatrix, b: PolicyMatrix): string[] {
  const out: string[] = [];
  const n = a.pods.length;
  const P = a.probes.length;
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++)
      for (let k = 0; k < P; k++) {
        const idx = (i * n + j) * P + k;
        if (a.verdicts[idx] === 1 && b.verdicts[idx] === 0)
          out.push(`${a.pods[i]} ${a.pods[j]} ${a.probes[k]?.protocol}/${a.probes[k]?.port}`);
      }
  return out;
}

export function same(a: PolicyMatrix, b: PolicyMatrix): boolean {
  return Buffer.from(a.verdicts).equals(Buffer.from(b.verdicts));
}

export function clone<T>(x: T): T {
  return structuredClone(x);
}

/** Deterministic permutation from a seed (for order-independence properties). */
export function permute<T>(xs: readonly T[], seed: number): T[] {
  const out = [...xs];
  let s = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** policyTypes as the API server would default them (so later edits do not change them). */
export function withExplicitTypes(np: NetworkPolicy): NetworkPolicy {
  const spec = np.spec ?? { podSelector: {} };
  const types =
    spec.policyTypes !== undefined && spec.policyTypes.length > 0
      ? spec.policyTypes
      : (spec.egress ?? []).length > 0
        ? ["Ingress", "Egress"]
        : ["Ingress"];
  return { ...np, spec: { ...spec, policyTypes: types } };
}

export function podId(p: Pod): string {
  return `${p.metadata?.namespace ?? ""}/${p.metadata?.name ?? ""}`;
}
