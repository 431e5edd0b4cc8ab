/** Explanations record the deciding tier, the policies selecting each side and the matched entries. */
import { describe, expect, test } from "@jest/globals";
import { evaluatePolicy } from "../../src/policy/evaluate.js";
import { formatExplanation } from "../../src/policy/explanation-text.js";
import { lintPolicies } from "../../src/policy/lint.js";
import { anp, banp, np, ns, pod, world } from "./fixtures.js";

const server = pod("x/server", {
  ips: ["10.0.1.1"],
  labels: { app: "server" },
  ports: [{ name: "http", containerPort: 8080 }],
});
const client = pod("y/client", { ips: ["10.0.2.1"], labels: { app: "client" } });
const base = [ns("x"), ns("y", { team: "blue" })];

describe("explanations", () => {
  test("the matching rule, peer and port entries are recorded", () => {
    const w = world({
      namespaces: base,
      pods: [server, client],
      policies: [
        np("x/a", { ingress: [{ from: [{ podSelector: {} }], ports: [{ port: 80 }] }] }),
        np("x/b", {
          ingress: [
            {
              from: [
                { ipBlock: { cidr: "192.0.2.0/24" } },
                { namespaceSelector: { matchLabels: { team: "blue" } } },
              ],
              ports: [{ port: 9999 }, { port: "http" }],
            },
          ],
        }),
      ],
    });
    const { allowed, explanation } = evaluatePolicy(w, {
      from: "y/client",
      to: "x/server",
      port: 8080,
    });
    expect(allowed).toBe(true);
    expect(explanation.ingress.decision).toEqual({
      kind: "networkpolicy-allow",
      policy: "x/b",
      rule: 0,
    });
    expect(explanation.ingress.selectedBy.networkPolicies).toEqual(["x/a", "x/b"]);
    expect(explanation.ingress.networkPolicies).toEqual([
      {
        policy: "x/a",
        rules: [
          {
            index: 0,
            matched: false,
            peer: { matched: false, reason: "y/client matches none of 1 peer(s)" },
          },
        ],
      },
      {
        policy: "x/b",
        rules: [
          {
            index: 0,
            matched: true,
            peer: { matched: true, index: 1 },
            port: { matched: true, index: 1 },
          },
        ],
      },
    ]);
    expect(explanation.egress.decision).toEqual({ kind: "default-allow" });
  });

  test("why no port matched, including unresolved named ports", () => {
    const w = world({
      namespaces: base,
      pods: [server, client],
      policies: [
        np("x/p", {
          ingress: [{ ports: [{ port: "grpc" }, { port: 80, endPort: 90, protocol: "UDP" }] }],
        }),
      ],
    });
    const { explanation } = evaluatePolicy(w, { from: "y/client", to: "x/server", port: 8080 });
    const rule = explanation.ingress.networkPolicies[0]?.rules[0];
    expect(rule?.port).toEqual({
      matched: false,
      reason: "TCP/8080 is not in TCP/grpc (not declared by x/server for TCP), UDP/80-90",
    });
  });

  test("ANP Pass, then BANP; text names the tiers", () => {
    const toX = { namespaces: { matchLabels: { "kubernetes.io/metadata.name": "x" } } };
    const w = world({
      namespaces: base,
      pods: [server, client],
      anps: [
        anp("pass-blue", {
          priority: 7,
          subject: toX,
          ingress: [
            {
              name: "skip",
              action: "Deny",
              from: [{ namespaces: { matchLabels: { team: "red" } } }],
            },
            {
              name: "to-np",
              action: "Pass",
              from: [{ namespaces: { matchLabels: { team: "blue" } } }],
            },
          ],
        }),
      ],
      banps: [
        banp({
          subject: toX,
          ingress: [
            {
              name: "no-blue",
              action: "Deny",
              from: [{ namespaces: { matchLabels: { team: "blue" } } }],
            },
          ],
        }),
      ],
    });
    const { allowed, explanation } = evaluatePolicy(w, {
      from: "y/client",
      to: "x/server",
      port: 80,
    });
    expect(allowed).toBe(false);
    expect(explanation.ingress.passed).toEqual({
      policy: "pass-blue",
      priority: 7,
      rule: 1,
      ruleName: "to-np",
    });
    expect(explanation.ingress.adminPolicies[0]?.rules.map((r) => [r.index, r.matched])).toEqual([
      [0, false],
      [1, true],
    ]);
    expect(explanation.ingress.decision).toEqual({
      kind: "admin-rule",
      tier: "BaselineAdminNetworkPolicy",
      policy: "default",
      rule: 0,
      ruleName: "no-blue",
      action: "Deny",
    });
    const text = formatExplanation(explanation);
    expect(text).toContain('[ANP] Pass by pass-blue ingress[1] "to-np" -> NetworkPolicy/BANP');
    expect(text).toContain('[BANP] Deny by default ingress[0] "no-blue"');
    expect(text.split("\n")[0]).toBe("y/client -> x/server TCP/80: denied");
  });

  test("invalid objects (loaded with --validation warn) compile to matchers that match nothing, with issues", () => {
    const w = world({
      namespaces: base,
      pods: [server, client],
      policies: [np("x/p", { ingress: [{ from: [{ ipBlock: { cidr: "10.0.0.0/33" } }] }] })],
    });
    expect(evaluatePolicy(w, { from: "y/client", to: "x/server", port: 80 }).allowed).toBe(false);
    expect(lintPolicies(w).map((x) => x.code)).toContain("invalid-field");
  });
});
