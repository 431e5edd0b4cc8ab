import { describe, expect } from "@jest/globals";
import { fc, it, test } from "@fast-check/jest";
import { deepFreeze } from "../../src/util/plain.js";

/** Every object and array reachable from `v`. */
function containers(v: unknown, out: object[] = []): object[] {
  if (typeof v !== "object" || v === null) return out;
  out.push(v);
  for (const x of Array.isArray(v) ? v : Object.values(v)) containers(x, out);
  return out;
}

describe("deepFreeze", () => {
  it.prop([fc.jsonValue().map((v) => ({ v, list: [v] }))], { numRuns: 200, seed: 17 })(
    "freezes every object and array of plain data and keeps its value",
    (data) => {
      const before = structuredClone(data);
      expect(deepFreeze(data)).toBe(data);
      const all = containers(data);
      expect(all.length).toBeGreaterThan(1);
      for (const c of all) expect(Object.isFrozen(c)).toBe(true);
      expect(data).toEqual(before);
    },
  );

  test("leaves class instances and Maps as they are, as immer does", () => {
    class Box {
      value = { n: 1 };
    }
    const data = { box: new Box(), map: new Map([["k", { n: 2 }]]), nested: { n: 3 } };
    deepFreeze(data);
    expect(Object.isFrozen(data)).toBe(true);
    expect(Object.isFrozen(data.nested)).toBe(true);
    expect(Object.isFrozen(data.box)).toBe(false);
    expect(Object.isFrozen(data.map)).toBe(false);
  });
});
