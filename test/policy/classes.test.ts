/** Equivalence classes: pods that a policy can tell apart must not share a class. */
import { describe, expect, test } from "@jest/globals";
import { test as propTest } from "@fast-check/jest";
import { compilePolicies } from "../../src/policy/compile.js";
import { podClasses } from "../../src/policy/classes.js";
import { compileSelector } from "../../src/policy/label-selector.js";
import { matchesLabelSelector } from "../../src/model/selector.js";
import { computePolicyMatrix, naivePolicyMatrix } from "../../src/policy/matrix.js";
import {
  labelsFrom,
  policyLabelSelector,
  POD_LABELS,
} from "../../src/testing/arbitraries/policyLabelSelector.js";
import { np, ns, pod, world } from "./fixtures.js";

describe("podClasses", () => {
  const same = { labels: { app: "web" } };
  test("pods differing only in a named port some policy uses are split", () => {
    const w = world({
      namespaces: [ns("x")],
      pods: [
        pod("x/a", { ...same, ips: ["10.0.0.1"], ports: [{ name: "http", containerPort: 80 }] }),
        pod("x/b", { ...same, ips: ["10.0.0.2"] }),
      ],
      policies: [np("x/p", { ingress: [{ ports: [{ port: "http" }] }] })],
    });
    expect(podClasses(compilePolicies(w)).representatives).toHaveLength(2);
    const m = computePolicyMatrix(w, { ports: [80], protocols: ["TCP"] });
    expect(Array.from(m.verdicts)).toEqual([1, 0, 1, 1]); // x/b does not serve "http" (self pairs allowed)
    expect(m.verdicts).toEqual(naivePolicyMatrix(w, { ports: [80], protocols: ["TCP"] }).verdicts);
  });

  test("pods differing only in ipBlock membership are split; otherwise merged", () => {
    const pods = [
      pod("x/a", { ...same, ips: ["10.0.0.1"] }),
      pod("x/b", { ...same, ips: ["10.0.0.2"] }),
      pod("x/c", { ...same, ips: ["10.0.0.3"] }),
    ];
    const w = world({
      namespaces: [ns("x")],
      pods,
      policies: [
        np("x/p", {
          ingress: [{ from: [{ ipBlock: { cidr: "10.0.0.0/24", except: ["10.0.0.2/32"] } }] }],
        }),
      ],
    });
    expect(podClasses(compilePolicies(w)).representatives).toHaveLength(2);
    const m = computePolicyMatrix(w, { ports: [80], protocols: ["TCP"] });
    // rows: from a, b, c; columns: to a, b, c. x/b is excluded as a source.
    expect(Array.from(m.verdicts)).toEqual([1, 1, 1, 0, 1, 0, 1, 1, 1]);
    const unnamed = world({
      namespaces: [ns("x")],
      pods,
      policies: [np("x/p", { ingress: [{}] })],
    });
    expect(podClasses(compilePolicies(unnamed)).representatives).toHaveLength(1);
  });
});

describe("subject classes", () => {
  test("pods on different nodes are told apart when node traffic exists", () => {
    const same = { labels: { app: "web" } };
    const w = world({
      namespaces: [ns("x"), ns("h")],
      pods: [
        pod("h/host", { ips: ["192.168.0.1"], hostNetwork: true, nodeName: "n1" }),
        pod("x/a", { ...same, ips: ["10.0.0.1"], nodeName: "n1" }),
        pod("x/b", { ...same, ips: ["10.0.0.2"], nodeName: "n2" }),
      ],
      policies: [np("x/deny", {})],
    });
    const m = computePolicyMatrix(w, { ports: [80], protocols: ["TCP"] });
    // from h/host: to itself, to x/a (same node: allowed), to x/b (other node: denied)
    expect(Array.from(m.verdicts.slice(0, 3))).toEqual([1, 1, 0]);
    expect(m.verdicts).toEqual(naivePolicyMatrix(w, { ports: [80], protocols: ["TCP"] }).verdicts);
  });
});

describe("compiled selectors", () => {
  propTest.prop(
    [
      policyLabelSelector(POD_LABELS, ["missing", "env"]),
      labelsFrom({ ...POD_LABELS, env: ["", "prod"] }),
    ],
    { numRuns: 300 },
  )("agree with model/selector.ts matchesLabelSelector", (sel, labels) => {
    expect(compileSelector(sel).matches(labels)).toBe(matchesLabelSelector(sel, labels));
  });
  test("an unknown operator matches nothing and is reported", () => {
    const s = compileSelector({ matchExpressions: [{ key: "a", operator: "Gt", values: ["1"] }] });
    expect(s.matches({ a: "2" })).toBe(false);
    expect(s.problems[0]).toContain('unsupported operator "Gt"');
  });
});
