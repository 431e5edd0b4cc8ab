/**
 * A plugin that writes only nftables (no iptables-save text at all) runs the SCTP plan through
 * NodeState.nftables: its per-pod forward rule passes, and the same rule with its protocol lost
 * (`th dport` instead of `sctp dport`) fails exactly "does not allow TCP or UDP", naming the
 * nftables rule that let TCP through.
 */
import { expect, test } from "@jest/globals";
import { runSctpPlan, type ConformanceAdapter } from "../../../src/testing/index.js";

/** The server (10.244.1.20) admits only the client (10.244.1.10) on port 5000, as the fixture's policy says. */
function nftPlugin(name: string, portMatch: string): ConformanceAdapter {
  return {
    name,
    features: ["networkPolicy"],
    nodeState: () => ({
      nftables: `table inet tinynft {
	chain forward {
		type filter hook forward priority filter; policy accept;
		ip daddr 10.244.1.20 ip saddr 10.244.1.10 ${portMatch} accept
		ip daddr 10.244.1.20 drop
	}
}
`,
    }),
  };
}

test("an nftables-only plugin passes the plan", async () => {
  const results = await runSctpPlan(nftPlugin("tinynft", "sctp dport 5000"));
  expect(results.map((r) => r.name)).toContain(
    "A NetworkPolicy matching an SCTP port does not allow TCP or UDP traffic",
  );
  expect(results.flatMap((r) => r.failures)).toEqual([]);
});

test("its protocol-dropped variant fails only the TCP/UDP test, with the nftables rule path", async () => {
  const results = await runSctpPlan(nftPlugin("tinynft (protocol dropped)", "th dport 5000"));
  const failed = results.filter((r) => r.failures.length > 0);
  expect(failed.map((r) => r.name)).toEqual([
    "A NetworkPolicy matching an SCTP port does not allow TCP or UDP traffic",
  ]);
  expect(failed[0]?.failures.map((f) => f.split("\n")[0])).toEqual([
    "probe TCP sctp-test/client → 10.244.1.20:5000 through tinynft (protocol dropped)",
    "probe UDP sctp-test/client → 10.244.1.20:5000 through tinynft (protocol dropped)",
  ]);
  expect(failed[0]?.failures[0]).toMatch(/rule path:\n {4}\w+ p=1: inet tinynft\/forward#1$/);
});

test("a state with neither iptables nor nftables text is refused", async () => {
  const none: ConformanceAdapter = { name: "none", features: [], nodeState: () => ({}) };
  await expect(runSctpPlan(none)).rejects.toThrow(
    "the adapter returned no iptables-save text for any family and no nftables rule set",
  );
});
