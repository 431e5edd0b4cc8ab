/**
 * The real kernel as oracle. For random clusters (SCTP included), in a scratch namespace, do
 * what kube-proxy does on a clean host: create each jump target and `-I` each built-in jump
 * (spec §2.2), then `iptables-restore --noflush` the rendered input. It must load, and
 * `iptables-save` must print exactly `renderIptables(...).save`.
 */
import { describe, expect } from "@jest/globals";
import { fc } from "@fast-check/jest";
import type { Netns } from "../../../src/backends/netns.js";
import { withNetns } from "../../../src/backends/netns.js";
import type { NodeEnvironment } from "../../../src/model/node-environment.js";
import { ENSURED_JUMPS } from "../../../src/proxiers/iptables/builtin-jumps.js";
import { renderIptables } from "../../../src/proxiers/iptables/render-iptables.js";
import { kubeCluster } from "../../../src/testing/arbitraries/kubeCluster.js";
import { kernelRulesOnly, kernelTest } from "../../helpers/kernel.js";
import { okOutput, runBatch, type BatchStep } from "../../helpers/netns-batch.js";
import { argv, FAKE_CONFIG, FAKE_NODE, withoutSaveComments } from "./helpers.js";

// Rules only: loads, checks and listings in its own namespaces, nothing timed.
kernelRulesOnly();

/**
 * Each restore applied as kube-proxy applies it on a clean host (the tables emptied first), then
 * `iptables-save` (ip6tables for v6): the saved texts, in order. All of it from one process
 * (runBatch), each command its own process as before.
 */
function applyLikeKubeProxy(ns: Netns, v6: boolean, restores: readonly string[]): string[] {
  const bin = v6 ? "ip6tables" : "iptables";
  const items = restores.map((restore) => {
    const steps: { step: BatchStep; mustSucceed: boolean }[] = [];
    for (const table of ["filter", "nat"])
      for (const op of ["-F", "-X"])
        steps.push({ step: { cmd: bin, args: ["-w", "-t", table, op] }, mustSucceed: true });
    for (const j of ENSURED_JUMPS) {
      // EnsureChain: create if missing (an existing chain is fine).
      steps.push({
        step: { cmd: bin, args: ["-w", "-t", j.table, "-N", j.target] },
        mustSucceed: false,
      });
      steps.push({
        step: { cmd: bin, args: ["-w", "-t", j.table, "-I", j.chain, ...argv(j.rule)] },
        mustSucceed: true,
      });
    }
    steps.push({
      step: { cmd: `${bin}-restore`, args: ["-w", "--noflush", "--counters"], input: restore },
      mustSucceed: true,
    });
    steps.push({ step: { cmd: `${bin}-save`, args: [] }, mustSucceed: true });
    return steps;
  });
  const results = runBatch(
    ns,
    items.map((steps) => steps.map((s) => s.step)),
  );
  return items.map((steps, i) => {
    let saved = "";
    steps.forEach(({ step, mustSucceed }, k) => {
      if (mustSucceed) saved = okOutput(step, results[i]?.[k]);
    });
    return saved;
  });
}

// No nfacct objects exist in a scratch namespace; everything else is the upstream fake node.
const NODE: NodeEnvironment = {
  ...FAKE_NODE,
  kernel: { ...FAKE_NODE.kernel, nfacct: [], iptablesRandomFully: true },
};

describe("kernel: rendered rules load and read back as `save`", () => {
  kernelTest("kns-kp: random IPv4 clusters", ["root", "ip", "iptables"], async () => {
    const samples = fc.sample(kubeCluster({ minServices: 2, maxServices: 8 }), {
      numRuns: 6,
      seed: 4242,
    });
    await withNetns(
      1,
      ([ns]) => {
        const rendered = samples.map((g) =>
          renderIptables(g.cluster, { node: NODE, proxyConfig: FAKE_CONFIG }),
        );
        expect(rendered.length).toBeGreaterThan(0);
        const saved = applyLikeKubeProxy(
          ns!,
          false,
          rendered.map((r) => r.restore),
        );
        rendered.forEach((r, i) => expect(withoutSaveComments(saved[i] ?? "")).toBe(r.save));
      },
      "kns-kp",
    );
  });

  kernelTest(
    "kns-kp: IPv6 and the mark/random-fully variants",
    ["root", "ip", "iptables", "ip6tables"],
    async () => {
      const v6Node: NodeEnvironment = { ...NODE, ipFamilies: ["IPv6"], nodeIPs: ["2001:db8::1"] };
      const g = fc.sample(kubeCluster({ minServices: 2, maxServices: 2 }), {
        numRuns: 1,
        seed: 7,
      })[0]!;
      // Move the generated IPv4 cluster to IPv6 by text substitution of its address pools.
      const v6Cluster = JSON.parse(
        JSON.stringify(g.cluster)
          .replace(/"IPv4"/g, '"IPv6"')
          .replace(/172\.30\.(\d+)\.(\d+)/g, "fd00:172:30::$1:$2")
          .replace(/10\.(\d+)\.(\d+)\.(\d+)/g, "fd00:10:$1::$2:$3")
          .replace(/192\.168\.99\.(\d+)/g, "2001:db8:99::$1")
          .replace(/5\.6\.(\d+)\.(\d+)/g, "2001:db8:5::$1:$2")
          .replace(/203\.0\.113\.0\/25/g, "2001:db8:113::/64")
          .replace(/192\.168\.0\.0\/24/g, "2001:db8::/64"),
      ) as typeof g.cluster;
      await withNetns(
        1,
        ([ns]) => {
          const r = renderIptables(v6Cluster, {
            node: v6Node,
            proxyConfig: FAKE_CONFIG,
            masqueradeMarkFormat: "padded",
          });
          expect(r.restore).toContain("fd00:");
          const [saved] = applyLikeKubeProxy(ns!, true, [r.restore]);
          expect(withoutSaveComments(saved ?? "")).toBe(r.save);
        },
        "kns-kp",
      );
    },
  );
});
