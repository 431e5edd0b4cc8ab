/**
 * `snapshot diff` in nftables mode: the tables kube-proxy's nftables proxier owns
 * (`ip kube-proxy`, `ip6 kube-proxy`) as rendered for the manifests, against those tables in the
 * node's `nft list ruleset`, per service port: chains missing or not expected (an endpoint chain
 * the API has not ready, or not at all, is a stale endpoint), base chains with another type,
 * hook, priority or policy (or a regular chain where kube-proxy writes a base chain, and the
 * reverse), rules missing, unexpected or in
 * another order (compared in `nft list` form, so counters and spelling do not matter), sets and
 * maps missing or not expected, and their elements missing, not expected, or mapped to another
 * verdict. Other tables (iptables-nft's, other software's) are counted, not judged, and not even
 * parsed: only the kube-proxy tables' text is read.
 */
import type { Cluster } from "../../model/cluster.js";
import { canonicalIP, joinHostPort } from "../../net/index.js";
import { verdictText } from "../../netfilter/nftables/knftables-text.js";
import { priorityText, ruleCanonical } from "../../netfilter/nftables/list.js";
import type { Chain, NamedSet, SetElement, Table } from "../../netfilter/nftables/model.js";
import { parseNftables } from "../../netfilter/nftables/parse/index.js";
import { renderNftables } from "../../proxiers/nftables/render-nftables.js";
import type { DiffOptions, Drift, DriftPart } from "./diff.js";
import { apiEndpoints } from "./diff-iptables.js";
import type { Snapshot } from "./read.js";

/** The kube-proxy table name (pkg/proxy/nftables: kubeProxyTable). */
const KUBE_PROXY_TABLE = "kube-proxy";

/** A top-level `table FAMILY NAME { ... }` block of `nft list ruleset`. */
interface TableBlock {
  readonly family: string;
  readonly name: string;
  readonly text: string;
  /** 1-based line of `table` in the ruleset (for parse errors). */
  readonly line: number;
}

/** Splits `nft list ruleset` into its table blocks (braces counted outside quoted strings). */
export function tableBlocks(ruleset: string): TableBlock[] {
  const out: TableBlock[] = [];
  const lines = ruleset.split("\n");
  let start = -1;
  let depth = 0;
  let head: RegExpExecArray | null = null;
  for (const [i, line] of lines.entries()) {
    if (depth === 0) {
      head = /^table\s+(\S+)\s+(\S+)\s*\{/.exec(line);
      if (head === null) continue;
      start = i;
    }
    let quoted = false;
    for (const ch of line) {
      if (ch === '"') quoted = !quoted;
      else if (!quoted && ch === "{") depth++;
      else if (!quoted && ch === "}") depth--;
    }
    if (depth === 0 && start >= 0 && head !== null) {
      out.push({
        family: head[1]!,
        name: head[2]!,
        text: `${lines.slice(start, i + 1).join("\n")}\n`,
        line: start + 1,
      });
      start = -1;
    }
  }
  return out;
}

/** `ns/svc:port` from a kube-proxy chain name (`service-HASH-ns/svc/tcp/port[__ip/port]`). */
function servicePortOfChain(name: string): string | undefined {
  const m =
    /^(?:service|external|firewall|endpoint)-[A-Z0-9]{8}-([^/]+)\/([^/]+)\/[^/]+\/(.*?)(?:__|$)/.exec(
      name,
    );
  if (m === null) return undefined;
  return m[3] !== "" ? `${m[1]}/${m[2]}:${m[3]}` : `${m[1]}/${m[2]}`;
}

/** The endpoint (`ip:port`) of an endpoint chain's name (`...__10.0.0.1/80`). */
function endpointOfChain(name: string): string | undefined {
  const m = /^endpoint-.*__(.+)\/(\d+)$/.exec(name);
  return m === null ? undefined : joinHostPort(m[1]!, Number(m[2]));
}

function atom(text: string): string {
  if (/^\d+$/.test(text)) return String(Number(text));
  return canonicalIP(text, "strict") ?? text;
}

function elementKey(e: SetElement): string {
  return e.key.map(atom).join(" . ");
}

function elementValue(e: SetElement): string | undefined {
  if (e.value === undefined) return undefined;
  return e.value.kind === "verdict" ? verdictText(e.value.verdict) : atom(e.value.text);
}

function elementText(e: SetElement): string {
  const v = elementValue(e);
  return v === undefined ? elementKey(e) : `${elementKey(e)} : ${v}`;
}

/** The service port an element stands for: its comment, or the chain its verdict goes to. */
function servicePortOfElement(e: SetElement): string | undefined {
  if (e.comment !== undefined && e.comment.includes("/")) return e.comment;
  const v = e.value;
  if (v?.kind === "verdict" && (v.verdict.kind === "goto" || v.verdict.kind === "jump"))
    return servicePortOfChain(v.verdict.chain);
  return undefined;
}

/**
 * What makes a chain a base chain, as `nft list` prints it (type, hook, priority, policy), or
 * `regular chain`. A base chain hooked elsewhere, at another priority (so before or after other
 * software's chains), or with a drop policy changes what every packet meets, whatever its rules.
 */
function baseText(c: Chain): string {
  const b = c.base;
  if (b === undefined) return "regular chain";
  return `type ${b.type} hook ${b.hook} priority ${priorityText(b)}; policy ${b.policy ?? "accept"}`;
}

function multisetMinus(a: readonly string[], b: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const x of b) counts.set(x, (counts.get(x) ?? 0) + 1);
  return a.filter((x) => {
    const n = counts.get(x) ?? 0;
    if (n > 0) counts.set(x, n - 1);
    return n === 0;
  });
}

