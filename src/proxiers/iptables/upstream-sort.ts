/**
 * The canonical order upstream's tests compare kube-proxy output in (`sortIPTablesRules` in
 * pkg/proxy/iptables/proxier_test.go, spec §7.1): tables by name; chains KUBE-NODEPORTS, then
 * KUBE-SERVICES, then other KUBE-* and then the rest, alphabetically; rules keep their order
 * except in KUBE-NODEPORTS and KUBE-SERVICES, which are stable-sorted by the service name in
 * their comment (the "must be the last rule" rule stays last). Used to compare with goldens.
 */

import { KUBE_NODEPORTS, KUBE_SERVICES } from "../common/chain-names.js";

interface DumpTable {
  readonly name: string;
  readonly chains: { name: string; rules: string[] }[];
  readonly deleted: string[];
}

/** The comment value of a restore-form rule line, unquoted, or undefined. */
export function ruleComment(line: string): string | undefined {
  const i = line.indexOf("--comment ");
  if (i === -1) return undefined;
  const rest = line.slice(i + "--comment ".length);
  if (rest.startsWith('"')) {
    const end = rest.indexOf('"', 1);
    return end === -1 ? rest.slice(1) : rest.slice(1, end);
  }
  const sp = rest.indexOf(" ");
  return sp === -1 ? rest : rest.slice(0, sp);
}

function commentServiceName(line: string): string | undefined {
  const c = ruleComment(line);
  if (c === undefined) return undefined;
  const m = /[ :]/.exec(c);
  return m === null ? c : c.slice(0, m.index);
}

function compareByServiceName(a: string, b: string): number {
  const x = commentServiceName(a);
  const y = commentServiceName(b);
  if (x === undefined || y === undefined) return 0;
  return x < y ? -1 : x > y ? 1 : 0;
}

function chainRank(name: string): number {
  if (name === KUBE_NODEPORTS) return 0;
  if (name === KUBE_SERVICES) return 1;
  return name.startsWith("KUBE-") ? 2 : 3;
}

function parseDump(text: string): DumpTable[] {
  const tables: DumpTable[] = [];
  let current: DumpTable | undefined;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    if (line.startsWith("*")) {
      current = { name: line.slice(1), chains: [], deleted: [] };
      tables.push(current);
    } else if (current === undefined || line === "COMMIT") {
      continue;
    } else if (line.startsWith(":")) {
      const name = line.slice(1).split(" ")[0] ?? "";
      if (!current.chains.some((c) => c.name === name)) current.chains.push({ name, rules: [] });
    } else if (line.startsWith("-X ")) {
      current.deleted.push(line.slice(3).trim());
    } else if (line.startsWith("-A ")) {
      const name = line.slice(3).split(" ")[0] ?? "";
      let chain = current.chains.find((c) => c.name === name);
      if (chain === undefined) {
        chain = { name, rules: [] };
        current.chains.push(chain);
      }
      chain.rules.push(line);
    }
  }
  return tables;
}

export function sortRestoreLikeUpstream(text: string): string {
  const tables = parseDump(text).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: string[] = [];
  for (const t of tables) {
    t.chains.sort((a, b) => {
      const r = chainRank(a.name) - chainRank(b.name);
      if (r !== 0 || chainRank(a.name) < 2) return r;
      return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
    });
    for (const c of t.chains) {
      if (c.name === KUBE_NODEPORTS || (c.name === KUBE_SERVICES && t.name === "filter")) {
        c.rules.sort(compareByServiceName);
      } else if (c.name === KUBE_SERVICES && t.name === "nat") {
        const last = (r: string): boolean =>
          (ruleComment(r) ?? "").includes("must be the last rule");
        c.rules.sort((a, b) =>
          last(a) ? (last(b) ? 0 : 1) : last(b) ? -1 : compareByServiceName(a, b),
        );
      }
    }
    out.push(`*${t.name}`);
    for (const c of t.chains) out.push(`:${c.name} - [0:0]`);
    for (const c of t.chains) out.push(...c.rules);
    for (const d of t.deleted) out.push(`-X ${d}`);
    out.push("COMMIT");
  }
  return `${out.join("\n")}\n`;
}
