/**
 * shared/acceptance/nftables flows: every case's flows.tsv through upstream's test-tracer
 * semantics (spec §9) over the rendered table.
 */
import { join } from "node:path";
import { describe, expect, test } from "@jest/globals";
import { existsSync } from "node:fs";
import { traceNftUpstreamStyle } from "../../../src/netfilter/nftables/upstream-trace.js";
import { renderNftables } from "../../../src/proxiers/nftables/index.js";
import { caseDirs, FAKE_LOCAL_IPS, loadCase, readFlows } from "./helpers.js";

const withFlows = caseDirs().filter((d) => existsSync(join(d, "flows.tsv")));

test("the acceptance data has flow cases", () => {
  expect(withFlows.length).toBeGreaterThanOrEqual(4);
});

describe.each(withFlows)("%s", (dir) => {
  const c = loadCase(dir);
  const table = renderNftables(c.cluster, c).ruleSet.tables[0];
  const flows = readFlows(join(dir, "flows.tsv"));

  test.each(flows.map((f, i) => ({ ...f, row: i + 1 })))("row $row: $name", (flow) => {
    expect(table).toBeDefined();
    if (table === undefined) return;
    const r = traceNftUpstreamStyle(table, FAKE_LOCAL_IPS, flow);
    expect({ output: r.output, masq: r.masq }).toEqual({ output: flow.output, masq: flow.masq });
  });
});
