/**
 * shared/acceptance/netpol-cnp (upstream ClusterNetworkPolicy conformance stages): every row of
 * every expected.tsv through `policy matrix` (library and CLI) and `policy check`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "@jest/globals";
import { loadCluster } from "../../src/model/load-files.js";
import { computePolicyMatrix, matrixRows, naivePolicyMatrix } from "../../src/policy/matrix.js";
import { evaluatePolicy } from "../../src/policy/evaluate.js";
import { parseProtocol, type Protocol } from "../../src/net/port.js";
import { runCli } from "../../src/cli/program.js";
import { ACCEPTANCE_DIR } from "../helpers/shared.js";

const ROOT = join(ACCEPTANCE_DIR, "netpol-cnp");

interface Expected {
  readonly from: string;
  readonly to: string;
  readonly port: number;
  readonly protocol: Protocol;
  readonly allowed: boolean;
}

function readExpected(file: string): Expected[] {
  const [header, ...lines] = readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "");
  expect(header?.split("\t")).toEqual(["from", "to", "port", "protocol", "allowed"]);
  return lines.map((l) => {
    const [from = "", to = "", port = "", protocol = "", allowed = ""] = l.split("\t");
    expect(["true", "false"]).toContain(allowed);
    return {
      from,
      to,
      port: Number(port),
      protocol: parseProtocol(protocol) ?? "TCP",
      allowed: allowed === "true",
    };
  });
}

const key = (e: { from: string; to: string; port: number; protocol: string }): string =>
  `${e.from}\t${e.to}\t${e.port}\t${e.protocol}`;

const cases = readdirSync(ROOT).filter((d) => /^cnp-/.test(d));

afterEach(() => {
  process.exitCode = 0;
});

describe("ClusterNetworkPolicy acceptance (netpol-cnp)", () => {
  test("the sample's cases are present", () => {
    expect(cases.length).toBeGreaterThanOrEqual(16);
  });

  test.each(cases)("%s: policy matrix and evaluatePolicy", (name) => {
    const cluster = loadCluster(join(ROOT, name, "cluster.yaml"));
    expect(cluster.clusterNetworkPolicies.length).toBeGreaterThan(0);
    const expected = readExpected(join(ROOT, name, "expected.tsv"));
    expect(expected.length).toBeGreaterThan(0);
    const ports = [...new Set(expected.map((e) => e.port))];
    const protocols = [...new Set(expected.map((e) => e.protocol))];
    const m = computePolicyMatrix(cluster, { ports, protocols });
    const got = new Map<string, boolean | "unknown">();
    for (const r of matrixRows(m)) got.set(key(r), r.allowed);
    // Rows whose `to` is a node IP (host-network server) are not pod pairs: checked below.
    const podRows = expected.filter((e) => got.has(key(e)));
    expect(podRows.length).toBe(
      expected.filter((e) => e.from.includes("/") && e.to.includes("/")).length,
    );
    const mismatches = podRows
      .filter((e) => got.get(key(e)) !== e.allowed)
      .map((e) => `${key(e)}: expected ${e.allowed}, got ${String(got.get(key(e)))}`);
    expect(mismatches).toEqual([]);
    const naive = naivePolicyMatrix(cluster, { ports, protocols });
    expect(Buffer.from(naive.verdicts).equals(Buffer.from(m.verdicts))).toBe(true);
    const checked = expected
      .filter(
        (e) =>
          evaluatePolicy(cluster, { from: e.from, to: e.to, port: e.port, protocol: e.protocol })
            .allowed !== e.allowed,
      )
      .map(key);
    expect(checked).toEqual([]);
  });

  test.each(cases)("%s: through the CLI (policy matrix -o tsv, policy check)", async (name) => {
    const file = join(ROOT, name, "cluster.yaml");
    const expected = readExpected(join(ROOT, name, "expected.tsv"));
    let out = "";
    const io = { stdout: (s: string) => (out += s), stderr: () => undefined, readStdin: () => "" };
    const ports = [...new Set(expected.map((e) => e.port))].join(",");
    const protocols = [...new Set(expected.map((e) => e.protocol))].join(",");
    const code = await runCli(
      ["policy", "matrix", "-f", file, "--ports", ports, "--protocols", protocols, "-o", "tsv"],
      io,
    );
    expect(code).toBe(0);
    const got = new Map(
      out
        .trim()
        .split("\n")
        .slice(1)
        .map((l) => {
          const f = l.split("\t");
          return [f.slice(0, 4).join("\t"), f[4]] as const;
        }),
    );
    const wrong = expected.filter((e) => got.has(key(e)) && got.get(key(e)) !== String(e.allowed));
    expect(wrong).toEqual([]);
    // policy check on a sample of rows (one per expected verdict), exit code 0/1
    const sample = [expected.find((e) => e.allowed), expected.find((e) => !e.allowed)].filter(
      (e): e is Expected => e !== undefined,
    );
    expect(sample.length).toBeGreaterThan(0);
    for (const e of sample) {
      const c = await runCli(
        [
          "policy",
          "check",
          "-f",
          file,
          "--from",
          e.from,
          "--to",
          e.to,
          "--port",
          String(e.port),
          "--protocol",
          e.protocol,
        ],
        io,
      );
      expect(c).toBe(e.allowed ? 0 : 1);
    }
  });
});
