/**
 * The netns backend against the simulator on this machine's kernel: `verify --auto` on every
 * example with a node environment agrees (SCTP and IPVS probes are skipped with the kernel's
 * reason, never counted as agreement), through both iptables variants; a scenario of 50 probes;
 * capabilities are detected.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "@jest/globals";
import { autoProbes } from "../../src/backends/auto-probes.js";
import {
  NO_IPVS,
  NO_PYTHON,
  NO_SCTP,
  detectCapabilities,
  netnsBackend,
  type IptablesVariant,
} from "../../src/backends/netns/backend.js";
import { liveNetns } from "../../src/backends/netns.js";
import { scenarioOfCluster } from "../../src/backends/scenario-of-cluster.js";
import { verifyProbes } from "../../src/backends/verify.js";
import { loadCluster } from "../../src/model/load-files.js";
import { readFileSync } from "node:fs";
import { parseNodeEnvironment } from "../../src/model/load-node-environment.js";
import { parseProxyConfig } from "../../src/model/load-proxy-config.js";
import { DEFAULT_PROXY_CONFIG } from "../../src/model/proxy-config.js";
import { kernelTest } from "../helpers/kernel.js";
import { makeCluster } from "../../src/model/cluster.js";
import { pod } from "../../src/testing/builders/pod.js";
import { service } from "../../src/testing/builders/service.js";
import { propertyNode } from "../../src/testing/conformance/fixture.js";

const EXAMPLES = new URL("../../examples/", import.meta.url).pathname;

interface Example {
  readonly name: string;
  readonly manifests: string[];
  readonly node: string;
  readonly proxy?: string;
}

/** Every example directory with a node.yaml, once per proxy config file in it. */
function examples(): Example[] {
  const out: Example[] = [];
  for (const dir of readdirSync(EXAMPLES).sort()) {
    const path = join(EXAMPLES, dir);
    if (!existsSync(join(path, "node.yaml"))) continue;
    const files = readdirSync(path).filter((f) => f.endsWith(".yaml"));
    const proxies = files.filter((f) => f.startsWith("proxy"));
    const manifests = files
      .filter((f) => f !== "node.yaml" && !f.startsWith("proxy"))
      .map((f) => join(path, f));
    for (const proxy of proxies.length > 0 ? proxies : [undefined])
      out.push({
        name: `${dir}${proxy !== undefined ? ` (${proxy})` : ""}`,
        manifests,
        node: join(path, "node.yaml"),
        ...(proxy !== undefined ? { proxy: join(path, proxy) } : {}),
      });
  }
  return out;
}

function load(e: Example) {
  const cluster = loadCluster(e.manifests);
  const node = parseNodeEnvironment(readFileSync(e.node, "utf8"), e.node);
  const proxyConfig =
    e.proxy !== undefined
      ? parseProxyConfig(readFileSync(e.proxy, "utf8"), e.proxy)
      : DEFAULT_PROXY_CONFIG;
  const scenario = scenarioOfCluster(cluster, { node, proxyConfig });
  return { cluster, proxyConfig, scenario };
}

const ALL = examples();
const NEEDS = ["root", "ip", "iptables"] as const;

/**
 * `verify --auto` of one example on one iptables variant, run once per file: the dual-stack
 * test below reads the run "every example" made (a verify is seconds of namespaces and probe
 * timeouts, on the kernel lock every kernel file waits for).
 */
const verified = new Map<string, ReturnType<typeof verifyProbes>>();
function verifyExample(e: Example, variant: IptablesVariant): ReturnType<typeof verifyProbes> {
  const key = `${e.name} ${variant}`;
  let run = verified.get(key);
  if (run === undefined) {
    const { cluster, proxyConfig, scenario } = load(e);
    const probes = autoProbes(cluster, scenario, { proxyConfig });
    run = verifyProbes(netnsBackend({ iptables: variant }), scenario, probes);
    verified.set(key, run);
  }
  return run;
}

