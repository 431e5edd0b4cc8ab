import { describe, expect } from "@jest/globals";
import { fc, it, test } from "@fast-check/jest";
import { isEmptySelector, matchesLabelSelector } from "../../src/model/selector.js";
import { labelSelector, selectorLabels } from "../../src/testing/arbitraries/labelSelector.js";
import type { LabelSelector } from "../../src/model/kinds.js";

const RUNS = { numRuns: 200 };

describe("matchesLabelSelector", () => {
  test.each<[string, LabelSelector, Record<string, string> | undefined, boolean]>([
    ["empty selector, no labels", {}, undefined, true],
    ["empty selector, labels", {}, { a: "b" }, true],
    ["matchLabels hit", { matchLabels: { app: "web" } }, { app: "web", x: "y" }, true],
    ["matchLabels wrong value", { matchLabels: { app: "web" } }, { app: "db" }, false],
    ["matchLabels missing key", { matchLabels: { app: "web" } }, {}, false],
    ["matchLabels empty value", { matchLabels: { app: "" } }, { app: "" }, true],
    [
      "In hit",
      { matchExpressions: [{ key: "a", operator: "In", values: ["1", "2"] }] },
      { a: "2" },
      true,
    ],
    [
      "In missing key",
      { matchExpressions: [{ key: "a", operator: "In", values: ["1"] }] },
      {},
      false,
    ],
    [
      "NotIn missing key matches",
      { matchExpressions: [{ key: "a", operator: "NotIn", values: ["1"] }] },
      {},
      true,
    ],
    [
      "NotIn listed value",
      { matchExpressions: [{ key: "a", operator: "NotIn", values: ["1"] }] },
      { a: "1" },
      false,
    ],
    [
      "NotIn other value",
      { matchExpressions: [{ key: "a", operator: "NotIn", values: ["1"] }] },
      { a: "2" },
      true,
    ],
    [
      "Exists with empty value",
      { matchExpressions: [{ key: "a", operator: "Exists" }] },
      { a: "" },
      true,
    ],
    ["Exists missing", { matchExpressions: [{ key: "a", operator: "Exists" }] }, { b: "" }, false],
    [
      "DoesNotExist missing",
      { matchExpressions: [{ key: "a", operator: "DoesNotExist" }] },
      {},
      true,
    ],
    [
      "DoesNotExist present",
      { matchExpressions: [{ key: "a", operator: "DoesNotExist" }] },
      { a: "x" },
      false,
    ],
    [
      "matchLabels AND matchExpressions",
      { matchLabels: { a: "1" }, matchExpressions: [{ key: "b", operator: "Exists" }] },
      { a: "1" },
      false,
    ],
    [
      "an unknown operator selects nothing",
      { matchExpressions: [{ key: "a", operator: "Gt", values: ["1"] }] },
      { a: "2" },
      false,
    ],
    [
      "inherited keys are not labels",
      { matchExpressions: [{ key: "toString", operator: "Exists" }] },
      {},
      false,
    ],
  ])("%s", (_n, selector, labels, expected) => {
    expect(matchesLabelSelector(selector, labels)).toBe(expected);
  });

  test("isEmptySelector", () => {
    expect(isEmptySelector({})).toBe(true);
    expect(isEmptySelector({ matchLabels: {}, matchExpressions: [] })).toBe(true);
    expect(isEmptySelector({ matchLabels: { a: "" } })).toBe(false);
  });

  it.prop([labelSelector(), selectorLabels()], RUNS)(
    "a selector is the AND of its single requirements",
    (sel, labels) => {
      const parts: LabelSelector[] = [
        ...Object.entries(sel.matchLabels ?? {}).map(([k, v]) => ({ matchLabels: { [k]: v } })),
        ...(sel.matchExpressions ?? []).map((r) => ({ matchExpressions: [r] })),
      ];
      expect(matchesLabelSelector(sel, labels)).toBe(
        parts.every((p) => matchesLabelSelector(p, labels)),
      );
    },
  );

  it.prop(
    [
      fc.constantFrom("app", "tier"),
      fc.uniqueArray(fc.constantFrom("a", "b", ""), { minLength: 1 }),
      selectorLabels(),
    ],
    RUNS,
  )(
    "NotIn is the negation of In when the key is present, and true when it is absent",
    (key, values, labels) => {
      const inSel = matchesLabelSelector(
        { matchExpressions: [{ key, operator: "In", values }] },
        labels,
      );
      const notIn = matchesLabelSelector(
        { matchExpressions: [{ key, operator: "NotIn", values }] },
        labels,
      );
      if (key in labels) expect(notIn).toBe(!inSel);
      else expect([inSel, notIn]).toEqual([false, true]);
    },
  );

  it.prop([fc.constantFrom("app", "tier", "env"), selectorLabels()], RUNS)(
    "DoesNotExist is the negation of Exists",
    (key, labels) => {
      const exists = matchesLabelSelector(
        { matchExpressions: [{ key, operator: "Exists" }] },
        labels,
      );
      expect(
        matchesLabelSelector({ matchExpressions: [{ key, operator: "DoesNotExist" }] }, labels),
      ).toBe(!exists);
      expect(exists).toBe(Object.prototype.hasOwnProperty.call(labels, key));
    },
  );

  it.prop(
    [
      labelSelector(),
      selectorLabels(),
      fc.constantFrom("app", "tier", "env"),
      fc.constantFrom("a", "b", ""),
    ],
    RUNS,
  )("matchLabels {k: v} is the same as In [v]", (sel, labels, k, v) => {
    const a = matchesLabelSelector(
      { ...sel, matchLabels: { ...(sel.matchLabels ?? {}), [k]: v } },
      labels,
    );
    const b = matchesLabelSelector(
      {
        matchLabels: Object.fromEntries(
          Object.entries(sel.matchLabels ?? {}).filter(([kk]) => kk !== k),
        ),
        matchExpressions: [
          ...(sel.matchExpressions ?? []),
          { key: k, operator: "In", values: [v] },
        ],
      },
      labels,
    );
    expect(a).toBe(b);
  });
});
