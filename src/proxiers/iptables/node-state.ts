/**
 * The iptables state of a node after kube-proxy's first full sync on a clean host: the built-in
 * chains with the jumps of spec §2.2 (kube-proxy's EnsureChain/EnsureRule calls), the chains
 * those jumps need (EnsureChain creates them even where the restore input does not), and the
 * restore input loaded with --noflush. Its restore form loads into an empty network namespace
 * and gives exactly the tables iptables-save then prints.
 */
import { RuleSetBuilder } from "../../netfilter/build/rule-set-builder.js";
import type { Chain, Counters, RuleSet, Table } from "../../netfilter/model.js";
import { appendBuiltinJump, builtinChainRules, ENSURED_JUMPS } from "./builtin-jumps.js";

const ZERO: Counters = Object.freeze({ packets: 0n, bytes: 0n });

/** `payload` (kube-proxy's restore input as a rule set) applied after the built-in jumps. */
export function nodeStateRuleSet(payload: RuleSet): RuleSet {
  const jumps = new RuleSetBuilder(payload.family);
  for (const t of payload.tables) {
    const table = jumps.table(t.name);
    for (const c of t.chains)
      if (c.policy !== undefined)
        for (const j of builtinChainRules(t.name, c.name)) appendBuiltinJump(table, j);
  }
  const built = jumps.build();
  const tables = payload.tables.map((t): Table => {
    const withJumps = built.tables.find((b) => b.name === t.name) as Table;
    const chains: Chain[] = [];
    // Built-in chains as declared (`:INPUT ACCEPT [0:0]`), holding the jumps.
    for (const b of withJumps.chains)
      chains.push({ name: b.name, policy: "ACCEPT", counters: ZERO, rules: b.rules });
    for (const c of t.chains) if (c.policy === undefined) chains.push(c);
    for (const j of ENSURED_JUMPS) {
      if (j.table === t.name && !chains.some((c) => c.name === j.target))
        chains.push({ name: j.target, counters: ZERO, rules: [] });
    }
    return { name: t.name, chains };
  });
  return { family: payload.family, tables };
}
