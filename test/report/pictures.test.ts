import { describe, expect, it } from "@jest/globals";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../src/cli/program.js";
import { loadCluster } from "../../src/model/load-files.js";
import { policyMatrix } from "../../src/policy/matrix.js";

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCli(argv, {
    stdout: (s) => void (out += s),
    stderr: (s) => void (err += s),
    readStdin: () => "",
  });
  return { code, out, err };
}

const E = "examples/sctp-service";
const TRACE = [
  "trace",
  "-f",
  `${E}/cluster.yaml`,
  "--node-env",
  `${E}/node.yaml`,
  "--proxy-config",
  `${E}/proxy.yaml`,
  "--proto",
  "sctp",
  "--src",
  "203.0.113.9",
  "--dst",
  "10.96.0.50",
  "--dport",
  "9999",
];

describe("pictures from trace and policy matrix", () => {
  it("trace --output dot: the chains walked, one box per outcome, the deciding chain highlighted", async () => {
    const r = await cli([...TRACE, "--output", "dot"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^digraph trace \{/);
    expect(r.out).toContain('"nat/KUBE-SERVICES" -> "nat/KUBE-SVC-');
    expect(
      r.out.match(/"outcome:\d" \[label="DNAT 10\.244\.[12]\.[57]:9999 masq 50%"/g)?.length,
    ).toBe(2);
    expect(r.out.match(/"nat\/KUBE-SEP-\w+" \[label="[^"]+", fillcolor="#ffe08a"/g)?.length).toBe(
      2,
    );
  });

  it("trace --output svg is one standalone SVG document", async () => {
    const r = await cli([...TRACE, "-o", "svg"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^<\?xml[^>]*>\n<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(r.out).toContain("<style>");
    expect(r.out).toContain(">DNAT 10.244.1.5:9999 masq 50%</text>");
    expect(
      (await cli([...TRACE.slice(0, 7), "--packets", `${E}/packets.tsv`, "-o", "svg"])).err,
    ).toContain("--output svg draws one packet");
  });

  it("policy matrix --output svg|html: one cell per probe, coloured by the verdict", async () => {
    const rows = policyMatrix(loadCluster("examples/sctp-policy/cluster.yaml"));
    const svg = await cli([
      "policy",
      "matrix",
      "-f",
      "examples/sctp-policy/cluster.yaml",
      "--output",
      "svg",
    ]);
    expect(svg.code).toBe(0);
    expect(
      svg.out.match(/<rect class="(allowed|denied)" x="\d+" y="\d+" width="15"/g)?.length,
    ).toBe(rows.length);
    expect(svg.out.match(/<rect class="denied" x="\d+" y="\d+" width="15"/g)?.length).toBe(
      rows.filter((r) => !r.allowed).length,
    );
    const html = await cli([
      "policy",
      "matrix",
      "-f",
      "examples/sctp-policy/cluster.yaml",
      "--output",
      "html",
    ]);
    expect(html.out.match(/<td class="cell (allowed|denied)"/g)?.length).toBe(rows.length);
  });

  it("report --out writes the page and says where; --quiet keeps stderr empty", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kube-netsim-report-"));
    try {
      const out = join(dir, "r.html");
      const r = await cli([
        "report",
        "-f",
        "examples/sctp-test-plan/",
        "--node-env",
        "examples/sctp-test-plan/node.yaml",
        "--out",
        out,
        "--quiet",
      ]);
      expect(r).toEqual({
        code: 0,
        out: expect.stringMatching(/^wrote .*r\.html \(\d+ KiB\)\n$/),
        err: "",
      });
      expect(readFileSync(out, "utf8")).toMatch(/^<!DOCTYPE html>/);
      const missing = await cli(["report", "-f", "examples/sctp-test-plan/"]);
      expect(missing.code).toBe(2);
      expect(missing.err).toContain("--out");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