describe("verify --backend netns --auto on the examples", () => {
  it_hasExamples();
  // Every example through the nft front end; the legacy one on the TCP example (time).
  for (const [variant, only] of [
    ["nft", undefined],
    ["legacy", "nodeport-loadbalancer"],
  ] as const satisfies readonly (readonly [IptablesVariant, string | undefined])[]) {
    kernelTest(
      `${only === undefined ? "every example" : only} agrees (iptables-${variant}-restore)`,
      [...NEEDS],
      async () => {
        expect.hasAssertions();
        let agreed = 0;
        for (const e of ALL.filter((x) => only === undefined || x.name.startsWith(only))) {
          const r = await verifyExample(e, variant);
          const bad = r.rows.filter((row) => row.agreement === "disagree");
          expect({
            example: e.name,
            disagreements: bad.map(
              (b) => `${JSON.stringify(b.probe)}: predicted ${b.predicted}, observed ${b.observed}`,
            ),
          }).toEqual({ example: e.name, disagreements: [] });
          for (const row of r.rows)
            if (row.agreement === "skipped" && row.observation.kind === "skipped")
              expect([NO_SCTP, NO_IPVS, NO_PYTHON]).toContain(row.observation.reason);
          agreed += r.summary.agreed;
        }
        // TCP/UDP probes really ran (not everything skipped).
        expect(agreed).toBeGreaterThanOrEqual(only === undefined ? 25 : 15);
        expect(liveNetns()).toEqual([]);
      },
      600_000,
    );
  }
});

function it_hasExamples(): void {
  kernelTest("the examples with a node environment are found", [], () => {
    expect(ALL.map((e) => e.name)).toEqual(
      expect.arrayContaining([
        "nodeport-loadbalancer (proxy.yaml)",
        "sctp-hostport",
        "dual-stack (proxy.yaml)",
      ]),
    );
  });
}

kernelTest(
  "dual-stack: every IPv6 probe really runs (pods, node, external client, remote endpoints) and agrees",
  [...NEEDS, "ip6tables"],
  async () => {
    expect.hasAssertions();
    const e = ALL.find((x) => x.name.startsWith("dual-stack"))!;
    const r = await verifyExample(e, "nft");
    const v6 = r.rows.filter((row) => row.probe.to.includes(":"));
    expect(v6.length).toBeGreaterThanOrEqual(15);
    expect(v6.filter((row) => row.agreement !== "agree").map((row) => row.probe)).toEqual([]);
    // Sources of every kind, and both an IPv6 DNAT to a pod elsewhere and a drop were seen.
    expect(new Set(v6.map((row) => row.probe.from))).toEqual(
      new Set(["shop/web-1", "node", "external"]),
    );
    const observed = v6.map((row) => row.observation);
    expect(observed).toContainEqual({
      kind: "delivered",
      to: "[fd00:10:244:2::7]:5353",
      seenSource: "fd00:10::11",
    });
    expect(observed).toContainEqual({ kind: "dropped" });
    expect(r.summary.disagreed).toBe(0);
    expect(liveNetns()).toEqual([]);
  },
  300_000,
);

kernelTest(
  "IPv6: a TCP connection to a Service port without endpoints is rejected, every time (the ICMPv6 error that races connect() is seen at the SYN's retransmission)",
  [...NEEDS, "ip6tables"],
  async () => {
    const cluster = makeCluster({
      pods: [pod("default/client", { ip: ["10.244.1.10", "fd00:10:244:1::a"], node: "node-a" })],
      services: [
        service("default/svc", {
          clusterIPs: ["fd00:10:96::50"],
          ipFamilies: ["IPv6"],
          ipFamilyPolicy: "SingleStack",
          selector: { app: "svc" },
          ports: [{ name: "http", port: 80, targetPort: 8000 }],
        }),
      ],
    });
    const scenario = scenarioOfCluster(cluster, {
      node: propertyNode(["IPv4", "IPv6"]),
      proxyConfig: DEFAULT_PROXY_CONFIG,
    });
    const probes = [40001, 40002, 40003, 40004].map((sourcePort) => ({
      protocol: "tcp" as const,
      from: "default/client",
      to: "fd00:10:96::50",
      port: 80,
      sourcePort,
    }));
    const r = await verifyProbes(netnsBackend(), scenario, probes);
    expect(r.rows.map((row) => row.observation)).toEqual(probes.map(() => ({ kind: "rejected" })));
    expect(r.summary.disagreed).toBe(0);
  },
  60_000,
);

