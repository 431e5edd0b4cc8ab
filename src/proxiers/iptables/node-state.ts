/**
 * The iptables state of a node after kube-proxy's first full sync on a clean host, in
 * iptables-restore form: the built-in chains with the jumps of spec §2.2 (kube-proxy's
 * EnsureChain/EnsureRule calls) plus the restore input loaded with --noflush. Loading this
 * text into an empty network namespace gives exactly the tables iptables-save then prints.
 */
import { RestoreBuffers } from "./restore-buffers.js";
import { builtinChainRules, FILTER_BUILTINS, NAT_BUILTINS, ENSURED_JUMPS } from "./builtin-jumps.js";

interface Section {
  readonly chains: string[];
  readonly rules: string[];
}

function splitTables(restore: string): Map<string, Section> {
  const tables = new Map<string, Section>();
  let current: Section | undefined;
  for (const line of restore.split("\n")) {
    if (line.startsWith("*")) {
      current = { chains: [], rules: [] };
      tables.set(line.slice(1), current);
    } else if (current === undefined || line === "COMMIT" || line === "") {
      continue;
    } else if (line.startsWith(":")) {
      current.chains.push(line.slice(1).split(" ")[0] ?? "");
    } else {
      current.rules.push(line);
    }
  }
  return tables;
}

/** The node's filter and nat tables (restore form) once `restore` is applied after the jumps. */
export function nodeStateRestoreText(restore: string): string {
  const tables = splitTables(restore);
  const out: string[] = [];
  for (const [table, builtins] of [
    ["filter", FILTER_BUILTINS],
    ["nat", NAT_BUILTINS],
  ] as const) {
    const section = tables.get(table) ?? { chains: [], rules: [] };
    out.push(`*${table}`);
    for (const b of builtins) out.push(`:${b} ACCEPT [0:0]`);
    const userChains = [...section.chains];
    // Jump targets exist even when the restore input does not declare them (EnsureChain).
    for (const j of ENSURED_JUMPS) {
      if (j.table === table && !userChains.includes(j.target)) userChains.push(j.target);
    }
    for (const c of userChains) out.push(RestoreBuffers.chainLine(c));
    for (const b of builtins) {
      for (const j of builtinChainRules(table, b)) out.push(`-A ${b} ${j.rule}`);
    }
    out.push(...section.rules);
    out.push("COMMIT");
  }
  return `${out.join("\n")}\n`;
}
