/** The report's bound on the Services it draws and traces, in the library and the CLI. */
import { afterEach, describe, expect, test } from "@jest/globals";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../src/cli/program.js";
import { parseCluster } from "../../src/model/load.js";
import { parseNodeEnvironment } from "../../src/model/load-node-environment.js";
import { DEFAULT_PROXY_CONFIG } from "../../src/model/proxy-config.js";
import { renderReport } from "../../src/report/report.js";
import { DEFAULT_MAX_SERVICES } from "../../src/report/service-selection.js";

const NODE_FILE = "examples/sctp-service/node.yaml";
const node = parseNodeEnvironment(readFileSync(NODE_FILE, "utf8"), NODE_FILE);

/** `n` ClusterIP Services `ns/svc-K`, one endpoint each; listed in reverse order. */
function servicesYaml(n: number): string {
  const docs: string[] = [];
  for (let k = n - 1; k >= 0; k--) {
    const name = `svc-${String(k).padStart(3, "0")}`;
    docs.push(`apiVersion: v1
kind: Service
metadata: {name: ${name}, namespace: ns}
spec:
  clusterIP: 10.96.${k >> 8}.${k & 255}
  ports: [{name: http, port: 80, targetPort: 8080, protocol: TCP}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: ${name}-1, namespace: ns, labels: {kubernetes.io/service-name: ${name}}}
addressType: IPv4
endpoints: [{addresses: [10.244.${k >> 8}.${(k & 255) + 1}], conditions: {ready: true}}]
ports: [{name: http, port: 8080, protocol: TCP}]`);
  }
  return docs.join("\n---\n");
}

const COUNT = DEFAULT_MAX_SERVICES + 10;
const cluster = parseCluster([{ file: "svc.yaml", text: servicesYaml(COUNT) }]);

const graphTitles = (html: string) => [...html.matchAll(/<h3>([^<]*)<\/h3>/g)].map((m) => m[1]);
const traceTitles = (html: string) =>
  [...html.matchAll(/<h4>tcp 203\.0\.113\.10 -&gt; ([\d.]+):80<\/h4>/g)].map((m) => m[1]);

describe("report: which Services are drawn and traced", () => {
  test("more Services than the bound: the first by namespace/name, and the page says so", () => {
    expect(cluster.services.length).toBe(COUNT);
    const html = renderReport(cluster, { node, proxyConfig: DEFAULT_PROXY_CONFIG });
    const first = Array.from(
      { length: DEFAULT_MAX_SERVICES },
      (_, k) => `ns/svc-${String(k).padStart(3, "0")}`,
    );
    expect(graphTitles(html)).toEqual(first);
    expect(traceTitles(html)).toHaveLength(DEFAULT_MAX_SERVICES);
    expect(traceTitles(html)).toContain("10.96.0.0");
    expect(traceTitles(html)).not.toContain(`10.96.0.${COUNT - 1}`);
    expect(html).toContain(
      `${DEFAULT_MAX_SERVICES} of ${COUNT} Services (the first by namespace/name)`,
    );
    // The node summary still counts every Service port.
    expect(html).toMatch(new RegExp(`<tr><td>ClusterIP</td><td>${COUNT}</td>`));
  });

  test("maxServices: Infinity draws every one, with no note", () => {
    const html = renderReport(cluster, {
      node,
      proxyConfig: DEFAULT_PROXY_CONFIG,
      maxServices: Infinity,
    });
    expect(graphTitles(html)).toHaveLength(COUNT);
    expect(traceTitles(html)).toHaveLength(COUNT);
    expect(html).not.toContain("the first by namespace/name");
  });

  test("services: exactly the named ones, in their order", () => {
    const html = renderReport(cluster, {
      node,
      proxyConfig: DEFAULT_PROXY_CONFIG,
      services: ["ns/svc-059", "ns/svc-003"],
    });
    expect(graphTitles(html)).toEqual(["ns/svc-003", "ns/svc-059"]);
    expect(traceTitles(html)).toEqual(["10.96.0.59", "10.96.0.3"]);
    expect(html).not.toContain("the first by namespace/name");
  });

  test("a named Service the cluster lacks, or a bound that is not a count, is refused", () => {
    const opts = { node, proxyConfig: DEFAULT_PROXY_CONFIG };
    expect(() => renderReport(cluster, { ...opts, services: ["ns/nope"] })).toThrow(
      "no Service ns/nope in the cluster",
    );
    expect(() => renderReport(cluster, { ...opts, maxServices: 0 })).toThrow(RangeError);
  });
});

describe("kube-netsim report --services / --max-services", () => {
  let dir = "";
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
    process.exitCode = 0;
  });

  async function run(...extra: string[]): Promise<{ code: number; err: string; html: string }> {
    dir = mkdtempSync(join(tmpdir(), "kns-report-bound-"));
    writeFileSync(join(dir, "svc.yaml"), servicesYaml(COUNT));
    const out = join(dir, "report.html");
    let err = "";
    const code = await runCli(
      ["report", "-f", join(dir, "svc.yaml"), "--node-env", NODE_FILE, "--out", out, ...extra],
      { stdout: () => {}, stderr: (s) => (err += s), readStdin: () => "" },
    );
    let html = "";
    try {
      html = readFileSync(out, "utf8");
    } catch {
      // not written
    }
    return { code, err, html };
  }

  test("the bound is a warning on stderr", async () => {
    const r = await run();
    expect(r.code).toBe(0);
    expect(r.err).toBe(
      `kube-netsim: warning: report: chains and traces of ${DEFAULT_MAX_SERVICES} of ${COUNT} Services (the first by namespace/name); --services or --max-services for others\n`,
    );
    expect(graphTitles(r.html)).toHaveLength(DEFAULT_MAX_SERVICES);
  });

  test("--max-services N and all; --services", async () => {
    expect(graphTitles((await run("--max-services", "3")).html)).toEqual([
      "ns/svc-000",
      "ns/svc-001",
      "ns/svc-002",
    ]);
    const all = await run("--max-services", "all");
    expect(all.err).toBe("");
    expect(graphTitles(all.html)).toHaveLength(COUNT);
    const named = await run("--services", "ns/svc-010, ns/svc-001");
    expect(named.err).toBe("");
    expect(graphTitles(named.html)).toEqual(["ns/svc-001", "ns/svc-010"]);
  });

  test.each([
    [["--services", "ns/nope"], "kube-netsim: --services: no Service ns/nope in the manifests\n"],
    [
      ["--services", "svc-001"],
      'kube-netsim: --services: invalid value "svc-001" (expected NAMESPACE/NAME)\n',
    ],
    [
      ["--max-services", "0"],
      'kube-netsim: --max-services: invalid value "0" (expected a positive integer or all)\n',
    ],
    [
      ["--max-services", "2", "--services", "ns/svc-001"],
      "kube-netsim: --services and --max-services: give one or the other\n",
    ],
  ])("%j is a usage error (exit 2), and no page is written", async (extra, message) => {
    const r = await run(...extra);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
    expect(r.html).toBe("");
  });
});
