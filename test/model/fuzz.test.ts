/**
 * The loader never throws anything but its own ValidationError, whatever the input: random
 * text, random YAML/JSON values, and random mutations of valid manifests (the examples). In warn
 * mode it never throws at all for parseable input.
 */
import { describe, expect } from "@jest/globals";
import { fc, it } from "@fast-check/jest";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments, stringify } from "yaml";
import { parseCluster } from "../../src/model/load.js";
import { ValidationError } from "../../src/model/issue.js";

function loadsOrValidationError(text: string, validation: "strict" | "warn" = "strict"): void {
  try {
    parseCluster([{ file: "f.yaml", text }], { validation });
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    expect(e.issues.length).toBeGreaterThan(0);
    for (const i of e.issues) expect(i.message).not.toBe("");
  }
}

const EXAMPLES = [
  "examples/sctp-test-plan",
  "examples/multi-namespace-app",
  "examples/nodeport-loadbalancer",
];
const validObjects: unknown[] = EXAMPLES.flatMap((dir) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .flatMap((f) => {
      const docs = parseAllDocuments(readFileSync(join(dir, f), "utf8"));
      return Array.isArray(docs) ? docs.map((d) => d.toJS() as unknown) : [];
    }),
);

type Path = (string | number)[];
function paths(v: unknown, prefix: Path = []): Path[] {
  const out: Path[] = [prefix];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...prefix, i])));
  else if (v !== null && typeof v === "object")
    for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...prefix, k]));
  return out;
}

type Mutation =
  | { kind: "set"; value: unknown }
  | { kind: "delete" }
  | { kind: "addKey"; key: string; value: unknown };

function mutate(root: unknown, path: Path, m: Mutation): unknown {
  if (path.length === 0)
    return m.kind === "set"
      ? m.value
      : m.kind === "addKey" && root !== null && typeof root === "object" && !Array.isArray(root)
        ? { ...root, [m.key]: m.value }
        : null;
  const copy: unknown = structuredClone(root);
  let cur = copy as Record<string | number, unknown>;
  for (const p of path.slice(0, -1)) cur = cur[p] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (m.kind === "set") cur[last] = m.value;
  else if (m.kind === "delete") {
    if (Array.isArray(cur)) cur.splice(last as number, 1);
    else delete cur[last];
  } else {
    const target = cur[last];
    if (target !== null && typeof target === "object" && !Array.isArray(target))
      (target as Record<string, unknown>)[m.key] = m.value;
    else cur[last] = { [m.key]: m.value };
  }
  return copy;
}

const interestingValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    "SCTP",
    "None",
    "",
    "::ffff:1.2.3.4",
    "010.0.0.1",
    "10.0.0.0/33",
    -1,
    0,
    65536,
    2 ** 31,
    1.5,
    true,
    null,
    [],
    {},
  ),
);
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("set" as const), value: interestingValue }),
  fc.constant({ kind: "delete" as const }),
  fc.record({
    kind: fc.constant("addKey" as const),
    key: fc.constantFrom("__proto__", "constructor", "spec", "x", "ports", "podSelector"),
    value: interestingValue,
  }),
);

describe("loader fuzz", () => {
  it.prop(
    [
      fc.string({
        unit: fc.constantFrom(..."ab:-[]{},'\"&*!|>#\n \t0123456789.%@`?"),
        maxLength: 120,
      }),
    ],
    { numRuns: 300 },
  )("random YAML-ish text", (text) => loadsOrValidationError(text));

  it.prop([fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 3 }), fc.boolean()], {
    numRuns: 150,
  })("random YAML and JSON values", (values, asJson) => {
    const text = asJson
      ? values.map((v) => JSON.stringify(v)).join("\n---\n")
      : values.map((v) => stringify(v)).join("---\n");
    loadsOrValidationError(text);
  });

  it.prop(
    [
      fc
        .constantFrom(...validObjects)
        .chain((obj) => fc.tuple(fc.constant(obj), fc.constantFrom(...paths(obj)), mutation)),
      fc.constantFrom("strict" as const, "warn" as const),
      fc.boolean(),
    ],
    { numRuns: 300 },
  )("random mutations of valid manifests", ([obj, path, m], validation, asList) => {
    const mutated = mutate(obj, path, m);
    const doc = asList ? { apiVersion: "v1", kind: "List", items: [mutated] } : mutated;
    const text = stringify(doc);
    loadsOrValidationError(text, validation);
    if (validation === "warn") {
      // Warn mode only fails on input that is not manifests at all.
      try {
        parseCluster([{ file: "f.yaml", text }], { validation: "warn" });
      } catch (e) {
        expect(e).toBeInstanceOf(ValidationError);
      }
    }
  });
});
