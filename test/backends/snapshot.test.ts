/**
 * `snapshot collect` → `snapshot diff` round trip on the kernel: kube-proxy's rendered rules
 * for examples/nodeport-loadbalancer are loaded into a scratch namespace, collected from it
 * (`--netns`), and diffed against the same manifests: in sync. Then one change each, made
 * with iptables itself, is reported precisely: a removed endpoint rule, an added stale
 * endpoint, a deleted service chain, and a rule of other software (counted, not judged).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import type { SnapshotDiff } from "../../src/backends/snapshot/diff.js";
import { withNetns, type Netns } from "../../src/backends/netns.js";
import { runCli } from "../../src/cli/program.js";
import { kernelRulesOnly, kernelTest } from "../helpers/kernel.js";

// Rules only: restores, collections and diffs in its own namespaces, nothing timed.
kernelRulesOnly();

const DIR = new URL("../../examples/nodeport-loadbalancer/", import.meta.url).pathname;
const MANIFESTS = ["-f", join(DIR, "cluster.yaml"), "--proxy-config", join(DIR, "proxy.yaml")];

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

/** A namespace holding node-1's kube-proxy rules (and eth0 with its address), then `change`. */
async function diffAfter(
  change: (ns: Netns) => void,
  withSnapshot?: (dir: string) => Promise<void>,
): Promise<{ code: number; diff: SnapshotDiff; text: string }> {
  return withNetns(1, async ([ns]) => {
    const rendered = await cli([
      "render",
      "iptables",
      ...MANIFESTS,
      "--node-env",
      join(DIR, "node.yaml"),
      "--format",
      "save",
    ]);
    expect(rendered.code).toBe(0);
    ns!.exec("iptables-restore", ["-w"], rendered.out);
    ns!.exec("ip", ["link", "add", "eth0", "type", "bridge"]);
    ns!.exec("ip", ["addr", "add", "192.168.10.11/24", "dev", "eth0"]);
    change(ns!);
    const out = mkdtempSync(join(tmpdir(), "kns-snapshot-"));
    try {
      const collected = await cli(["snapshot", "collect", "--out", out, "--netns", ns!.name]);
      expect(collected.code).toBe(0);
      const json = await cli([
        "snapshot",
        "diff",
        out,
        ...MANIFESTS,
        "--node",
        "node-1",
        "-o",
        "json",
      ]);
      const text = await cli(["snapshot", "diff", out, ...MANIFESTS, "--node", "node-1"]);
      expect(text.code).toBe(json.code);
      if (withSnapshot !== undefined) await withSnapshot(out);
      return { code: json.code, diff: JSON.parse(json.out) as SnapshotDiff, text: text.out };
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
}

/** The nat rules of the namespace, `iptables -S` form. */
function natRules(ns: Netns): string[] {
  return ns.exec("iptables", ["-w", "-t", "nat", "-S"]).split("\n");
}

const NEEDS = ["root", "ip", "iptables"] as const;

describe("snapshot collect → diff", () => {
  kernelTest("the rules kube-proxy would write are in sync", [...NEEDS], async () => {
    let traced: { outcomes: { destination?: string; probability: number }[] } | undefined;
    const r = await diffAfter(
      () => {},
      async (dir) => {
        const t = await cli([
          "trace",
          "--snapshot",
          dir,
          "--proto",
          "tcp",
          "--src",
          "192.168.10.200",
          "--dst",
          "192.168.10.11",
          "--dport",
          "30080",
          "-o",
          "json",
        ]);
        expect(t.code).toBe(0);
        traced = JSON.parse(t.out) as typeof traced;
      },
    );
    // trace --snapshot: the NodePort on the snapshot's eth0 address, over the node's own rules.
    expect(traced?.outcomes.map((o) => [o.destination, o.probability])).toEqual([
      ["10.244.1.5:8080", 0.5],
      ["10.244.2.5:8080", 0.5],
    ]);
    expect(r.code).toBe(0);
    expect(r.diff.inSync).toBe(true);
    expect(r.diff.drifts).toEqual([]);
    expect(r.diff.servicePorts).toBe(2);
    expect(r.text.trim().split("\n").at(-1)).toMatch(/^in sync: 2 service ports/);
  });

  kernelTest(
    "a removed endpoint rule: missing-rule in the service chain of shop/web:http",
    [...NEEDS],
    async () => {
      let removed = "";
      const r = await diffAfter((ns) => {
        removed = natRules(ns).find(
          (l) => l.includes("shop/web:http -> 10.244.2.5:8080") && l.startsWith("-A KUBE-SVC-"),
        )!;
        expect(removed).toBeDefined();
        ns.exec("iptables", [
          "-w",
          "-t",
          "nat",
          ...removed
            .replace(/^-A /, "-D ")
            .match(/"[^"]*"|\S+/g)!
            .map((t) => t.replace(/^"|"$/g, "")),
        ]);
      });
      expect(r.code).toBe(1);
      expect(r.diff.drifts).toHaveLength(1);
      const d = r.diff.drifts[0]!;
      expect(d).toMatchObject({
        servicePort: "shop/web:http",
        kind: "missing-rule",
        table: "nat",
        chain: removed.split(" ")[1],
      });
      expect(d.rule).toContain("-j KUBE-SEP-");
      expect(r.text).toContain("shop/web:http:\n  missing-rule: nat/KUBE-SVC-");
    },
  );

  kernelTest("an added stale endpoint: stale-endpoint, not in the API", [...NEEDS], async () => {
    const r = await diffAfter((ns) => {
      const svc = natRules(ns)
        .find(
          (l) => l.includes("shop/web:http -> 10.244.1.5:8080") && l.startsWith("-A KUBE-SVC-"),
        )!
        .split(" ")[1]!;
      const run = (...args: string[]) => ns.exec("iptables", ["-w", "-t", "nat", ...args]);
      run("-N", "KUBE-SEP-STALESTALESTALE1");
      run(
        "-A",
        "KUBE-SEP-STALESTALESTALE1",
        "-p",
        "tcp",
        "-m",
        "comment",
        "--comment",
        "shop/web:http",
        "-m",
        "tcp",
        "-j",
        "DNAT",
        "--to-destination",
        "10.244.1.99:8080",
      );
      run(
        "-I",
        svc,
        "1",
        "-m",
        "comment",
        "--comment",
        "shop/web:http -> 10.244.1.99:8080",
        "-j",
        "KUBE-SEP-STALESTALESTALE1",
      );
    });
    expect(r.code).toBe(1);
    const kinds = r.diff.drifts.map((d) => `${d.servicePort} ${d.kind} ${d.chain}`).sort();
    expect(kinds).toEqual([
      expect.stringMatching(/^shop\/web:http stale-endpoint KUBE-SEP-STALESTALESTALE1$/),
      expect.stringMatching(/^shop\/web:http unexpected-rule KUBE-SVC-/),
    ]);
    const stale = r.diff.drifts.find((d) => d.kind === "stale-endpoint")!;
    expect(stale.endpoint).toBe("10.244.1.99:8080");
    expect(stale.message).toContain("not in the API");
  });

  kernelTest("a deleted service chain: missing-chain and the jumps to it", [...NEEDS], async () => {
    let chain = "";
    const r = await diffAfter((ns) => {
      const rules = natRules(ns);
      chain = rules
        .find((l) => l.includes("shop/checkout:https") && l.startsWith("-A KUBE-SVC-"))!
        .split(" ")[1]!;
      for (const l of rules.filter((x) => x.startsWith("-A ") && x.includes(`-j ${chain}`)))
        ns.exec("iptables", [
          "-w",
          "-t",
          "nat",
          ...l
            .replace(/^-A /, "-D ")
            .match(/"[^"]*"|\S+/g)!
            .map((t) => t.replace(/^"|"$/g, "")),
        ]);
      ns.exec("iptables", ["-w", "-t", "nat", "-F", chain]);
      ns.exec("iptables", ["-w", "-t", "nat", "-X", chain]);
    });
    expect(r.code).toBe(1);
    const missing = r.diff.drifts.filter((d) => d.kind === "missing-chain");
    expect(missing).toEqual([
      expect.objectContaining({ servicePort: "shop/checkout:https", table: "nat", chain }),
    ]);
    // Every other drift is a missing jump to that chain; nothing else is reported.
    for (const d of r.diff.drifts.filter((x) => x.kind !== "missing-chain")) {
      expect(d.kind).toBe("missing-rule");
      expect(d.rule).toContain(`-j ${chain}`);
    }
    expect(r.diff.drifts.length).toBeGreaterThan(1);
  });

  kernelTest("rules of other software are counted, not judged", [...NEEDS], async () => {
    const r = await diffAfter((ns) => {
      ns.exec("iptables", ["-w", "-t", "filter", "-N", "CNI-FORWARD"]);
      ns.exec("iptables", [
        "-w",
        "-t",
        "filter",
        "-A",
        "CNI-FORWARD",
        "-s",
        "10.0.0.0/8",
        "-j",
        "ACCEPT",
      ]);
      ns.exec("iptables", ["-w", "-t", "filter", "-A", "FORWARD", "-j", "CNI-FORWARD"]);
    });
    expect(r.code).toBe(0);
    expect(r.diff.foreign).toEqual({ rules: 2, chains: ["filter/CNI-FORWARD", "filter/FORWARD"] });
    expect(r.text).toContain("other software: 2 rules in filter/CNI-FORWARD, filter/FORWARD");
  });
});

describe("snapshot diff: bad input", () => {
  it("a directory that is not a snapshot is a one-line error, exit 2", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kns-notsnap-"));
    try {
      const r = await cli(["snapshot", "diff", dir, ...MANIFESTS]);
      expect(r.code).toBe(2);
      expect(r.err).toBe(
        `kube-netsim: ${dir}: no manifest.json (not a directory written by \`kube-netsim snapshot collect\`)\n`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
