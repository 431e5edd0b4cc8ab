/**
 * `snapshot diff` in nftables mode on the kernel: the table kube-proxy's nftables proxier would
 * write for examples/nodeport-loadbalancer is loaded with `nft -f` into a scratch namespace,
 * collected from it (`snapshot collect --netns`, so the diff reads the kernel's own
 * `nft list ruleset`), and diffed against the same manifests: in sync. Then one change each,
 * made with nft itself, is reported precisely: a removed map element, an added stale endpoint
 * chain, a deleted service chain, a base chain's policy and another's priority, another table
 * (counted, not judged).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect } from "@jest/globals";
import type { SnapshotDiff } from "../../src/backends/snapshot/diff.js";
import { withNetns, type Netns } from "../../src/backends/netns.js";
import { runCli } from "../../src/cli/program.js";
import { kernelRulesOnly, kernelTest } from "../helpers/kernel.js";

// Rules only: restores, collections and diffs in its own namespaces, nothing timed.
kernelRulesOnly();

const DIR = new URL("../../examples/nodeport-loadbalancer/", import.meta.url).pathname;

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

/** A namespace holding node-1's kube-proxy nftables table (and eth0), then `change`. */
async function diffAfter(
  change: (ns: Netns) => void,
): Promise<{ code: number; diff: SnapshotDiff; text: string }> {
  const tmp = mkdtempSync(join(tmpdir(), "kns-snapshot-nft-"));
  try {
    const proxy = join(tmp, "proxy.yaml");
    writeFileSync(
      proxy,
      readFileSync(join(DIR, "proxy.yaml"), "utf8").replace("mode: iptables", "mode: nftables"),
    );
    const manifests = ["-f", join(DIR, "cluster.yaml"), "--proxy-config", proxy];
    return await withNetns(1, async ([ns]) => {
      const rendered = await cli([
        "render",
        "nftables",
        ...manifests,
        "--node-env",
        join(DIR, "node.yaml"),
      ]);
      expect(rendered.code).toBe(0);
      ns!.exec("nft", ["-f", "-"], rendered.out);
      ns!.exec("ip", ["link", "add", "eth0", "type", "bridge"]);
      ns!.exec("ip", ["addr", "add", "192.168.10.11/24", "dev", "eth0"]);
      change(ns!);
      const out = join(tmp, "snapshot");
      const collected = await cli(["snapshot", "collect", "--out", out, "--netns", ns!.name]);
      expect(collected.code).toBe(0);
      const diff = ["snapshot", "diff", out, ...manifests, "--node", "node-1"];
      const json = await cli([...diff, "-o", "json"]);
      const text = await cli(diff);
      expect(text.code).toBe(json.code);
      return { code: json.code, diff: JSON.parse(json.out) as SnapshotDiff, text: text.out };
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const NEEDS = ["root", "ip"] as const;
const WEB_CHAIN = "service-KHN6ECMT-shop/web/tcp/http";
const CHECKOUT_CHAIN = "service-2FHNLMWZ-shop/checkout/tcp/https";

/** Runs nft inside the namespace. */
function nft(ns: Netns, ...args: string[]): void {
  ns.exec("nft", args);
}

describe("snapshot diff, nftables mode (kernel)", () => {
  kernelTest("the table kube-proxy would write is in sync", [...NEEDS], async () => {
    const r = await diffAfter(() => {});
    expect(r.diff.drifts).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.diff.servicePorts).toBe(2);
    expect(r.text.trim().split("\n").at(-1)).toMatch(/^in sync: 2 service ports; 0 rules/);
  });

  kernelTest("a removed map element: missing-element for shop/web:http", [...NEEDS], async () => {
    const r = await diffAfter((ns) =>
      nft(
        ns,
        "delete",
        "element",
        "ip",
        "kube-proxy",
        "service-ips",
        "{ 10.96.100.10 . tcp . 80 }",
      ),
    );
    expect(r.code).toBe(1);
    expect(r.diff.drifts).toEqual([
      {
        servicePort: "shop/web:http",
        kind: "missing-element",
        family: "IPv4",
        table: "ip kube-proxy",
        chain: "service-ips",
        element: `10.96.100.10 . tcp . 80 : goto ${WEB_CHAIN}`,
        message: `map ip kube-proxy/service-ips: missing element 10.96.100.10 . tcp . 80 : goto ${WEB_CHAIN}`,
      },
    ]);
    expect(r.text).toContain("shop/web:http:\n  missing-element: map ip kube-proxy/service-ips");
  });

  kernelTest("an added endpoint chain: stale-endpoint, not in the API", [...NEEDS], async () => {
    const stale = "endpoint-STALE001-shop/web/tcp/http__10.244.1.99/8080";
    const r = await diffAfter((ns) => {
      nft(ns, "add", "chain", "ip", "kube-proxy", stale);
      nft(
        ns,
        "add",
        "rule",
        "ip",
        "kube-proxy",
        stale,
        "ip saddr 10.244.1.99 jump mark-for-masquerade",
      );
    });
    expect(r.code).toBe(1);
    expect(r.diff.drifts).toHaveLength(1);
    expect(r.diff.drifts[0]).toMatchObject({
      servicePort: "shop/web:http",
      kind: "stale-endpoint",
      chain: stale,
      endpoint: "10.244.1.99:8080",
    });
    expect(r.diff.drifts[0]!.message).toContain("not in the API");
  });

  kernelTest(
    "a deleted service chain (and what referred to it): missing-chain, missing-element, missing-rule",
    [...NEEDS],
    async () => {
      const r = await diffAfter((ns) => {
        // The kernel refuses to delete a chain something still jumps to: remove those first.
        nft(
          ns,
          "delete",
          "element",
          "ip",
          "kube-proxy",
          "service-ips",
          "{ 10.96.100.20 . tcp . 443 }",
        );
        nft(ns, "flush", "chain", "ip", "kube-proxy", "external-2FHNLMWZ-shop/checkout/tcp/https");
        nft(ns, "delete", "chain", "ip", "kube-proxy", CHECKOUT_CHAIN);
      });
      expect(r.code).toBe(1);
      const got = r.diff.drifts.map((d) => `${d.servicePort} ${d.kind} ${d.chain}`).sort();
      expect(got).toEqual(
        [
          `shop/checkout:https missing-chain ${CHECKOUT_CHAIN}`,
          "shop/checkout:https missing-element service-ips",
          ...Array.from(
            { length: r.diff.drifts.filter((d) => d.kind === "missing-rule").length },
            () => "shop/checkout:https missing-rule external-2FHNLMWZ-shop/checkout/tcp/https",
          ),
        ].sort(),
      );
      expect(r.diff.drifts.some((d) => d.kind === "missing-rule")).toBe(true);
    },
  );

  kernelTest(
    "a base chain with a drop policy, and one re-hooked at another priority: chain-differs",
    [...NEEDS],
    async () => {
      const r = await diffAfter((ns) => {
        nft(ns, "chain", "ip", "kube-proxy", "filter-forward", "{ policy drop ; }");
        // A base chain's priority cannot be changed in place: made again with its one rule.
        const chain = "filter-prerouting-pre-dnat";
        nft(ns, "flush", "chain", "ip", "kube-proxy", chain);
        nft(ns, "delete", "chain", "ip", "kube-proxy", chain);
        nft(
          ns,
          "add",
          "chain",
          "ip",
          "kube-proxy",
          chain,
          "{ type filter hook prerouting priority -200 ; }",
        );
        nft(ns, "add", "rule", "ip", "kube-proxy", chain, "ct state new jump firewall-check");
      });
      expect(r.code).toBe(1);
      expect(r.diff.drifts.map((d) => [d.kind, d.chain, d.message])).toEqual([
        [
          "chain-differs",
          "filter-forward",
          "ip kube-proxy/filter-forward: chain differs: expected type filter hook forward priority filter; policy accept, node has type filter hook forward priority filter; policy drop",
        ],
        [
          "chain-differs",
          "filter-prerouting-pre-dnat",
          "ip kube-proxy/filter-prerouting-pre-dnat: chain differs: expected type filter hook prerouting priority dstnat - 10; policy accept, node has type filter hook prerouting priority -200; policy accept",
        ],
      ]);
    },
  );

  kernelTest("another table is counted, not judged", [...NEEDS], async () => {
    const r = await diffAfter((ns) => {
      nft(ns, "add", "table", "inet", "other");
      nft(ns, "add", "chain", "inet", "other", "input", "{ type filter hook input priority 0 ; }");
      nft(ns, "add", "rule", "inet", "other", "input", "tcp dport 22 accept");
    });
    expect(r.code).toBe(0);
    expect(r.diff.foreign).toEqual({ rules: 1, chains: ["table inet other"] });
  });
});