kernelTest(
  "a scenario of 50 probes: every observation agrees",
  [...NEEDS],
  async () => {
    expect.hasAssertions();
    const e = ALL.find((x) => x.name.startsWith("nodeport-loadbalancer"))!;
    const { cluster, proxyConfig, scenario } = load(e);
    const base = autoProbes(cluster, scenario, { proxyConfig });
    expect(base.length).toBeGreaterThan(0);
    const probes = Array.from({ length: 50 }, (_, i) => ({
      ...base[i % base.length]!,
      sourcePort: 45000 + i,
    }));
    const r = await verifyProbes(netnsBackend({ timeoutMs: 800 }), scenario, probes);
    expect(r.summary).toEqual({
      backend: "netns",
      probes: 50,
      agreed: 50,
      disagreed: 0,
      skipped: 0,
    });
    // Both endpoints of the NodePort service were reached at least once over 50 random draws
    // of p=0.5 (probability of missing one: about 2^-20).
    const reached = new Set(
      r.rows.flatMap((row) => (row.observation.kind === "delivered" ? [row.observation.to] : [])),
    );
    expect(reached.has("10.244.1.5:8080") && reached.has("10.244.2.5:8080")).toBe(true);
  },
  300_000,
);

kernelTest(
  "capabilities are detected: IPVS from /proc, SCTP by opening a socket, tools from PATH",
  [...NEEDS],
  () => {
    const caps = detectCapabilities();
    const byName = new Map(caps.map((c) => [c.name, c]));
    expect(byName.get("ipvs")?.available).toBe(existsSync("/proc/net/ip_vs"));
    if (!existsSync("/proc/net/ip_vs")) expect(byName.get("ipvs")?.reason).toBe(NO_IPVS);
    // Opening an SCTP socket loads the module where it can: /proc/net/sctp exists after it iff
    // the socket opened.
    expect(byName.get("sctpSockets")?.available).toBe(existsSync("/proc/net/sctp"));
    expect(byName.get("iptables")?.available).toBe(true);
    expect(byName.get("tcpSockets")?.available).toBe(true);
  },
);

kernelTest(
  "a topology the kernel cannot build is a one-line error; nothing is left behind",
  [...NEEDS],
  async () => {
    const { runCli } = await import("../../src/cli/program.js");
    const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(join(tmpdir(), "kns-verify-"));
    try {
      const e = ALL.find((x) => x.name.startsWith("nodeport-loadbalancer"))!;
      const nodeFile = join(dir, "node.yaml");
      writeFileSync(
        nodeFile,
        readFileSync(e.node, "utf8").replace("name: cni0", "name: averyveryverylongname0"),
      );
      let err = "";
      const code = await runCli(
        [
          "verify",
          "-f",
          ...e.manifests,
          "--node-env",
          nodeFile,
          "--proxy-config",
          e.proxy!,
          "--backend",
          "netns",
          "--auto",
        ],
        { stdout: () => {}, stderr: (s) => (err += s), readStdin: () => "" },
      );
      expect(code).toBe(2);
      expect(err).toBe(
        "kube-netsim: interface name averyveryverylongname0 is longer than 15 characters\n",
      );
      expect(liveNetns()).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
