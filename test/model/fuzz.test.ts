/**
 * The loader never throws anything but its own ValidationError, whatever the input: random
 * text, random YAML/JSON values, and random mutations of valid manifests (the examples). In warn
 * mode it never throws at all for parseable input.
 */
import { describe, expect } from "@jest/globals";
import { fc, it } from "@fast-check/jest";
import { stringify } from "yaml";
import { mutate, mutation, paths, validObjects } from "./fuzz-corpus.js";
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
