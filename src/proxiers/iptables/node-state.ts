/**
 * The iptables state of a node after kube-proxy's first full sync on a clean host, in
 * iptables-restore form: the built-in chains with the jumps of spec §2.2 (kube-proxy's
 * EnsureChain/EnsureRule calls) plus the restore input loaded with --noflush. Loading this
 * text into an empty network namespace gives exactly the tables iptables-save then prints.
 */
import { RestoreBuffers } from "./restore-buffers.js";
import {
  builtinChainRules,
  FILTER_BUILTINS,
  NAT_BUILTINS,
  ENSURED_JUMPS,
} from "./builtin-jumps.js";

/** The node's filter and nat tables (restore form) once `buf`'s input is applied after the jumps. */
export function nodeStateRestoreText(buf: RestoreBuffers): string {
  const joined = buf.sections();
  const sections = [
    ["filter", FILTER_BUILTINS, buf.filterChains, joined.filterChains, joined.filterRules],
    ["nat", NAT_BUILTINS, buf.natChains, joined.natChains, joined.natRules],
  ] as const;
  let out = "";
  for (const [table, builtins, chainLines, chainsText, rulesText] of sections) {
    const head: string[] = [`*${table}`];
    for (const b of builtins) head.push(`:${b} ACCEPT [0:0]`);
    // Jump targets exist even when the restore input does not declare them (EnsureChain).
    const extra: string[] = [];
    for (const j of ENSURED_JUMPS) {
      const line = RestoreBuffers.chainLine(j.target);
      if (j.table === table && !extra.includes(line) && !chainLines.includes(line))
        extra.push(line);
    }
    const jumps: string[] = [];
    for (const b of builtins) {
      for (const j of builtinChainRules(table, b)) jumps.push(`-A ${b} ${j.rule}`);
    }
    out += `${head.join("\n")}\n${chainsText}${lines(extra)}${lines(jumps)}${rulesText}COMMIT\n`;
  }
  return out;
}

function lines(list: readonly string[]): string {
  return list.length === 0 ? "" : `${list.join("\n")}\n`;
}
