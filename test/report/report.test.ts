import { describe, expect, it } from "@jest/globals";
import { loadCluster } from "../../src/model/load-files.js";
import { DEFAULT_PROXY_CONFIG } from "../../src/model/proxy-config.js";
import { renderReport } from "../../src/report/report.js";
import { policyMatrix } from "../../src/policy/matrix.js";
import { exampleInputs, reportFor } from "./examples.js";

describe("report", () => {
  it("is one self-contained page under 1 MB for every example", () => {
    const inputs = exampleInputs();
    expect(inputs.length).toBeGreaterThanOrEqual(6);
    for (const input of inputs) {
      const html = reportFor(input);
      expect({ dir: input.dir, small: Buffer.byteLength(html) < 1024 * 1024 }).toEqual({
        dir: input.dir,
        small: true,
      });
      // Nothing is fetched: no src/href to anything but the page's own anchors.
      expect(html.match(/\s(?:src|href)="(?!#)[^"]*"/g)).toBeNull();
      expect(html).not.toMatch(/<link\b|@import|url\((?!#)/);
      expect(html).toContain("default-src 'none'");
    }
  });

  it("has one heat-map cell per pod pair and probe, coloured by the verdict", () => {
    const cluster = loadCluster("examples/sctp-policy/cluster.yaml");
    const html = renderReport(cluster, { proxyConfig: DEFAULT_PROXY_CONFIG });
    const rows = policyMatrix(cluster);
    expect(rows.length).toBe(2 * 2 * 3);
    const cells = html.match(/<td class="cell (allowed|denied)"/g) ?? [];
    expect(cells.length).toBe(rows.length);
    expect(cells.filter((c) => c.includes("denied")).length).toBe(
      rows.filter((r) => !r.allowed).length,
    );
    // The test plan's expectation: SCTP 5000 allowed from the client, TCP and UDP denied.
    const cell = (proto: string) =>
      new RegExp(
        `class="cell (\\w+)" data-why="default/client → default/server 5000/${proto}`,
      ).exec(html)?.[1];
    expect([cell("SCTP"), cell("TCP"), cell("UDP")]).toEqual(["allowed", "denied", "denied"]);
    expect(html).toMatch(
      /data-why="default\/client → default\/server 5000\/TCP: denied\n[^"]*allow-sctp/,
    );
  });

  it("draws each Service's chains with probabilities and marks local endpoints", () => {
    const html = reportFor({
      dir: "examples/sctp-service",
      node: "examples/sctp-service/node.yaml",
      proxy: "examples/sctp-service/proxy.yaml",
    });
    // Two endpoints, one on node-a (10.244.1.5): kube-proxy splits 50/50.
    expect(html.match(/class="edge-label"[^>]*>50%</g)?.length).toBe(2);
    expect(html).toMatch(/class="node endpoint-local"><title>10\.244\.1\.5:9999: on this node/);
    expect(html).toMatch(/class="node endpoint-remote"><title>10\.244\.2\.7:9999: on another node/);
    // The trace shows the deciding DNAT rule highlighted.
    expect(html).toMatch(/<li class="decider"[^>]*>nat\/KUBE-SEP-\w+#2 → DNAT<\/li>/);
  });

  it("draws IPVS virtual servers and their real servers", () => {
    const html = reportFor({
      dir: "examples/sctp-nodeport",
      node: "examples/sctp-nodeport/node.yaml",
      proxy: "examples/sctp-nodeport/proxy-ipvs.yaml",
    });
    expect(html).toMatch(/kube-proxy mode <b>ipvs<\/b>/);
    expect(html).toMatch(/<text[^>]*>SCTP [0-9.]+:\d+ \(rr\)<\/text>/);
  });
});
