/**
 * `verify` without the kernel: the simulator backend on an example (every probe agrees), the
 * probes TSV and its errors, usage errors, and a backend that observes something the simulator
 * never predicts (every probe disagrees; the library counts it, the text table shows it).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "@jest/globals";
import type { Backend, Scenario } from "../../src/backends/backend.js";
import { autoProbes } from "../../src/backends/auto-probes.js";
import { scenarioOfCluster } from "../../src/backends/scenario-of-cluster.js";
import { verifyProbes } from "../../src/backends/verify.js";
import { formatVerifyText } from "../../src/cli/commands/verify.js";
import { runCli } from "../../src/cli/program.js";
import { loadCluster } from "../../src/model/load-files.js";
import { parseNodeEnvironment } from "../../src/model/load-node-environment.js";
import { parseProxyConfig } from "../../src/model/load-proxy-config.js";
import { readFileSync } from "node:fs";

const DIR = new URL("../../examples/nodeport-loadbalancer/", import.meta.url).pathname;
const ARGS = [
  "-f",
  join(DIR, "cluster.yaml"),
  "--node-env",
  join(DIR, "node.yaml"),
  "--proxy-config",
  join(DIR, "proxy.yaml"),
];
const tmp = mkdtempSync(join(tmpdir(), "kns-verify-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

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

function tsv(name: string, text: string): string {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
}

describe("verify --backend simulator", () => {
  it("--auto: every service port from a pod, the node and outside, every NodePort", async () => {
    const r = await cli(["verify", ...ARGS, "--auto"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const lines = r.out.trim().split("\n");
    expect(lines[0]).toMatch(/^#\s+protocol\s+from\s+to\s+predicted\s+observed\s+agreement$/);
    expect(lines.at(-1)).toBe("verify simulator: 17 probes, 17 agree, 0 disagree, 0 skipped");
    // The Local LoadBalancer has no endpoint on node-1: dropped from outside.
    expect(r.out).toMatch(/external\s+198\.51\.100\.20:443\s+dropped\s+dropped\s+agree/);
  });

  it("--probes FILE.tsv, JSON output", async () => {
    const file = tsv(
      "p.tsv",
      "protocol\tfrom\tto\tport\tsourcePort\ntcp\texternal\t192.168.10.11\t30080\t40001\n# a comment\ntcp\tshop/web-1\t10.96.100.20\t443\n",
    );
    const r = await cli(["verify", ...ARGS, "--probes", file, "-o", "json"]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as {
      summary: unknown;
      rows: { probe: unknown; agreement: string; outcomes: unknown[] }[];
    };
    expect(j.summary).toEqual({
      backend: "simulator",
      probes: 2,
      agreed: 2,
      disagreed: 0,
      skipped: 0,
    });
    expect(j.rows[0]!.probe).toEqual({
      protocol: "tcp",
      from: "external",
      to: "192.168.10.11",
      port: 30080,
      sourcePort: 40001,
    });
    expect(j.rows[0]!.outcomes).toHaveLength(2);
  });

  it.each([
    [
      "protocol\tfrom\tto\n",
      'p1.tsv:1: the header has no "port" column (need protocol, from, to, port)',
    ],
    [
      "protocol\tfrom\tto\tport\nicmp\tnode\t10.96.100.10\t80\n",
      'p2.tsv:2: protocol "icmp": expected tcp, udp or sctp',
    ],
    [
      "protocol\tfrom\tto\tport\ntcp\tnode\t10.96.100.10\t70000\n",
      'p3.tsv:2: port "70000" is not a port number (1-65535)',
    ],
  ])("a bad probes file is a one-line error, exit 2 (%#)", async (text, message) => {
    const name = message.split(":")[0]!;
    const file = tsv(name, text);
    const r = await cli(["verify", ...ARGS, "--probes", file]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`${join(tmp, message)}\n`);
  });

  it("a probe from a pod that is not on this node is a one-line error at its line", async () => {
    const file = tsv(
      "p4.tsv",
      "protocol\tfrom\tto\tport\n# a comment\ntcp\tnode\t10.96.100.10\t80\ntcp\tshop/web-2\t10.96.100.10\t80\n",
    );
    const r = await cli(["verify", ...ARGS, "--probes", file]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`${file}:4: probe from shop/web-2: no such pod on this node\n`);
  });

  it("--auto and --probes together, or neither: usage error", async () => {
    expect((await cli(["verify", ...ARGS])).err).toBe(
      "kube-netsim: give either --probes FILE.tsv or --auto (one of them)\n",
    );
    const file = tsv("p5.tsv", "protocol\tfrom\tto\tport\n");
    expect((await cli(["verify", ...ARGS, "--auto", "--probes", file])).code).toBe(2);
  });
});

describe("verifyProbes", () => {
  it("a backend that observes what the simulator never predicts disagrees on every probe", async () => {
    const cluster = loadCluster([join(DIR, "cluster.yaml")]);
    const node = parseNodeEnvironment(readFileSync(join(DIR, "node.yaml"), "utf8"), "node.yaml");
    const proxyConfig = parseProxyConfig(
      readFileSync(join(DIR, "proxy.yaml"), "utf8"),
      "proxy.yaml",
    );
    const scenario: Scenario = scenarioOfCluster(cluster, { node, proxyConfig });
    const probes = autoProbes(cluster, scenario, { proxyConfig }).filter(
      (p) => p.to === "10.96.100.10",
    );
    expect(probes).toHaveLength(3);
    let closed = 0;
    const wrong: Backend = {
      name: "wrong",
      capabilities: () => Promise.resolve([]),
      open: (s) => Promise.resolve({ backend: "wrong", id: "1", scenario: s }),
      probe: () =>
        Promise.resolve({ kind: "delivered", to: "10.244.9.9:8080", seenSource: "10.244.1.5" }),
      close: () => {
        closed++;
        return Promise.resolve();
      },
    };
    const r = await verifyProbes(wrong, scenario, probes);
    expect(r.summary).toEqual({ backend: "wrong", probes: 3, agreed: 0, disagreed: 3, skipped: 0 });
    expect(closed).toBe(1);
    expect(formatVerifyText(r).trim().split("\n").at(-1)).toBe(
      "verify wrong: 3 probes, 0 agree, 3 disagree, 0 skipped",
    );
  });
});
