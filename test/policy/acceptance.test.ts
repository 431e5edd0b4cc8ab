/** shared/acceptance/netpol: every row of every expected.tsv, joined with `policy matrix` rows. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "@jest/globals";
import { loadCluster } from "../../src/model/load-files.js";
import {
  computePolicyMatrix,
  matrixRows,
  naivePolicyMatrix,
  type MatrixCell,
} from "../../src/policy/matrix.js";
import { evaluatePolicy } from "../../src/policy/evaluate.js";
import { parseProtocol, type Protocol } from "../../src/net/port.js";
import { ACCEPTANCE_DIR } from "../helpers/shared.js";

const ROOT = join(ACCEPTANCE_DIR, "netpol");

interface Expected {
  from: string;
  to: string;
  port: number;
  protocol: Protocol;
  expected: boolean;
}

function readExpected(file: string): Expected[] {
  const [header, ...lines] = readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "");
  expect(header?.split("\t")).toEqual(["from", "to", "port", "protocol", "expected"]);
  return lines.map((l) => {
    const [from = "", to = "", port = "", protocol = "", expected = ""] = l.split("\t");
    return {
      from,
      to,
      port: Number(port),
      protocol: parseProtocol(protocol) ?? "TCP",
      expected: expected === "true",
    };
  });
}

const cases = readdirSync(ROOT).filter((d) => /^\d\d-/.test(d));

describe("netpol acceptance", () => {
  test("all six cases are present", () => {
    expect(cases.length).toBeGreaterThanOrEqual(6);
  });
  test.each(cases)("%s", (name) => {
    const cluster = loadCluster(join(ROOT, name, "cluster.yaml"));
    const expected = readExpected(join(ROOT, name, "expected.tsv"));
    expect(expected.length).toBeGreaterThan(0);
    const ports = [...new Set(expected.map((e) => e.port))];
    const protocols = [...new Set(expected.map((e) => e.protocol))];
    const m = computePolicyMatrix(cluster, { ports, protocols });
    const got = new Map<string, MatrixCell>();
    for (const r of matrixRows(m))
      got.set(`${r.from}\t${r.to}\t${r.port}\t${r.protocol}`, r.allowed);
    // self pairs are in the matrix, the expectations leave them out
    expect(got.size).toBe(m.pods.length * m.pods.length * ports.length * protocols.length);
    const mismatches = expected
      .filter((e) => got.get(`${e.from}\t${e.to}\t${e.port}\t${e.protocol}`) !== e.expected)
      .map(
        (e) =>
          `${e.from} -> ${e.to} ${e.protocol}/${e.port}: expected ${e.expected}, got ${String(got.get(`${e.from}\t${e.to}\t${e.port}\t${e.protocol}`))}`,
      );
    expect(mismatches).toEqual([]);
    // the naive path and the explaining path agree row by row
    const naive = naivePolicyMatrix(cluster, { ports, protocols });
    expect(Buffer.from(naive.verdicts).equals(Buffer.from(m.verdicts))).toBe(true);
    for (const e of expected)
      expect(
        evaluatePolicy(cluster, { from: e.from, to: e.to, port: e.port, protocol: e.protocol })
          .allowed,
      ).toBe(e.expected);
  });
});
