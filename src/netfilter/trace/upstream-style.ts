/**
 * A reproduction of kube-proxy's unit-test packet tracer (`tracePacket` in
 * pkg/proxy/iptables/proxier_test.go; shared/spec/kube-proxy-iptables.md §7.2), which the
 * upstream packet-flow expectations (acceptance flows.tsv) are written against. It is not a
 * model of the kernel: it reads each rule's words as written, skips `-m MODULE`, treats any
 * rule with `--rcheck`, `--mark` or `--ctstate` as never matching, ignores everything it does
 * not know (statistic, nfacct, `-i`, ...), runs nat PREROUTING and then the filter chains
 * KUBE-SERVICES, KUBE-EXTERNAL-SERVICES, KUBE-NODEPORTS and KUBE-PROXY-FIREWALL directly, and
 * collects every endpoint of a random-balanced chain in traversal order.
 */
import { cidrContains, ipEquals, parseCIDR, parseIP, type IPAddress } from "../../net/index.js";
import type { Chain, Rule, RuleSet, TableName } from "../model.js";
import { splitRestoreWords } from "../parse/words.js";

export interface UpstreamPacket {
  /** Empty means tcp, as in the Go test. */
  readonly protocol: string;
  readonly sourceIP: string;
  readonly destIP: string;
  readonly destPort: number | string;
}

export interface UpstreamTraceResult {
  /** Outputs joined with ", ": DNAT destinations, or ACCEPT/DROP/REJECT; "" when nothing. */
  readonly output: string;
  readonly masq: boolean;
  /** The matched rules with a jump, `table/CHAIN#n`, for failure messages. */
  readonly path: readonly string[];
}

interface Value {
  readonly negated: boolean;
  readonly value: string;
}

/** The parameters the upstream parser knows, each with whether it takes an argument. */
const PARAMS: Readonly<Record<string, boolean>> = {
  "-A": true,
  "--comment": true,
  "-p": true,
  "-s": true,
  "--src-type": true,
  "--sport": true,
  "-d": true,
  "--dst-type": true,
  "--dport": true,
  "--match-set": true,
  "-j": true,
  "--random-fully": false,
  "--probability": true,
  "--to-destination": true,
  "--rcheck": false,
  "--mark": true,
  "--ctstate": true,
  "--name": true,
  "--seconds": true,
  "--set": false,
  "--reap": false,
  "--mode": true,
};

type Parsed = ReadonlyMap<string, Value>;

/** Reads a rule's words as the upstream non-strict parser does (quotes trimmed off each word). */
export function parseUpstreamWords(written: readonly string[]): Parsed {
  const words = written.map((w) => w.replace(/^"+|"+$/g, ""));
  const out = new Map<string, Value>();
  let negated = false;
  for (let w = 0; w < words.length;) {
    const word = words[w]!;
    if (word === "-m" && w < words.length - 1) {
      w += 2;
      continue;
    }
    if (word === "!") {
      negated = true;
      w++;
      continue;
    }
    const takesArg = PARAMS[word];
    if (takesArg === undefined) w++;
    else if (!takesArg) {
      out.set(word, { negated, value: "" });
      w++;
    } else {
      if (w + 1 < words.length) out.set(word, { negated, value: words[w + 1]! });
      w += 2;
    }
    negated = false;
  }
  return out;
}

/** A rule's words: as written, else rebuilt from the typed rule (standard options + target). */
function wordsOf(rule: Rule): readonly string[] {
  if (rule.written !== undefined) return splitRestoreWords(rule.written).raw;
  const words: string[] = [];
  const neg = (n: boolean): void => {
    if (n) words.push("!");
  };
  if (rule.protocol) {
    neg(rule.protocol.negated);
    words.push("-p", rule.protocol.value);
  }
  const t = rule.target;
  if (t !== undefined) {
    if (t.kind === "jump") words.push("-j", t.chain);
    else words.push("-j", t.kind);
  }
  return words;
}

interface Tracer {
  readonly dump: ReadonlyMap<TableName, ReadonlyMap<string, Chain>>;
  readonly local: readonly IPAddress[];
  readonly src: IPAddress | undefined;
  readonly srcText: string;
  dst: IPAddress | undefined;
  dstText: string;
  readonly protocol: string;
  readonly dport: string;
  outputs: string[];
  masq: boolean;
  path: string[];
  readonly parsed: Map<Rule, Parsed>;
}

