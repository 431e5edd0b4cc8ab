/**
 * The report's bounds on a large cluster: the Services it draws and traces, the pods of its heat
 * maps; in the library and the CLI.
 */
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
import { DEFAULT_MAX_PODS } from "../../src/report/pod-selection.js";

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

/** `n` pods `pods/p-K` (listed in reverse order), one TCP port each, no policy. */
function podsYaml(n: number): string {
  const docs: string[] = [];
  for (let k = n - 1; k >= 0; k--)
    docs.push(`apiVersion: v1
kind: Pod
metadata: {name: p-${String(k).padStart(3, "0")}, namespace: pods}
spec: {containers: [{name: c, ports: [{containerPort: 80}]}]}
status: {podIP: 10.244.${k >> 8}.${(k & 255) + 1}}`);
  return docs.join("\n---\n");
}

const PODS = DEFAULT_MAX_PODS + 10;
const withPods = parseCluster([{ file: "pods.yaml", text: podsYaml(PODS) }]);
/** The row heads of the first heat map. */
const rows = (html: string) => {
  const first = /<table class="heatmap"[\s\S]*?<\/table>/.exec(html)?.[0] ?? "";
  return [...first.matchAll(/<th class="from" scope="row">([^<]*)<\/th>/g)].map((m) => m[1]);
};

describe("report: which pods the heat maps show", () => {
  const opts = { proxyConfig: DEFAULT_PROXY_CONFIG };

  test("more pods than the bound: the first in the manifests' order, and the page says so", () => {
    expect(withPods.pods.length).toBe(PODS);
    const html = renderReport(withPods, opts);
    const first = Array.from(
      { length: DEFAULT_MAX_PODS },
      (_, k) => `pods/p-${String(PODS - 1 - k).padStart(3, "0")}`,
    );
    expect(rows(html)).toEqual(first);
    // Three protocols, one port: three maps of DEFAULT_MAX_PODS² cells.
    expect(html.match(/<td class="cell /g)?.length).toBe(3 * DEFAULT_MAX_PODS ** 2);
    expect(html).toContain(
      `${DEFAULT_MAX_PODS} of ${PODS} pods (the first in the manifests' order)`,
    );
  });

  test("maxPods: Infinity shows every pod; pods: the named ones in the manifests' order", () => {
    expect(rows(renderReport(withPods, { ...opts, maxPods: Infinity }))).toHaveLength(PODS);
    const named = renderReport(withPods, { ...opts, pods: ["pods/p-001", "pods/p-100"] });
    expect(rows(named)).toEqual(["pods/p-100", "pods/p-001"]);
    expect(named).not.toContain("the first in the manifests' order");
    expect(() => renderReport(withPods, { ...opts, pods: ["pods/nope"] })).toThrow(
      "no pod pods/nope in the cluster",
    );
  });

  test("the CLI: a warning for the bound, --max-pods, --pods, and usage errors", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kns-report-pods-"));
    try {
      writeFileSync(join(dir, "pods.yaml"), podsYaml(PODS));
      const out = join(dir, "report.html");
      const run = async (...extra: string[]) => {
        let err = "";
        rmSync(out, { force: true });
        const code = await runCli(
          ["report", "-f", join(dir, "pods.yaml"), "--out", out, ...extra],
          {
            stdout: () => {},
            stderr: (s) => (err += s),
            readStdin: () => "",
          },
        );
        process.exitCode = 0;
        return { code, err, html: code === 0 ? readFileSync(out, "utf8") : "" };
      };
      const bound = await run();
      expect(bound.err).toBe(
        `kube-netsim: warning: report: heat maps of ${DEFAULT_MAX_PODS} of ${PODS} pods (the first in the manifests); --pods or --max-pods for others\n`,
      );
      expect(rows(bound.html)).toHaveLength(DEFAULT_MAX_PODS);
      const two = await run("--max-pods", "2");
      expect(rows(two.html)).toEqual(["pods/p-109", "pods/p-108"]);
      const all = await run("--max-pods", "all");
      expect(all.err).toBe("");
      expect(rows(all.html)).toHaveLength(PODS);
      expect(rows((await run("--pods", "pods/p-003")).html)).toEqual(["pods/p-003"]);
      const bad = await run("--pods", "pods/nope");
      expect([bad.code, bad.err]).toEqual([
        2,
        "kube-netsim: --pods: no pod pods/nope in the manifests\n",
      ]);
      const both = await run("--pods", "pods/p-003", "--max-pods", "3");
      expect(both.code).toBe(2);
      expect(both.err).toContain("--pods and --max-pods: give one or the other");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
