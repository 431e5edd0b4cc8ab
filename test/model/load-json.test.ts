/**
 * The JSON decoder (src/model/json-fast.ts) gives the `yaml` path's values, and declines where
 * they could differ or the `yaml` path reports something: random JSON values written with
 * random indentation and broken in the ways JSON and YAML differ (a duplicate key, a tab, a DEL
 * or C1 character, a byte-order mark, a `__proto__` key, deep nesting), and whole manifests
 * (`kubectl get -o json` Lists and `---`-separated JSON documents) loaded with the fast decoders
 * and with the `yaml` path alone: the same objects, issues and positions.
 */
import { describe, expect, test } from "@jest/globals";
import fc from "fast-check";
import { parseAllDocuments } from "yaml";
import { decodeJson } from "../../src/model/json-fast.js";
import { MAX_YAML_DEPTH, tooDeepAt } from "../../src/model/yaml-depth.js";
import { loadOutcome } from "./helpers.js";
import { soakRuns } from "../helpers/soak.js";

// KUBE_NETSIM_SOAK: the full count, times k.
const ACCEPT_RUNS = soakRuns(250, 600);

/** Ways a JSON text can hold what YAML reads otherwise or refuses. */
const BREAKS: readonly ((json: string) => string)[] = [
  (t) => t,
  (t) => t.replace(/\{"/, '{"dup":1,"dup":2,"'),
  (t) => t.replace(/\{"([^"]*)":/, '{"$1":0,"$1":'),
  (t) => t.replace(/,/, ",\t"),
  (t) => t.replace(/"/, '"\u007f'),
  (t) => t.replace(/"/, '"\u0085'),
  (t) => t.replace(/"/, '"\u2028'),
  (t) => `\ufeff${t}`,
  (t) => t.replace(/\{/, '{"__proto__":{},'),
  (t) => `---\n${t}`,
  (t) => `--- ${t}`,
  (t) => `  ---\n${t}`,
  (t) => `${t}\n---\n`,
  (t) => `${t} # c`,
  (t) => `${"[".repeat(MAX_YAML_DEPTH)}${t}${"]".repeat(MAX_YAML_DEPTH)}`,
  (t) => `${"[".repeat(MAX_YAML_DEPTH - 2)}${t}${"]".repeat(MAX_YAML_DEPTH - 2)}`,
  (t) => `${"[".repeat(MAX_YAML_DEPTH - 8)}${t}${"]".repeat(MAX_YAML_DEPTH - 8)}`,
];

/** The `yaml` path's values of `text`, or its first error. */
function yamlValues(text: string): { values: unknown[] } | { error: string } {
  const docs = parseAllDocuments(text, { uniqueKeys: true });
  const list = Array.isArray(docs) ? docs : [];
  const error = list.flatMap((d) => d.errors)[0];
  if (error !== undefined) return { error: error.message };
  return { values: list.map((d) => d.toJS({ maxAliasCount: -1 }) as unknown) };
}

describe("JSON decoder", () => {
  test("accepts only what the yaml path reads, with the same values (property)", () => {
    let accepted = 0;
    let declined = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.dictionary(fc.string({ unit: "binary", maxLength: 4 }), fc.jsonValue({ maxDepth: 3 })),
          fc.array(fc.jsonValue({ maxDepth: 3, stringUnit: "binary" })),
        ),
        fc.constantFrom(0, 1, 2, "  \r\n"),
        fc.nat(BREAKS.length - 1),
        (value, indent, k) => {
          const text = BREAKS[k]!(
            typeof indent === "number"
              ? JSON.stringify(value, null, indent)
              : JSON.stringify(value).replaceAll(",", `,${indent}`),
          );
          const fast = decodeJson(text, MAX_YAML_DEPTH);
          if (fast === undefined) {
            declined++;
            return;
          }
          accepted++;
          const slow = yamlValues(text);
          expect({ text, slow }).toEqual({ text, slow: { values: fast.values } });
          // Within the loader's nesting limit, as its own measure says.
          expect(tooDeepAt(text)).toBeUndefined();
          // Object.is: +0 and -0 stay apart in toEqual, so the numbers agree exactly.
          expect(text.indexOf(text.trim().replace(/^---\s*/, "")[0]!)).toBeLessThanOrEqual(
            fast.starts[0]!,
          );
        },
      ),
      { seed: 11, numRuns: ACCEPT_RUNS },
    );
    expect(accepted).toBeGreaterThan(ACCEPT_RUNS / 6);
    expect(declined).toBeGreaterThan(ACCEPT_RUNS / 6);
  });

  test.each([
    ['{"a": 1, "a": 2}', "a duplicate key"],
    ['{"a": {"b": 1, "b": 1}}', "a nested duplicate key"],
    ['{"a":\t1}', "a tab"],
    ['{"a": "x\u007fy"}', "DEL in a string"],
    ['{"a": "x\u0090y"}', "a C1 control in a string"],
    ['\ufeff{"a": 1}', "a byte-order mark"],
    ['{"__proto__": {"a": 1}}', "a __proto__ key"],
    [`${"[".repeat(MAX_YAML_DEPTH + 1)}${"]".repeat(MAX_YAML_DEPTH + 1)}`, "nesting too deep"],
    ['{"a": 1} # c', "a comment"],
    ["{a: 1}", "flow YAML"],
    ['"a"', "a top-level string"],
    ['  ---\n{"a": 1}', "an indented ---, a plain scalar"],
    ["", "nothing"],
  ])("declines %j (%s)", (text) => {
    expect(decodeJson(text, MAX_YAML_DEPTH)).toBeUndefined();
  });

  test("reads a document after its --- marker, with the value's offset", () => {
    expect(decodeJson('---\n {"a": [1, "b\\"", {"c": -0.5e1}]}\n', MAX_YAML_DEPTH)).toEqual({
      values: [{ a: [1, 'b"', { c: -5 }] }],
      starts: [5],
    });
    // Deep, within the loader's limit by its own measure; near the limit the other paths
    // measure it.
    for (const [levels, within] of [
      [MAX_YAML_DEPTH - 4, true],
      [MAX_YAML_DEPTH - 3, false],
      [MAX_YAML_DEPTH, false],
    ] as const) {
      const text = `${"[".repeat(levels)}1${"]".repeat(levels)}`;
      if (within) expect(tooDeepAt(text)).toBeUndefined();
      expect(decodeJson(text, MAX_YAML_DEPTH) !== undefined).toBe(within);
    }
  });
});

/** A Service-like object with some invalid fields (wrong types, unknown fields, bad addresses). */
const service = fc.record({
  name: fc.constantFrom("a", "b", "web", "a"),
  namespace: fc.constantFrom(undefined, "default", "ns1"),
  port: fc.oneof(fc.integer({ min: -1, max: 70000 }), fc.constantFrom("80", "http", null)),
  protocol: fc.constantFrom("TCP", "UDP", "SCTP", "tcp", 6),
  clusterIP: fc.constantFrom("10.96.0.10", "None", "10.96.0.300", "", 5),
  extra: fc.option(fc.constantFrom("bogusField", "selector", "externalIPs"), { nil: undefined }),
});
type Svc = typeof service extends fc.Arbitrary<infer T> ? T : never;

function serviceObject(s: Svc): unknown {
  const extra =
    s.extra === undefined
      ? {}
      : { [s.extra]: s.extra === "externalIPs" ? ["1.2.3.4", "x"] : { app: "a" } };
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: s.name, ...(s.namespace === undefined ? {} : { namespace: s.namespace }) },
    spec: { clusterIP: s.clusterIP, ports: [{ port: s.port, protocol: s.protocol }], ...extra },
  };
}

const jsonManifests = fc
  .record({
    services: fc.array(service, { minLength: 1, maxLength: 4 }),
    shape: fc.constantFrom("list", "documents", "one"),
    indent: fc.constantFrom(0, 2, 4),
  })
  .map(({ services, shape, indent }) => {
    const json = (v: unknown) => JSON.stringify(v, null, indent);
    const objects = services.map(serviceObject);
    if (shape === "list") return `${json({ apiVersion: "v1", kind: "List", items: objects })}\n`;
    if (shape === "one") return `${json(objects[0])}\n`;
    return `${objects.map(json).join("\n---\n")}\n`;
  });

describe("JSON manifests", () => {
  test("load as on the yaml path: objects, issues and FILE:LINE:COL (property)", () => {
    let json = 0;
    fc.assert(
      fc.property(jsonManifests, fc.boolean(), (text, crlf) => {
        const written = crlf ? text.replaceAll("\n", "\r\n") : text;
        const first = written.split(/\r?\n---\r?\n/)[0]!;
        if (decodeJson(first, MAX_YAML_DEPTH) !== undefined) json++;
        const expected = loadOutcome(written, "yaml");
        expect(loadOutcome(written, "fast")).toEqual(expected);
        expect(loadOutcome(written, "fast", true)).toEqual(expected);
        expect(loadOutcome(written, "streamed", true)).toEqual(expected);
      }),
      { seed: 5, numRuns: 120 },
    );
    // The property is about the JSON path: most generated texts must take it.
    expect(json).toBeGreaterThan(100);
  });
});
