/**
 * A chain declaration, `:NAME POLICY [packets:bytes]`: a built-in chain gets its policy (and
 * counters), a user chain is created, or flushed when it exists already (iptables-nft does so).
 * Also the checks of chain names and counters that the table's commands share.
 */
import { BUILTIN_CHAINS, type Counters } from "../model.js";
import { ChainBuilder, NO_RULES } from "./chain-builder.js";
import { fail } from "./line-error.js";
import type { TableBuilder } from "./table-builder.js";

const MAX_CHAIN_NAME = 28;

/** Counters are immutable; almost every declaration says `[0:0]`, so those share one value. */
const ZERO_COUNTERS: Counters = Object.freeze({ packets: 0n, bytes: 0n });

export function parseCounters(s: string): Counters | undefined {
  if (s === "[0:0]") return ZERO_COUNTERS;
  const m = /^\[([0-9]+):([0-9]+)\]$/.exec(s);
  return m === null
    ? undefined
    : { packets: BigInt(m[1] as string), bytes: BigInt(m[2] as string) };
}

export function checkChainName(name: string): void {
  if (name.length === 0) fail(`missing chain name`);
  if (name.length > MAX_CHAIN_NAME)
    fail(`invalid chain name "${name}" (${MAX_CHAIN_NAME} chars max)`);
  if (name.startsWith("-") || name.startsWith("!")) fail(`invalid chain name "${name}"`);
}

/** The first three words of a chain line: name, policy, counters. */
function chainLineWords(line: string): (string | undefined)[] {
  if (
    line.indexOf("\t") === -1 &&
    line.indexOf("  ") === -1 &&
    line.charCodeAt(1) !== 32 &&
    !line.endsWith(" ")
  ) {
    // Single spaces: the first three words by offsets (no array of every word, no copy).
    const a = line.indexOf(" ");
    if (a === -1) return [line.slice(1)];
    const b = line.indexOf(" ", a + 1);
    if (b === -1) return [line.slice(1, a), line.slice(a + 1)];
    const c = line.indexOf(" ", b + 1);
    return [
      line.slice(1, a),
      line.slice(a + 1, b),
      c === -1 ? line.slice(b + 1) : line.slice(b + 1, c),
    ];
  }
  return line
    .slice(1)
    .split(/[ \t]+/)
    .filter((p) => p !== "");
}

/**
 * Reads `:NAME POLICY [p:b]` at line `lineNo` into table `t`. `upstreamTest`: a built-in chain
 * may be declared with policy `-` (kube-proxy's test fake writes it), keeping its policy.
 */
export function readChainLine(
  t: TableBuilder,
  line: string,
  lineNo: number,
  upstreamTest: boolean,
): void {
  const [name, policy, countersText] = chainLineWords(line);
  if (name === undefined) fail(`missing chain name`);
  checkChainName(name);
  if (policy === undefined) fail(`chain "${name}": missing policy`);
  const counters = countersText === undefined ? undefined : parseCounters(countersText);
  if (countersText !== undefined && counters === undefined)
    fail(`chain "${name}": bad counters "${countersText}"`);
  const existing = t.chains.get(name);
  if (BUILTIN_CHAINS[t.name].includes(name as never)) {
    const c = existing as ChainBuilder;
    if (policy === "ACCEPT" || policy === "DROP") c.policy = policy;
    else if (!(upstreamTest && policy === "-"))
      fail(`bad policy "${policy}" for built-in chain "${name}"`);
    if (counters !== undefined) c.counters = counters;
    c.line = lineNo;
    return;
  }
  if (policy !== "-") fail(`cannot set policy "${policy}" on user-defined chain "${name}"`);
  if (existing !== undefined) {
    // iptables-nft flushes a user chain that is declared again.
    existing.rules = NO_RULES;
    return;
  }
  t.chains.add(new ChainBuilder(name, false, counters, lineNo));
}
