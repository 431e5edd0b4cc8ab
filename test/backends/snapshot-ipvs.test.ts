/**
 * `snapshot diff` in IPVS mode. This kernel has no IPVS, so the IPVS table of each snapshot is
 * our own rendered `ipvsadm-save -n` text for examples/nodeport-loadbalancer, written into the
 * snapshot directory, plus one perturbation per case (a removed real server, a real server for
 * an endpoint the API does not have, a removed virtual server, another scheduler). The IPVS
 * mode's iptables rules cannot load here either (`-m ipvs` needs the IPVS module), so
 * iptables-save.txt is our rendered text too. The ipsets are the kernel's: kube-proxy's sets
 * are loaded with `ipset restore` into a scratch namespace and collected from it
 * (`snapshot collect --netns`), so the ipset part compares against real `ipset save` output;
 * one case changes a set there with `ipset` itself. kube-ipvs0 is a real dummy interface in that
 * namespace (a bridge: this kernel has no dummy driver) holding the rendered addresses (collected
 * with `ip -j addr`); one case removes one
 * address and adds another with `ip`.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect } from "@jest/globals";
import type { SnapshotDiff } from "../../src/backends/snapshot/diff.js";
import { withNetns, type Netns } from "../../src/backends/netns.js";
import { runCli } from "../../src/cli/program.js";
import { loadCluster } from "../../src/model/load-files.js";
import { parseNodeEnvironment } from "../../src/model/load-node-environment.js";
import { parseProxyConfig } from "../../src/model/load-proxy-config.js";
import { renderIpvs } from "../../src/proxiers/ipvs/index.js";
import { kernelSkipReason } from "../../src/backends/netns.js";
import { kernelRulesOnly, kernelTest } from "../helpers/kernel.js";

// Rules only: restores, collections and diffs in its own namespaces, nothing timed.
kernelRulesOnly();

const DIR = new URL("../../examples/nodeport-loadbalancer/", import.meta.url).pathname;
const NEEDS = ["root", "ip", "ipset"] as const;

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

const PROXY_TEXT = readFileSync(join(DIR, "proxy.yaml"), "utf8").replace(
  "mode: iptables",
  "mode: ipvs",
);
const rendered = renderIpvs(loadCluster([join(DIR, "cluster.yaml")]), {
  proxyConfig: parseProxyConfig(PROXY_TEXT, "proxy.yaml"),
  node: parseNodeEnvironment(readFileSync(join(DIR, "node.yaml"), "utf8"), "node.yaml"),
});

let tmp = "";
let proxy = "";

/** Collects a namespace holding kube-proxy's IPVS-mode ipsets, after `change`; adds the rules. */
async function collect(out: string, change: (ns: Netns) => void = () => {}): Promise<void> {
  await withNetns(1, async ([ns]) => {
    ns!.exec("ipset", ["restore"], rendered.ipset);
    ns!.exec("ip", ["link", "add", "eth0", "type", "bridge"]);
    ns!.exec("ip", ["addr", "add", "192.168.10.11/24", "dev", "eth0"]);
    // kube-proxy's dummy interface with every service address it binds, laid by `ip` itself
    // (this kernel has no dummy driver: a bridge holds the addresses as well, and only the
    // addresses are compared).
    ns!.exec("ip", ["link", "add", "kube-ipvs0", "type", "bridge"]);
    for (const a of rendered.addresses) ns!.exec("ip", ["addr", "add", a, "dev", "kube-ipvs0"]);
    change(ns!);
    const r = await cli(["snapshot", "collect", "--out", out, "--netns", ns!.name]);
    expect(r.code).toBe(0);
  });
  writeFileSync(join(out, "iptables-save.txt"), rendered.state.families[0]!.iptablesWithJumps);
}

const clean = (): string => join(tmp, "clean");