function diffTable(
  expected: Table,
  actual: Table | undefined,
  api: ReadonlyMap<string, boolean>,
): Drift[] {
  const drifts: Drift[] = [];
  const where = `${expected.family} ${expected.name}`;
  const family = expected.family === "ip6" ? "IPv6" : "IPv4";
  const add = (d: Omit<Drift, "family" | "table">): void => {
    drifts.push({ ...d, family, table: where });
  };
  const at = (sp: string | undefined): { servicePort?: string } =>
    sp !== undefined ? { servicePort: sp } : {};
  if (actual === undefined) {
    add({ kind: "missing-chain", chain: "*", message: `missing table ${where}` });
    return drifts;
  }
  const rules = (t: Table, c: Chain): string[] => c.rules.map((r) => ruleCanonical(t.family, r));
  const want = new Map(expected.chains.map((c) => [c.name, c]));
  const have = new Map(actual.chains.map((c) => [c.name, c]));
  for (const name of [...new Set([...want.keys(), ...have.keys()])].sort()) {
    const e = want.get(name);
    const a = have.get(name);
    const sp = at(servicePortOfChain(name));
    if (a === undefined) {
      add({ ...sp, kind: "missing-chain", chain: name, message: `missing chain ${where}/${name}` });
      continue;
    }
    if (e === undefined) {
      const endpoint = endpointOfChain(name);
      if (endpoint !== undefined) {
        const ready = api.get(endpoint);
        add({
          ...sp,
          kind: "stale-endpoint",
          chain: name,
          endpoint,
          message: `stale endpoint ${endpoint} (${where}/${name}; ${ready === undefined ? "not in the API" : ready ? "not expected for this node" : "not ready in the API"})`,
        });
      } else
        add({
          ...sp,
          kind: "extra-chain",
          chain: name,
          message: `chain kube-proxy would not write: ${where}/${name}`,
        });
      continue;
    }
    const eb = baseText(e);
    const ab = baseText(a);
    if (eb !== ab)
      add({
        ...sp,
        kind: "chain-differs",
        chain: name,
        message: `${where}/${name}: chain differs: expected ${eb}, node has ${ab}`,
      });
    const er = rules(expected, e);
    const ar = rules(actual, a);
    const missing = multisetMinus(er, ar);
    const extra = multisetMinus(ar, er);
    for (const rule of missing)
      add({
        ...sp,
        kind: "missing-rule",
        chain: name,
        rule,
        message: `${where}/${name}: missing rule: ${rule}`,
      });
    for (const rule of extra)
      add({
        ...sp,
        kind: "unexpected-rule",
        chain: name,
        rule,
        message: `${where}/${name}: rule kube-proxy never writes: ${rule}`,
      });
    if (missing.length === 0 && extra.length === 0 && er.join("\n") !== ar.join("\n"))
      add({
        ...sp,
        kind: "rule-order",
        chain: name,
        message: `${where}/${name}: the same rules in another order`,
      });
  }
  const sets = (t: Table): Map<string, NamedSet> => new Map(t.sets.map((s) => [s.name, s]));
  const wantSets = sets(expected);
  const haveSets = sets(actual);
  for (const name of [...new Set([...wantSets.keys(), ...haveSets.keys()])].sort()) {
    const e = wantSets.get(name);
    const a = haveSets.get(name);
    if (a === undefined) {
      add({ kind: "missing-set", chain: name, message: `missing ${e!.kind} ${where}/${name}` });
      continue;
    }
    if (e === undefined) {
      add({
        kind: "extra-set",
        chain: name,
        message: `${a.kind} kube-proxy would not create: ${where}/${name}`,
      });
      continue;
    }
    const byKey = (s: NamedSet): Map<string, SetElement> =>
      new Map(s.elements.map((x) => [elementKey(x), x]));
    const ew = byKey(e);
    const aw = byKey(a);
    for (const [key, x] of ew) {
      const y = aw.get(key);
      const sp2 = at(servicePortOfElement(x));
      if (y === undefined)
        add({
          ...sp2,
          kind: "missing-element",
          chain: name,
          element: elementText(x),
          message: `${e.kind} ${where}/${name}: missing element ${elementText(x)}`,
        });
      else if (elementValue(x) !== elementValue(y))
        add({
          ...sp2,
          kind: "element-differs",
          chain: name,
          element: elementText(y),
          message: `${e.kind} ${where}/${name}: element differs: expected ${elementText(x)}, node has ${elementText(y)}`,
        });
    }
    for (const [key, y] of aw)
      if (!ew.has(key))
        add({
          ...at(servicePortOfElement(y)),
          kind: "extra-element",
          chain: name,
          element: elementText(y),
          message: `${e.kind} ${where}/${name}: element kube-proxy would not add: ${elementText(y)}`,
        });
  }
  return drifts;
}

