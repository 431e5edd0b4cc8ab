// examples/plugin-repo-cjs's NetworkPolicy plugin (tinypol) passes the SCTP plan, and its
// protocol-dropping variant fails exactly the test upstream wrote for that bug.
import { expect, test } from "@jest/globals";
import { join } from "node:path";
import { runSctpPlan, type ConformanceAdapter } from "../../../src/testing/index.js";

// The example repo's source is compiled against the packed package, not this project, so it is
// loaded by path (tsc does not follow it; the test transform strips its type-only import).
const PLUGIN = join(__dirname, "../../../examples/plugin-repo-cjs/src/netpol-plugin.ts");
interface PluginModule {
  readonly tinypol: ConformanceAdapter;
  readonly tinypolProtocolDropped: ConformanceAdapter;
}
const load = (): Promise<PluginModule> => import(PLUGIN) as Promise<PluginModule>;

test("tinypol passes every applicable test of the SCTP plan", async () => {
  const { tinypol } = await load();
  const results = await runSctpPlan(tinypol);
  expect(results.map((r) => r.name)).toContain(
    "A NetworkPolicy matching an SCTP port does not allow TCP or UDP traffic",
  );
  expect(results.flatMap((r) => r.failures)).toEqual([]);
});

test('tinypol with the port\'s protocol dropped fails only "does not allow TCP or UDP"', async () => {
  const { tinypolProtocolDropped } = await load();
  const results = await runSctpPlan(tinypolProtocolDropped);
  const failed = results.filter((r) => r.failures.length > 0);
  expect(failed.map((r) => r.name)).toEqual([
    "A NetworkPolicy matching an SCTP port does not allow TCP or UDP traffic",
  ]);
  const [tcp, udp] = failed[0]?.failures ?? [];
  expect(failed[0]?.failures).toHaveLength(2);
  expect(tcp).toContain(
    "probe TCP sctp-test/client → 10.244.1.20:5000 through tinypol (protocol dropped)",
  );
  expect(tcp).toContain("expected: not delivered to 10.244.1.20:5000 (NetworkPolicy denies it");
  expect(tcp).toContain("traced:   delivered to 10.244.1.20:5000 from 10.244.1.10");
  expect(tcp).toMatch(
    /rule path:\n {4}ACCEPT p=1: filter\/FORWARD#1 → filter\/TINYPOL-FORWARD#2 → filter\/TINYPOL-POD-[0-9a-f]{8}#1/,
  );
  expect(udp).toContain("probe UDP sctp-test/client → 10.244.1.20:5000");
});
