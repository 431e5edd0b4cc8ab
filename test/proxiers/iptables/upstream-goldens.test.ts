/**
 * Whole restore texts from upstream's golden dumps (TestOverallIPTablesRules, TestBadIPs),
 * compared after upstream's own sort (sortIPTablesRules).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "@jest/globals";
import { renderIptablesFamilies } from "../../../src/proxiers/iptables/render.js";
import { sortRestoreLikeUpstream } from "../../../src/proxiers/iptables/upstream-sort.js";
import { ACCEPTANCE, loadCase, UPSTREAM } from "./helpers.js";

describe("upstream golden dumps", () => {
  test.each(["overall", "bad-ips", "repeated-first-sync"])("%s", (name) => {
    const dir = join(UPSTREAM, name);
    const c = loadCase(dir, join(ACCEPTANCE, "clusterip-sctp"));
    const [result] = renderIptablesFamilies(c.cluster, c);
    expect(sortRestoreLikeUpstream(result!.restore)).toBe(
      readFileSync(join(dir, "expected.rules"), "utf8"),
    );
  });
});
