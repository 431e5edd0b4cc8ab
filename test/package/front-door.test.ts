/**
 * The root entry point is deliberate (issue 17 §2): the library entry points of
 * shared/docs/interfaces.md are there under their contract names, internals are not, and the
 * runtime surface stays small (at most ~150 names; the kit lives at kube-netsim/testing and
 * kube-netsim/jest).
 */
import { describe, expect, test } from "@jest/globals";
import * as root from "../../src/index.js";

const CONTRACT = [
  "loadCluster",
  "renderIptables",
  "renderIpvs",
  "HostportManager",
  "parseIptablesSave",
  "formatIptablesSave",
  "trace",
  "evaluatePolicy",
  "policyMatrix",
];

// Internals named in issue 17, a second name for one function, and a name with two meanings.
const INTERNAL = [
  "base32",
  "maskValue4",
  "formatFixed10",
  "compilePoliciesUncached",
  "INDEX_MIN_RULES",
  "parseIptables",
  "podFullName",
];

describe("the root entry point", () => {
  const names = Object.keys(root);

  test("exports every library entry point of the contract, as a function or class", () => {
    for (const n of CONTRACT) expect(typeof (root as Record<string, unknown>)[n]).toBe("function");
  });

  test("exports no internals and at most 150 runtime names", () => {
    expect(names.filter((n) => INTERNAL.includes(n))).toEqual([]);
    expect(names.length).toBeGreaterThan(CONTRACT.length);
    expect(names.length).toBeLessThanOrEqual(150);
  });
});