/** Diffs a copy of the clean snapshot whose ipvsadm-save.txt is `ipvs` (undefined: none). */
async function diffWithIpvs(
  ipvs: string | undefined,
  base = clean(),
): Promise<{ code: number; diff: SnapshotDiff; text: string }> {
  const dir = mkdtempSync(join(tmp, "case-"));
  cpSync(base, dir, { recursive: true });
  if (ipvs !== undefined) writeFileSync(join(dir, "ipvsadm-save.txt"), ipvs);
  else rmSync(join(dir, "ipvsadm-save.txt"), { force: true });
  const args = ["snapshot", "diff", dir, "-f", join(DIR, "cluster.yaml")];
  const opts = ["--proxy-config", proxy, "--node", "node-1"];
  const json = await cli([...args, ...opts, "-o", "json"]);
  const text = await cli([...args, ...opts]);
  expect(text.code).toBe(json.code);
  return { code: json.code, diff: JSON.parse(json.out) as SnapshotDiff, text: text.out };
}

const lines = rendered.ipvs.split("\n").filter((l) => l !== "");
const without = (...drop: string[]): string =>
  `${lines.filter((l) => !drop.includes(l)).join("\n")}\n`;

describe("snapshot diff, IPVS mode", () => {
  const canRun = kernelSkipReason([...NEEDS]) === undefined;
  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), "kns-snapshot-ipvs-"));
    proxy = join(tmp, "proxy.yaml");
    writeFileSync(proxy, PROXY_TEXT);
    if (canRun) await collect(clean());
  }, 60_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  kernelTest("the state kube-proxy would write is in sync", [...NEEDS], async () => {
    // The rendered table has the lines this file perturbs below.
    expect(lines).toEqual(
      expect.arrayContaining([
        "-A -t 10.96.100.10:80 -s rr",
        "-a -t 10.96.100.10:80 -r 10.244.2.5:8080 -m -w 1",
        "-A -t 192.168.10.11:30443 -s rr",
        "-a -t 192.168.10.11:30443 -r 10.244.2.6:8443 -m -w 1",
      ]),
    );
    const r = await diffWithIpvs(rendered.ipvs);
    expect(r.diff.drifts).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.text.trim().split("\n").at(-1)).toMatch(/^in sync: 2 service ports/);
  });

  kernelTest("a removed real server: missing-real-server", [...NEEDS], async () => {
    const r = await diffWithIpvs(without("-a -t 10.96.100.10:80 -r 10.244.2.5:8080 -m -w 1"));
    expect(r.code).toBe(1);
    expect(r.diff.drifts).toEqual([
      {
        servicePort: "shop/web:http",
        kind: "missing-real-server",
        family: "IPv4",
        table: "ipvs",
        chain: "-t 10.96.100.10:80",
        element: "10.244.2.5:8080",
        rule: "-a -t 10.96.100.10:80 -r 10.244.2.5:8080 -m -w 1",
        message: "-t 10.96.100.10:80: missing real server 10.244.2.5:8080",
      },
    ]);
    expect(r.text).toContain("shop/web:http:\n  missing-real-server: -t 10.96.100.10:80");
  });

  kernelTest("a real server the API does not have: stale-endpoint", [...NEEDS], async () => {
    const r = await diffWithIpvs(
      `${rendered.ipvs}-a -t 10.96.100.10:80 -r 10.244.1.99:8080 -m -w 1\n`,
    );
    expect(r.code).toBe(1);
    expect(r.diff.drifts).toHaveLength(1);
    expect(r.diff.drifts[0]).toMatchObject({
      servicePort: "shop/web:http",
      kind: "stale-endpoint",
      endpoint: "10.244.1.99:8080",
    });
    expect(r.diff.drifts[0]!.message).toContain("not in the API");
  });

  kernelTest("a removed virtual server: missing-virtual-server", [...NEEDS], async () => {
    const r = await diffWithIpvs(
      without(
        "-A -t 192.168.10.11:30443 -s rr",
        "-a -t 192.168.10.11:30443 -r 10.244.2.6:8443 -m -w 1",
      ),
    );
    expect(r.code).toBe(1);
    expect(r.diff.drifts.map((d) => [d.servicePort, d.kind, d.chain])).toEqual([
      ["shop/checkout:https", "missing-virtual-server", "-t 192.168.10.11:30443"],
    ]);
  });

  kernelTest("another scheduler: virtual-server-differs", [...NEEDS], async () => {
    const r = await diffWithIpvs(
      rendered.ipvs.replace("-A -t 10.96.100.10:80 -s rr", "-A -t 10.96.100.10:80 -s lc"),
    );
    expect(r.code).toBe(1);
    expect(r.diff.drifts.map((d) => [d.servicePort, d.kind, d.message])).toEqual([
      [
        "shop/web:http",
        "virtual-server-differs",
        "virtual server differs: expected -A -t 10.96.100.10:80 -s rr, node has -A -t 10.96.100.10:80 -s lc",
      ],
    ]);
  });

  kernelTest("no IPVS table on the node: every virtual server is missing", [...NEEDS], async () => {
    const r = await diffWithIpvs(undefined);
    expect(r.code).toBe(1);
    const vs = lines.filter((l) => l.startsWith("-A "));
    expect(vs.length).toBeGreaterThan(0);
    expect(r.diff.drifts.map((d) => d.rule).sort()).toEqual([...vs].sort());
    expect(new Set(r.diff.drifts.map((d) => d.kind))).toEqual(new Set(["missing-virtual-server"]));
  });

  kernelTest(
    "ipset entries changed on the kernel: missing-element and extra-element",
    [...NEEDS],
    async () => {
      const changed = join(tmp, "ipset-changed");
      await collect(changed, (ns) => {
        ns.exec("ipset", ["del", "KUBE-CLUSTER-IP", "10.96.100.10,tcp:80"]);
        ns.exec("ipset", ["add", "KUBE-CLUSTER-IP", "10.96.1.1,tcp:80"]);
      });
      const r = await diffWithIpvs(rendered.ipvs, changed);
      expect(r.code).toBe(1);
      expect(
        r.diff.drifts.map((d) => [d.servicePort, d.kind, d.table, d.chain, d.element]),
      ).toEqual([
        ["shop/web:http", "missing-element", "ipset", "KUBE-CLUSTER-IP", "10.96.100.10,tcp:80"],
        [undefined, "extra-element", "ipset", "KUBE-CLUSTER-IP", "10.96.1.1,tcp:80"],
      ]);
    },
  );

  kernelTest(
    "kube-ipvs0 without a service address, and with one no service has: missing-address and extra-address",
    [...NEEDS],
    async () => {
      expect(rendered.addresses).toContain("10.96.100.10/32");
      const changed = join(tmp, "addresses-changed");
      await collect(changed, (ns) => {
        ns.exec("ip", ["addr", "del", "10.96.100.10/32", "dev", "kube-ipvs0"]);
        ns.exec("ip", ["addr", "add", "10.96.7.7/32", "dev", "kube-ipvs0"]);
      });
      const r = await diffWithIpvs(rendered.ipvs, changed);
      expect(r.code).toBe(1);
      expect(r.diff.drifts).toEqual([
        {
          kind: "missing-address",
          family: "IPv4",
          table: "interface",
          chain: "kube-ipvs0",
          element: "10.96.100.10/32",
          message: "kube-ipvs0: missing address 10.96.100.10/32 (shop/web)",
        },
        {
          kind: "extra-address",
          family: "IPv4",
          table: "interface",
          chain: "kube-ipvs0",
          element: "10.96.7.7/32",
          message: "kube-ipvs0: address kube-proxy would unbind: 10.96.7.7/32",
        },
      ]);
      expect(r.text).toContain(
        "(no service port):\n  missing-address: kube-ipvs0: missing address 10.96.100.10/32 (shop/web)\n",
      );
    },
  );
});