function addressMatches(v: Value, ip: IPAddress | undefined): boolean {
  let hit = false;
  if (ip !== undefined) {
    if (v.value.includes("/")) {
      const c = parseCIDR(v.value, "lenient");
      hit = c !== undefined && cidrContains(c, ip);
    } else {
      const a = parseIP(v.value, "lenient");
      hit = a !== undefined && ipEquals(a, ip);
    }
  }
  return hit !== v.negated;
}

function stringMatches(v: Value, s: string): boolean {
  return (v.value === s) !== v.negated;
}

function isLocal(t: Tracer, ip: IPAddress | undefined): boolean {
  return ip !== undefined && t.local.some((l) => ipEquals(l, ip));
}

function ruleMatches(t: Tracer, r: Parsed): boolean {
  if (r.has("--rcheck") || r.has("--mark") || r.has("--ctstate")) return false;
  const s = r.get("-s");
  if (s && !addressMatches(s, t.src)) return false;
  const st = r.get("--src-type");
  if (st && !stringMatches(st, isLocal(t, t.src) ? "LOCAL" : "not-matched")) return false;
  const p = r.get("-p");
  if (p && !stringMatches(p, t.protocol)) return false;
  const d = r.get("-d");
  if (d && !addressMatches(d, t.dst)) return false;
  const dt = r.get("--dst-type");
  if (dt && !stringMatches(dt, isLocal(t, t.dst) ? "LOCAL" : "not-matched")) return false;
  const dp = r.get("--dport");
  if (dp && !stringMatches(dp, t.dport)) return false;
  return true;
}

function runChain(t: Tracer, table: TableName, chainName: string): boolean {
  const chain = t.dump.get(table)?.get(chainName);
  if (chain === undefined) return false;
  for (let i = 0; i < chain.rules.length; i++) {
    const rule = chain.rules[i]!;
    let r = t.parsed.get(rule);
    if (r === undefined) {
      r = parseUpstreamWords(wordsOf(rule));
      t.parsed.set(rule, r);
    }
    const jump = r.get("-j");
    if (jump === undefined || !ruleMatches(t, r)) continue;
    t.path.push(`${table}/${chainName}#${i + 1}`);
    const target = jump.value;
    if (target === "KUBE-MARK-MASQ") {
      t.masq = true;
      continue;
    }
    if (target === "ACCEPT" || target === "REJECT" || target === "DROP") {
      t.outputs.push(target);
      return true;
    }
    if (target === "DNAT") {
      t.outputs.push(r.get("--to-destination")?.value ?? "");
      return true;
    }
    if (runChain(t, table, target) && !r.has("--probability")) return true;
  }
  return false;
}

function chainMaps(ruleSet: RuleSet): Map<TableName, Map<string, Chain>> {
  const m = new Map<TableName, Map<string, Chain>>();
  for (const table of ruleSet.tables) {
    const chains = new Map<string, Chain>();
    for (const c of table.chains) chains.set(c.name, c);
    m.set(table.name, chains);
  }
  return m;
}

/** `localAddrs`: the node IPs; 127.0.0.1 and ::1 are always added, as upstream does. */
export function traceUpstreamStyle(
  ruleSet: RuleSet,
  localAddrs: readonly string[],
  packet: UpstreamPacket,
): UpstreamTraceResult {
  const local: IPAddress[] = [];
  for (const a of ["127.0.0.1", "::1", ...localAddrs]) {
    const ip = parseIP(a.includes("/") ? a.slice(0, a.indexOf("/")) : a, "lenient");
    if (ip !== undefined) local.push(ip);
  }
  const t: Tracer = {
    dump: chainMaps(ruleSet),
    local,
    src: parseIP(packet.sourceIP, "lenient"),
    srcText: packet.sourceIP,
    dst: parseIP(packet.destIP, "lenient"),
    dstText: packet.destIP,
    protocol: packet.protocol === "" ? "tcp" : packet.protocol,
    dport: String(packet.destPort),
    outputs: [],
    masq: false,
    path: [],
    parsed: new Map(),
  };
  runChain(t, "nat", "PREROUTING");
  if (t.outputs.length > 0) {
    // Upstream cuts at the first ":" (wrong for bracketed IPv6, harmless in its cases).
    const first = t.outputs[0]!;
    const cut = first.indexOf(":");
    t.dstText = cut === -1 ? first : first.slice(0, cut);
    t.dst = parseIP(t.dstText, "lenient");
  }
  for (const chain of [
    "KUBE-SERVICES",
    "KUBE-EXTERNAL-SERVICES",
    "KUBE-NODEPORTS",
    "KUBE-PROXY-FIREWALL",
  ])
    runChain(t, "filter", chain);
  return { output: t.outputs.join(", "), masq: t.masq, path: t.path };
}
