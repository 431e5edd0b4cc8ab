/**
 * `policyDiff`: the connections whose verdict differs between two clusters (typically the same
 * workloads under two policy sets). Pods are joined by `ns/name`; pods present on one side only
 * are left out. Both tables use the same probes.
 */
import type { Cluster } from "../model/cluster.js";
import type { Protocol } from "../net/port.js";
import type { CompiledPolicies } from "./compiled.js";
import { toCompiled } from "./evaluate.js";
import {
  computePolicyMatrix,
  matrixProbes,
  ALLOWED,
  UNKNOWN,
  type MatrixCell,
  type MatrixOptions,
  type MatrixProbe,
} from "./matrix.js";

export interface PolicyDiffRow {
  readonly from: string;
  readonly to: string;
  readonly port: number;
  readonly protocol: Protocol;
  readonly before: MatrixCell;
  readonly after: MatrixCell;
}

function unionProbes(a: readonly MatrixProbe[], b: readonly MatrixProbe[]): MatrixProbe[] {
  const out = [...a];
  for (const p of b)
    if (!out.some((q) => q.port === p.port && q.protocol === p.protocol)) out.push(p);
  return out;
}

export function policyDiff(
  before: Cluster | CompiledPolicies,
  after: Cluster | CompiledPolicies,
  options?: MatrixOptions,
): PolicyDiffRow[] {
  const b = toCompiled(before);
  const a = toCompiled(after);
  const probes = unionProbes(matrixProbes(b, options), matrixProbes(a, options));
  const ports = [...new Set(probes.map((p) => p.port))];
  const protocols = [...new Set(probes.map((p) => p.protocol))];
  const mb = computePolicyMatrix(b, { ...options, ports, protocols });
  const ma = computePolicyMatrix(a, { ...options, ports, protocols });
  const indexA = new Map(ma.pods.map((p, i) => [p, i]));
  const P = mb.probes.length;
  const rows: PolicyDiffRow[] = [];
  for (let i = 0; i < mb.pods.length; i++) {
    const ia = indexA.get(mb.pods[i] as string);
    if (ia === undefined) continue;
    for (let j = 0; j < mb.pods.length; j++) {
      const ja = indexA.get(mb.pods[j] as string);
      if (ja === undefined) continue;
      for (let k = 0; k < P; k++) {
        const bb = mb.verdicts[(i * mb.pods.length + j) * P + k];
        const ba = ma.verdicts[(ia * ma.pods.length + ja) * P + k];
        if (bb !== ba) {
          const vb = bb === UNKNOWN ? "unknown" : bb === ALLOWED;
          const va = ba === UNKNOWN ? "unknown" : ba === ALLOWED;
          const probe = mb.probes[k] as MatrixProbe;
          rows.push({
            from: mb.pods[i] as string,
            to: mb.pods[j] as string,
            port: probe.port,
            protocol: probe.protocol,
            before: vb,
            after: va,
          });
        }
      }
    }
  }
  return rows;
}
