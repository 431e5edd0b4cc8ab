/**
 * `describe KIND NAME`: an object as YAML; a Service as its ports, its endpoints (local ones
 * marked) and the chains kube-proxy writes for it (the groups of the rendered rules that name it
 * or its cluster IPs, and the KUBE-SVC/SEP/... chains those jump to).
 */
import { stringify } from "yaml";
import type { Cluster } from "../model/cluster.js";
import { renderedLines, type NodeSettings } from "./diff-rules.js";
import { slicesOf } from "./edits.js";
import { refOf, type SessionObject } from "./objects.js";

export function describeObject(
  cluster: Cluster,
  o: SessionObject,
  settings: NodeSettings | { readonly error: string },
): string {
  const out = [`${o.kind} ${refOf(o)}`];
  if (o.kind !== "Service") return `${out[0]}\n${stringify(o.value)}`;
  const spec = (o.value["spec"] ?? {}) as {
    type?: string;
    clusterIPs?: string[];
    externalTrafficPolicy?: string;
    internalTrafficPolicy?: string;
    ports?: {
      name?: string;
      port: number;
      protocol?: string;
      targetPort?: unknown;
      nodePort?: number;
    }[];
  };
  out.push(
    `  type: ${spec.type ?? "ClusterIP"}  cluster IPs: ${(spec.clusterIPs ?? []).join(", ") || "(none)"}`,
  );
  out.push(
    `  externalTrafficPolicy: ${spec.externalTrafficPolicy ?? "-"}  internalTrafficPolicy: ${spec.internalTrafficPolicy ?? "-"}`,
  );
  out.push("  ports:");
  for (const p of spec.ports ?? [])
    out.push(
      `    ${p.name ?? "(unnamed)"} ${p.port}/${p.protocol ?? "TCP"} -> ${String(p.targetPort)}${p.nodePort !== undefined ? ` nodePort ${p.nodePort}` : ""}`,
    );
  out.push("  endpoints:");
  const nodeName = "error" in settings ? undefined : settings.node.nodeName;
  let n = 0;
  for (const s of slicesOf(cluster, o))
    for (const e of (s.value["endpoints"] ?? []) as {
      addresses?: string[];
      nodeName?: string;
      conditions?: { ready?: boolean };
    }[]) {
      n++;
      const where =
        e.nodeName === undefined
          ? ""
          : ` node ${e.nodeName}${e.nodeName === nodeName ? " (local)" : ""}`;
      out.push(
        `    ${(e.addresses ?? []).join(",")}${where}${e.conditions?.ready === false ? " not ready" : ""}`,
      );
    }
  if (n === 0) out.push("    (none)");
  if ("error" in settings) out.push(`  rules: ${settings.error}`);
  else {
    out.push("  rules:");
    const needles = [
      `"${refOf(o)}:`,
      `"${refOf(o)} `,
      ...(spec.clusterIPs ?? []).map((ip) => ` ${ip}`),
    ];
    const lines = renderedLines(cluster, settings);
    const chains = new Set<string>();
    for (const [group, ls] of lines)
      if (ls.some((l) => needles.some((x) => l.includes(x)))) chains.add(group);
    // Chains those rules jump to (KUBE-SVC → KUBE-SEP) belong to the Service too.
    for (const [group, ls] of lines)
      for (const l of ls) {
        const m = / -j (KUBE-(?:SVC|SVL|EXT|FW|SEP)-\S+)/.exec(l);
        if (m !== null && chains.has(group))
          for (const g of lines.keys()) if (g.endsWith(` ${m[1]}`)) chains.add(g);
      }
    for (const [group, ls] of lines)
      if (chains.has(group)) {
        out.push(`    ${group}`);
        for (const l of ls) out.push(`      ${l}`);
      }
  }
  return `${out.join("\n")}\n`;
}
