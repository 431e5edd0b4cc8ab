/**
 * The iptables state of a node after kube-proxy's first full sync on a clean host, in
 * iptables-restore form: the built-in chains with the jumps of spec §2.2 (kube-proxy's
 * EnsureChain/EnsureRule calls) plus the restore input loaded with --noflush. Loading this
 * text into an empty network namespace gives exactly the tables iptables-save then prints.
 */
import { RestoreBuffers } from "./restore-buffers.js";
import { builtinChainRules, FILTER_BUILTINS, NAT_BUILTINS, ENSURED_JUMPS } from "./builtin-jumps.js";

/** The node's filter and nat tables (restore form) once `buf`'s input is applied after the jumps. */
export function nodeStateRestoreText(buf: RestoreBuffers): string {
  const out: string[] = [];
  const sections = [
    ["filter", FILTER_BUILTINS, buf.filterChains, buf.filterRules],
    ["nat", NAT_BUILTINS, buf.natChains, buf.natRules],
  ] as const;
  for (const [table, builtins, chainLines, rules] of sections) {
    out.push(`*${table}`);
    for (const b of builtins) out.push(`:${b} ACCEPT [0:0]`);
    out.push(...chainLines);
    // Jump targets exist even when the restore input does not declare them (EnsureChain).
    const declared = new Set(chainLines);
    for (const j of ENSURED_JUMPS) {
      const line = RestoreBuffers.chainLine(j.target);
      if (j.table === table && !declared.has(line)) {
        declared.add(line);
        out.push(line);
      }
    }
    for (const b of builtins) {
      for (const j of builtinChainRules(table, b)) out.push(`-A ${b} ${j.rule}`);
    }
    for (const r of rules) out.push(r);
    out.push("COMMIT");
  }
  return `${out.join("\n")}\n`;
}
