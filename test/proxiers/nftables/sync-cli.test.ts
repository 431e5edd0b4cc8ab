/** `kube-netsim render nftables --sequence DIR` end to end (through runCli, no subprocess). */
import { join } from "node:path";
import { describe, expect, test } from "@jest/globals";
import { runCli } from "../../../src/cli/program.js";
import { sortNftablesTransaction } from "../../../src/netfilter/nftables/upstream-sort.js";
import { expectedDump, SYNC_REPEATED } from "./sync-repeated/harness.js";

async function cli(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCli(args, {
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
    readStdin: () => "",
  });
  return { code, out, err };
}

const settings = [
  "--node-env",
  join(SYNC_REPEATED, "node.yaml"),
  "--proxy-config",
  join(SYNC_REPEATED, "proxy.yaml"),
  "--mark-format",
  "short",
];
const sequence = [
  "render",
  "nftables",
  "--sequence",
  join(SYNC_REPEATED, "states"),
  "--sync-interval",
  "0",
  ...settings,
];

describe("render nftables --sequence", () => {
  test("one header per transaction, with upstream's operation counts", async () => {
    const r = await cli(sequence);
    expect(r).toMatchObject({ code: 0, err: "" });
    const headers = r.out.split("\n").filter((l) => l.startsWith("# "));
    expect(headers).toEqual([
      "# sync 1/13 01-initial.yaml (t=0s): full sync of ip kube-proxy, 101 operations",
      "# sync 2/13 02-add-svc3.yaml (t=0s): partial sync of ip kube-proxy, 10 operations",
      "# sync 3/13 03-delete-svc2.yaml (t=0s): partial sync of ip kube-proxy, 4 operations",
      "# sync 4/13 04-stale-chains-aged+2s.yaml (t=2s): ip kube-proxy: stale chains deleted first, 2 operations",
      "# sync 4/13 04-stale-chains-aged+2s.yaml (t=2s): partial sync of ip kube-proxy, 0 operations",
      "# sync 5/13 05-add-svc4.yaml (t=2s): partial sync of ip kube-proxy, 2 operations",
      "# sync 6/13 06-svc4-endpoints.yaml (t=2s): partial sync of ip kube-proxy, 10 operations",
      "# sync 7/13 07-svc3-endpoint-changed.yaml (t=2s): partial sync of ip kube-proxy, 9 operations",
      "# sync 8/13 08-svc3-endpoint-added+2s.yaml (t=4s): ip kube-proxy: stale chains deleted first, 1 operation",
      "# sync 8/13 08-svc3-endpoint-added+2s.yaml (t=4s): partial sync of ip kube-proxy, 12 operations",
      "# sync 9/13 09-svc3-emptied.yaml (t=4s): partial sync of ip kube-proxy, 5 operations",
      "# sync 10/13 10-svc3-restored.yaml (t=4s): partial sync of ip kube-proxy, 14 operations",
      "# sync 11/13 11-svc3-emptied-again.yaml (t=4s): partial sync of ip kube-proxy, 5 operations",
      "# sync 12/13 12-svc3-restored-after-aging+2s.yaml (t=6s): ip kube-proxy: stale chains deleted first, 3 operations",
      "# sync 12/13 12-svc3-restored-after-aging+2s.yaml (t=6s): partial sync of ip kube-proxy, 14 operations",
      "# sync 13/13 13-no-change.yaml (t=6s): partial sync of ip kube-proxy, 0 operations",
    ]);
    // The first full sync's table is the upstream expected state.
    expect(r.out).toContain("flush chain ip kube-proxy service-MHHHYRWA-ns2/svc2/tcp/p8080\n");
    expect(r.out).toContain(
      "delete element ip kube-proxy service-ips { 172.30.0.42 . tcp . 8080 }\n",
    );
  });

  test("--format dump prints the table after each sync", async () => {
    const r = await cli([...sequence, "--format", "dump"]);
    expect(r.code).toBe(0);
    const last = r.out.split(/^# sync 13\/13 [^\n]*\n/m)[1] ?? "";
    expect(sortNftablesTransaction(last)).toBe(sortNftablesTransaction(expectedDump("10")));
  });

  test.each([
    [["--sequence", "/nonexistent-kns"], "--sequence /nonexistent-kns: no such directory"],
    [["--sequence", SYNC_REPEATED], `--sequence ${SYNC_REPEATED}: no states`],
    [
      ["--sequence", join(SYNC_REPEATED, "node.yaml")],
      `--sequence ${join(SYNC_REPEATED, "node.yaml")}: not a directory`,
    ],
    [
      ["--sequence", join(SYNC_REPEATED, "states"), "-f", join(SYNC_REPEATED, "node.yaml")],
      "--sequence DIR cannot be combined with -f",
    ],
    [
      ["--sequence", join(SYNC_REPEATED, "states"), "--sync-interval", "soon"],
      '--sync-interval: expected seconds (a number >= 0), got "soon"',
    ],
  ])("bad input %j: exit 2, one line", async (args, message) => {
    const r = await cli(["render", "nftables", ...args, ...settings]);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toContain(message);
    expect(r.err.trim().split("\n")).toHaveLength(1);
  });
});
