/**
 * The iptables proxier builds its rules as data (netfilter/build): the built rule set must be
 * exactly what the parser reads from the restore text it prints (typed matches, targets,
 * addresses, lines), and the node's rule set exactly what the parser reads from its restore
 * form. The parser is the reference here; the proxier itself never parses.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "@jest/globals";
import { fc, test } from "@fast-check/jest";
import type { RuleSet } from "../../../src/netfilter/model.js";
import { parseIptables } from "../../../src/netfilter/parse/iptables.js";
import { formatIptablesSave } from "../../../src/netfilter/format/save.js";
import { renderIptablesFamilies } from "../../../src/proxiers/iptables/render.js";
import { kubeCluster } from "../../../src/testing/arbitraries/kubeCluster.js";
import { ACCEPTANCE, FAKE_CONFIG, FAKE_NODE, loadCase, UPSTREAM, type Case } from "./helpers.js";

/** The rule set without source lines (the node state's restore form is laid out anew). */
function withoutLines(rs: RuleSet): unknown {
  return JSON.parse(
    JSON.stringify(rs, (k, v: unknown) =>
      k === "line" ? undefined : typeof v === "bigint" ? `${v}n` : v,
    ),
  );
}

function expectBuiltAsParsed(c: Case): void {
  const families = renderIptablesFamilies(c.cluster, c);
  expect(families.length).toBeGreaterThan(0);
  for (const f of families) {
    const parsed = parseIptables(f.restore, { file: "<restore>", family: f.family });
    expect(f.payload).toEqual(parsed);
    const node = parseIptables(f.nodeState, { file: "<node>", family: f.family });
    expect(withoutLines(f.ruleSet)).toEqual(withoutLines(node));
    expect(formatIptablesSave(f.ruleSet)).toBe(formatIptablesSave(node));
  }
}

const CASES: readonly [string, () => Case][] = [
  ["clusterip-sctp", () => loadCase(join(ACCEPTANCE, "clusterip-sctp"))],
  ...readdirSync(join(ACCEPTANCE, "nodeports", "variants")).map((n): [string, () => Case] => [
    `nodeports ${n}`,
    () => loadCase(join(ACCEPTANCE, "nodeports", "variants", n)),
  ]),
  ...["overall", "bad-ips", "repeated-first-sync"].map((n): [string, () => Case] => [
    `upstream ${n}`,
    () => loadCase(join(UPSTREAM, n), join(ACCEPTANCE, "clusterip-sctp")),
  ]),
];

describe("the iptables proxier's rule set is what the parser reads from its text", () => {
  test("the cases are there", () => {
    expect(CASES.length).toBeGreaterThan(8);
  });

  test.each(CASES)("%s", (_, load) => {
    expectBuiltAsParsed(load());
  });

  test.prop([kubeCluster({ maxServices: 5 }), fc.boolean(), fc.boolean()], { numRuns: 60 })(
    "random clusters, large-cluster mode and padded marks",
    (g, large, padded) => {
      expectBuiltAsParsed({
        cluster: g.cluster,
        node: FAKE_NODE,
        proxyConfig: FAKE_CONFIG,
        ...{ largeClusterMode: large, masqueradeMarkFormat: padded ? "padded" : "short" },
      });
    },
  );
});
