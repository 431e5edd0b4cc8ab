/**
 * The worked examples of shared/spec/cluster-network-policy.md §5: the policies (copied verbatim
 * into examples/cluster-network-policy/) and every row of each example's verdict table, read from
 * the spec itself, through `evaluatePolicy`; the explanation names the deciding policy.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "@jest/globals";
import { loadCluster } from "../../src/model/load-files.js";
import { evaluatePolicy } from "../../src/policy/evaluate.js";
import { formatExplanation } from "../../src/policy/explanation-text.js";
import { SHARED_DIR } from "../helpers/shared.js";

const EXAMPLES = join(__dirname, "../../examples/cluster-network-policy");
const FILES: Record<string, string> = {
  "1": "example1-deny-pass-baseline.yaml",
  "2": "example2-priority-accept.yaml",
  "3": "example3-sctp-egress-guard.yaml",
};

interface Row {
  readonly from: string;
  readonly to: string;
  readonly protocol: string;
  readonly port: number;
  readonly verdict: "allowed" | "denied";
  readonly why: string;
}

/** The verdict table that follows each example's YAML block. */
function specTables(): Map<string, Row[]> {
  const spec = readFileSync(join(SHARED_DIR, "spec/cluster-network-policy.md"), "utf8");
  const out = new Map<string, Row[]>();
  for (const part of spec.split(/^### Example /m).slice(1)) {
    const n = part.slice(0, 1);
    const rows = part
      .slice(part.lastIndexOf("```"))
      .split("\n")
      .filter((l) => /^\| [a-z0-9]/.test(l) && !l.startsWith("| from"))
      .map((l) => {
        const [from = "", to = "", probe = "", verdict = "", why = ""] = l
          .split("|")
          .slice(1, -1)
          .map((c) => c.trim());
        const [protocol = "", port = ""] = probe.split("/");
        expect(["allowed", "denied"]).toContain(verdict);
        return { from, to, protocol, port: Number(port), verdict, why } as Row;
      });
    out.set(n, rows);
  }
  return out;
}

const tables = specTables();

describe("spec §5 worked examples", () => {
  test("three examples with their tables", () => {
    expect([...tables.keys()]).toEqual(["1", "2", "3"]);
    for (const rows of tables.values()) expect(rows.length).toBeGreaterThanOrEqual(6);
  });

  test.each(["1", "2", "3"])("example %s: every row of the table", (n) => {
    const cluster = loadCluster([join(EXAMPLES, "cluster.yaml"), join(EXAMPLES, FILES[n] ?? "")]);
    expect(cluster.clusterNetworkPolicies.length).toBeGreaterThan(0);
    const rows = tables.get(n) ?? [];
    expect(rows.length).toBeGreaterThan(0);
    const wrong = rows
      .map((r) => ({
        r,
        v: evaluatePolicy(cluster, {
          from: r.from,
          to: r.to,
          port: r.port,
          protocol: r.protocol,
        }),
      }))
      .filter(({ r, v }) => v.verdict !== r.verdict)
      .map(
        ({ r, v }) =>
          `${r.from} -> ${r.to} ${r.protocol}/${r.port}: ${v.verdict}\n${formatExplanation(v.explanation)}`,
      );
    expect(wrong).toEqual([]);
  });

  test("explanations name tier, policy, priority and rule (example 3, SCTP)", () => {
    const cluster = loadCluster([join(EXAMPLES, "cluster.yaml"), join(EXAMPLES, FILES["3"] ?? "")]);
    const sctp = evaluatePolicy(cluster, {
      from: "dev/tester",
      to: "203.0.113.5",
      port: 3868,
      protocol: "SCTP",
    });
    expect(sctp.explanation.egress.decision).toEqual({
      kind: "admin-rule",
      tier: "ClusterNetworkPolicy",
      level: "Baseline",
      policy: "egress-guard",
      priority: 5,
      rule: 2,
      ruleName: "diameter",
      action: "Accept",
    });
    const tcp = evaluatePolicy(cluster, {
      from: "dev/tester",
      to: "203.0.113.5",
      port: 3868,
      protocol: "TCP",
    });
    expect(tcp.explanation.egress.decision).toMatchObject({
      rule: 3,
      ruleName: "nothing-else",
      action: "Deny",
    });
    expect(formatExplanation(tcp.explanation)).toContain(
      '[CNP Baseline] Deny by egress-guard priority 5 egress[3] "nothing-else"',
    );
    const pass = evaluatePolicy(cluster, { from: "web/frontend", to: "db/postgres", port: 5432 });
    expect(pass.explanation.egress.baselinePassed).toMatchObject({
      policy: "egress-guard",
      rule: 0,
      ruleName: "pods-are-not-internet",
    });
    expect(formatExplanation(pass.explanation)).toContain(
      '[CNP Baseline] Pass by egress-guard egress[0] "pods-are-not-internet" -> default allow',
    );
  });

  test("example 1: Admin Pass is recorded and leads to NetworkPolicy", () => {
    const cluster = loadCluster([join(EXAMPLES, "cluster.yaml"), join(EXAMPLES, FILES["1"] ?? "")]);
    const v = evaluatePolicy(cluster, { from: "web/frontend", to: "db/postgres", port: 5432 });
    expect(v.explanation.ingress.passed).toMatchObject({
      tier: "ClusterNetworkPolicy",
      level: "Admin",
      policy: "delegate-prod",
      priority: 100,
      rule: 0,
    });
    expect(v.explanation.ingress.decision).toEqual({
      kind: "networkpolicy-allow",
      policy: "db/db-allow-web",
      rule: 0,
    });
  });
});
