/**
 * The text a REPL edit hands the loader for the session's unchanged objects (objectsManifest):
 * JSON where JSON keeps the value, YAML where it would not. Whatever was written, the loader
 * reads back the same values.
 */
import { describe, expect, test } from "@jest/globals";
import fc from "fast-check";
import { readManifests } from "../../src/model/yaml-documents.js";
import { objectsManifest, type SessionObject } from "../../src/repl/objects.js";

/** JSON-like values with every number a double can be (NaN, ±Infinity, -0 included). */
const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.string(),
    fc.double(),
    fc.constantFrom(-0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("v"), { maxLength: 4 }),
    fc.dictionary(
      fc.string({ minLength: 1 }).filter((k) => k !== "__proto__"),
      tie("v"),
      {
        maxKeys: 4,
      },
    ),
  ),
})).v;

const sessionObject = (k: number, data: unknown): SessionObject => ({
  kind: "Pod",
  namespace: "default",
  name: `p${k}`,
  value: { apiVersion: "v1", kind: "Pod", metadata: { name: `p${k}` }, data },
});

function readBack(objects: readonly SessionObject[]): unknown[] {
  const read = readManifests([{ file: "<session>", text: objectsManifest(objects) }]);
  expect(read.issues).toEqual([]);
  return read.objects.map((o) => o.value);
}

describe("objectsManifest", () => {
  test("the loader reads back every value as it was", () => {
    expect.hasAssertions();
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 4 }), (datas) => {
        const objects = datas.map((d, k) => sessionObject(k, d));
        expect(readBack(objects)).toEqual(objects.map((o) => o.value));
      }),
      { numRuns: 300, seed: 17 },
    );
  });

  test("JSON where it keeps the value, YAML where it would not", () => {
    const text = objectsManifest([
      sessionObject(0, { port: 80, name: "a: b" }),
      sessionObject(1, { weight: -0 }),
      sessionObject(2, { ratio: Number.NaN, cap: Number.POSITIVE_INFINITY }),
    ]);
    const docs = text.split("---\n");
    expect(docs).toHaveLength(3);
    expect(docs[0]).toBe(
      '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p0"},"data":{"port":80,"name":"a: b"}}\n',
    );
    expect(docs[1]).toContain("weight: -0");
    expect(docs[2]).toMatch(/ratio: \.nan\n[\s\S]*cap: \.inf\n/);
    const back = readBack([sessionObject(1, { weight: -0 })])[0] as { data: { weight: number } };
    expect(Object.is(back.data.weight, -0)).toBe(true);
  });
});
