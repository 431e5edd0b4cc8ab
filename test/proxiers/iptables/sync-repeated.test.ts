/**
 * TestSyncProxyRulesRepeated (pkg/proxy/iptables/proxier_test.go) as an acceptance test of
 * `syncIptablesSequence`: each sync's iptables-restore input equals upstream's expected string
 * after upstream's sort: the first sync full, then only the chains of changed services, `-X`
 * of the chains of deleted services and endpoints.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "@jest/globals";
import { readSequenceDir } from "../../../src/cli/commands/render-sequence.js";
import { syncIptablesSequence } from "../../../src/proxiers/iptables/sync.js";
import { sortRestoreLikeUpstream } from "../../../src/proxiers/iptables/upstream-sort.js";
import { ACCEPTANCE, loadCase } from "./helpers.js";

const dir = join(__dirname, "sync-repeated");
const io = { stdout: () => undefined, stderr: () => undefined, readStdin: () => "" };
const states = readSequenceDir(join(dir, "states"), {}, io);
const settings = loadCase(join(ACCEPTANCE, "clusterip-sctp"));
const syncs = syncIptablesSequence(states, {
  node: settings.node,
  proxyConfig: settings.proxyConfig,
});

const restore = (step: number): string => {
  const f = syncs[step - 1]?.families;
  if (f?.length !== 1 || f[0] === undefined) throw new Error(`sync ${step}: expected one family`);
  return f[0].restore;
};
const expected = (step: number): string =>
  readFileSync(join(dir, "expected", `${String(step).padStart(2, "0")}.rules`), "utf8");

describe("iptables TestSyncProxyRulesRepeated", () => {
  test("eight syncs, the first full", () => {
    expect(syncs.map((s) => s.families[0]?.full)).toEqual([true, ...Array<boolean>(7).fill(false)]);
  });

  test.each([1, 2, 3, 4, 5, 6, 7, 8])("sync %i equals upstream's expected input", (step) => {
    expect(sortRestoreLikeUpstream(restore(step))).toBe(sortRestoreLikeUpstream(expected(step)));
  });

  test("-X comes after the service rules and before the NodePort rule, as kube-proxy writes it", () => {
    const lines = restore(3).split("\n");
    const x = lines.indexOf("-X KUBE-SEP-UHEGFW77JX3KXTOV");
    const nodeports = lines.findIndex((l) => l.includes("kubernetes service nodeports;"));
    expect(x).toBeGreaterThan(0);
    expect(nodeports).toBeGreaterThan(x);
    expect(syncs[2]?.families[0]?.deletedChains).toEqual([
      "KUBE-SEP-UHEGFW77JX3KXTOV",
      "KUBE-SVC-2VJB64SDSIJUP5T6",
    ]);
  });

  test("the canary first, then the built-in jumps on the full sync only", () => {
    const first = syncs[0]?.families[0]?.commands ?? [];
    expect(first.slice(0, 3)).toEqual([
      { kind: "ensure-chain", table: "mangle", chain: "KUBE-PROXY-CANARY" },
      { kind: "ensure-chain", table: "nat", chain: "KUBE-PROXY-CANARY" },
      { kind: "ensure-chain", table: "filter", chain: "KUBE-PROXY-CANARY" },
    ]);
    expect(first.filter((c) => c.kind === "prepend-rule")).toHaveLength(14);
    expect(syncs[1]?.families[0]?.commands).toEqual([]);
  });
});
