/**
 * shared/acceptance/ipvs: each case compared the way its expected.checks.yaml says (see
 * shared/acceptance/README.md, "How each oracle compares").
 */
import { describe, expect, test } from "@jest/globals";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parseIpvsadmSave } from "../../../src/netfilter/ipvs/index.js";
import {
  ACCEPTANCE_IPVS,
  chainRules,
  ipsetEntries,
  ipsetTypes,
  jumpAndMatchSet,
  readYaml,
  renderCase,
  tableAsSet,
} from "./helpers.js";

interface Checks {
  ipvs?: { mode: "exact" };
  ipset?: { mode: "listed-sets-exact"; sets: string[] };
  iptables?:
    | { asserted: false }
    | {
        mode: "listed-chains-jump-and-matchset";
        chains: Record<string, { jump: string; matchSet: string | null }[]>;
      };
}

const cases = readdirSync(ACCEPTANCE_IPVS).filter((d) =>
  existsSync(join(ACCEPTANCE_IPVS, d, "expected.checks.yaml")),
);

describe.each(cases)("acceptance ipvs/%s", (name) => {
  const dir = join(ACCEPTANCE_IPVS, name);
  const checks = readYaml(join(dir, "expected.checks.yaml")) as Checks;
  const out = renderCase(dir);

  test("IPVS table: same virtual servers, each with the same real servers", () => {
    expect(checks.ipvs?.mode).toBe("exact");
    const expected = parseIpvsadmSave(readFileSync(join(dir, "expected.ipvs"), "utf8"));
    expect(tableAsSet(out.state.table)).toEqual(tableAsSet(expected));
  });

  test("listed ipsets: equal entry sets, and the create line's type and options", () => {
    expect(checks.ipset?.mode).toBe("listed-sets-exact");
    const text = readFileSync(join(dir, "expected.ipset"), "utf8");
    const expected = ipsetEntries(text);
    const actual = ipsetEntries(out.ipset);
    const sets = checks.ipset?.sets ?? [];
    expect(sets.length).toBeGreaterThan(0);
    for (const set of sets) {
      expect([...(actual.get(set) ?? ["<missing set>"])].sort()).toEqual(
        [...(expected.get(set) ?? [])].sort(),
      );
      expect(ipsetTypes(out.ipset).get(set)).toBe(ipsetTypes(text).get(set));
    }
  });

  const ipt = checks.iptables;
  if (ipt !== undefined && "mode" in ipt) {
    test("listed chains: jump target and match-set at each position (nat then filter)", () => {
      expect(Object.keys(ipt.chains).length).toBeGreaterThan(0);
      for (const [chain, expected] of Object.entries(ipt.chains)) {
        const rules = [
          ...chainRules(out.iptables, "nat", chain),
          ...chainRules(out.iptables, "filter", chain),
        ];
        expect({ chain, rules: rules.map(jumpAndMatchSet) }).toEqual({
          chain,
          rules: expected.map((e) => ({ jump: e.jump, matchSet: e.matchSet })),
        });
      }
    });

    test("stricter: the listed chains' full rule text as expected.iptables shows it", () => {
      const expectedText = readFileSync(join(dir, "expected.iptables"), "utf8");
      const chains = Object.keys(ipt.chains);
      expect(chains.length).toBeGreaterThan(0);
      for (const chain of chains) {
        // A chain missing from both texts would compare equal: the expected text must hold it.
        expect(
          chainRules(expectedText, "nat", chain).length +
            chainRules(expectedText, "filter", chain).length,
        ).toBeGreaterThan(0);
        for (const table of ["nat", "filter"] as const) {
          expect(chainRules(out.iptables, table, chain)).toEqual(
            chainRules(expectedText, table, chain),
          );
        }
      }
    });
  }
});