/** Rules in a table kube-proxy does not own (counted, not judged): its `chain` blocks' lines. */
function countRules(block: TableBlock): number {
  let n = 0;
  let inChain = false;
  for (const line of block.text.split("\n")) {
    const t = line.trim();
    if (/^chain\s/.test(t)) inChain = true;
    else if (t === "}") inChain = false;
    else if (inChain && t !== "" && !/^(type|policy|comment)\s/.test(t)) n++;
  }
  return n;
}

export function diffNftablesMode(
  snapshot: Snapshot,
  cluster: Cluster,
  opts: DiffOptions,
): DriftPart[] {
  const rendered = renderNftables(cluster, opts);
  const blocks = tableBlocks(snapshot.nftables);
  const file = `${snapshot.dir}/nft-ruleset.txt`;
  const api = apiEndpoints(cluster);
  const drifts: Drift[] = [];
  const servicePorts = new Set<string>();
  for (const f of rendered.families) {
    const expected = f.table;
    for (const c of expected.chains) {
      const sp = servicePortOfChain(c.name);
      if (sp !== undefined) servicePorts.add(sp);
    }
    const block = blocks.find((b) => b.family === expected.family && b.name === expected.name);
    // Parsed alone, with the ruleset's line numbers kept for errors.
    const actual =
      block === undefined
        ? undefined
        : parseNftables(`${"\n".repeat(block.line - 1)}${block.text}`, file).tables[0];
    drifts.push(...diffTable(expected, actual, api));
  }
  const foreign = blocks.filter((b) => b.name !== KUBE_PROXY_TABLE);
  return [
    {
      drifts,
      foreignRules: foreign.reduce((n, b) => n + countRules(b), 0),
      foreignChains: foreign.map((b) => `table ${b.family} ${b.name}`),
      servicePorts: [...servicePorts],
    },
  ];
}
