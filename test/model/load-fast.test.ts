/**
 * The loader's decoders (src/model/yaml-subset.ts and yaml-fast.ts without positions, the
 * `yaml` path with them) give the same objects, issues and positions: each generated text is
 * loaded with the fast decoders (the default) and with the `yaml` path alone.
 */
import { describe, expect, test } from "@jest/globals";
import { loadOutcome } from "./helpers.js";
import fc from "fast-check";
import { parseAllDocuments, stringify } from "yaml";
import { clusterFromManifests, parseCluster } from "../../src/model/load.js";
import {
  readManifests,
  type Decoders,
  type ManifestInput,
} from "../../src/model/yaml-documents.js";
import { decodeFast } from "../../src/model/yaml-fast.js";
import { MAX_YAML_DEPTH } from "../../src/model/yaml-depth.js";
import { soakRuns } from "../helpers/soak.js";

// Runs of the two slow-path comparisons (KUBE_NETSIM_SOAK: the full counts, times k).
const OBJECT_RUNS = soakRuns(50, 100);
const INVALID_RUNS = soakRuns(100, 200);

const outcome = loadOutcome;

/** Plain scalars as a user may spell them: each core-schema form, and near misses. */
const PLAIN = [
  "80",
  "+12",
  "-0",
  "012",
  "0o17",
  "0o8",
  "0x1F",
  "0xg",
  "1e3",
  "1.",
  ".5",
  "-.inf",
  ".NaN",
  "1_000",
  "0b1",
  "~",
  "null",
  "Null",
  "NULL",
  "nUll",
  "true",
  "True",
  "TRUE",
  "tRue",
  "yes",
  "on",
  "10.0.0.1",
  "TCP",
  "1.2.3",
  "1..2",
  "-1.2.3",
  ".5.",
  "node-a",
  "",
];

const scalar = fc.oneof(
  fc.constantFrom(...PLAIN).map((s) => ({ raw: s })),
  fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean(), fc.constant(null)),
);

/** A Service-like object with plain-scalar leaves, some valid, some not. */
const service = fc.record({
  name: fc.constantFrom("a", "b", "web", "a"),
  namespace: fc.constantFrom(undefined, "default", "ns1"),
  port: scalar,
  targetPort: scalar,
  protocol: scalar,
  clusterIP: fc.oneof(scalar, fc.constant({ raw: "10.96.0.10" })),
  extra: fc.option(fc.constantFrom("selector", "bogusField", "externalIPs"), { nil: undefined }),
});

type Scalar = { raw: string } | string | number | boolean | null;
type Svc = typeof service extends fc.Arbitrary<infer T> ? T : never;

function scalarText(s: Scalar, flow: boolean): string {
  if (s !== null && typeof s === "object") return s.raw;
  return stringify(s, flow ? { collectionStyle: "flow" } : {}).trimEnd();
}

function serviceText(s: Svc, flow: boolean): string {
  const meta = `metadata: {name: ${s.name}${s.namespace === undefined ? "" : `, namespace: ${s.namespace}`}}`;
  const port = flow
    ? `  ports: [{port: ${scalarText(s.port, true)}, targetPort: ${scalarText(s.targetPort, true)}, protocol: ${scalarText(s.protocol, true)}}]`
    : `  ports:\n  - port: ${scalarText(s.port, false)}\n    targetPort: ${scalarText(s.targetPort, false)}\n    protocol: ${scalarText(s.protocol, false)}`;
  const extra =
    s.extra === undefined
      ? ""
      : `\n  ${s.extra}: ${s.extra === "externalIPs" ? "[1.2.3.4, x]" : "{app: a}"}`;
  return `apiVersion: v1\nkind: Service\n${meta}\nspec:\n  clusterIP: ${scalarText(s.clusterIP, false)}\n${port}${extra}`;
}

const manifests = fc
  .record({
    services: fc.array(fc.tuple(service, fc.boolean()), { minLength: 1, maxLength: 4 }),
    separator: fc.constantFrom("---\n", "---\n# c\n", "---\n---\n", "--- # x\n"),
    asList: fc.boolean(),
  })
  .map(({ services, separator, asList }) => {
    if (asList) {
      const items = services.map(([s, flow]) =>
        serviceText(s, flow)
          .split("\n")
          .map((l, i) => (i === 0 ? `- ${l}` : `  ${l}`))
          .join("\n"),
      );
      return `apiVersion: v1\nkind: List\nitems:\n${items.join("\n")}\n`;
    }
    return `${services.map(([s, flow]) => serviceText(s, flow)).join(`\n${separator}`)}\n`;
  });

/** A manifest in several styles, mutated at random to break its syntax in small ways. */
const STYLES = `apiVersion: v1
kind: Service
metadata: {name: a, namespace: "x y", labels: {app: 'q'}}
spec:
  ports:
  - port: 80
    name: "h"
  - {port: 53, protocol: UDP}
  selector:
    app: a # c
---
- a
- [b, c]
- key: |
    text
  other: >-
    folded
    more
`;
const MUTATION = [
  ":",
  "-",
  " ",
  "\n",
  "[",
  "]",
  "{",
  "}",
  "'",
  '"',
  "#",
  ",",
  "  ",
  "|",
  ">",
  "a",
  "\\",
];

describe("loader fast path", () => {
  test("accepts only what the yaml path accepts, with the same values (property)", () => {
    let accepted = 0;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(STYLES.length), fc.nat(3), fc.constantFrom(...MUTATION)), {
          minLength: 1,
          maxLength: 3,
        }),
        (mutations) => {
          let text = STYLES;
          for (const [at, cut, put] of mutations)
            text = text.slice(0, at) + put + text.slice(at + cut);
          const fast = decodeFast(text, MAX_YAML_DEPTH);
          if (fast === undefined) return;
          accepted++;
          const docs = parseAllDocuments(text, { uniqueKeys: true });
          const list = Array.isArray(docs) ? docs : [];
          expect({ text, errors: list.flatMap((d) => d.errors.map((e) => e.message)) }).toEqual({
            text,
            errors: [],
          });
          expect(fast.values.filter((v) => v !== null)).toEqual(
            list
              .flatMap((d) => (d.contents === null ? [] : [d.toJS() as unknown]))
              .filter((v) => v !== null),
          );
        },
      ),
      { seed: 3, numRuns: 1000 },
    );
    expect(accepted).toBeGreaterThan(100);
  });

  test("gives the slow path's objects, issues and positions (property)", () => {
    let fast = 0;
    fc.assert(
      fc.property(manifests, (text) => {
        if (decodeFast(text, MAX_YAML_DEPTH) !== undefined) fast++;
        const expected = outcome(text, "yaml");
        expect(outcome(text, "fast")).toEqual(expected);
        expect(outcome(text, "fast", true)).toEqual(expected);
        expect(outcome(text, "streamed", true)).toEqual(expected);
        // Written with CR LF line ends (the subset reader reads a copy with LF).
        const crlf = text.replaceAll("\n", "\r\n");
        expect(outcome(crlf, "fast")).toEqual(outcome(crlf, "yaml"));
        expect(outcome(crlf, "fast", true)).toEqual(outcome(crlf, "yaml"));
      }),
      { seed: 17, numRuns: OBJECT_RUNS },
    );
    // The property is about the fast path: most generated texts must take it.
    expect(fast).toBeGreaterThan(OBJECT_RUNS / 2);
  });

  test("gives the slow path's FILE:LINE:COL and paths on invalid input (property)", () => {
    let reported = 0;
    fc.assert(
      fc.property(
        manifests,
        fc.array(fc.tuple(fc.nat(), fc.nat(2), fc.constantFrom(...MUTATION, "&a ", "*a", "  x")), {
          maxLength: 2,
        }),
        (valid, mutations) => {
          // Broken at random: syntax errors, fields moved into other objects, stray anchors.
          const text = mutations.reduce((t, [at, cut, put]) => {
            const i = at % (t.length + 1);
            return t.slice(0, i) + put + t.slice(i + cut);
          }, valid);
          const expected = outcome(text, "yaml");
          if (JSON.stringify(expected).includes("m.yaml:")) reported++;
          expect({ text, got: outcome(text, "fast") }).toEqual({ text, got: expected });
          // As a file is read: the bytes too (read as they are when ASCII).
          expect({ text, got: outcome(text, "fast", true) }).toEqual({ text, got: expected });
          // Loaded as it is decoded: the same, where a document's error sends the one before
          // it to be read again, and where the file is read whole after all.
          expect({ text, got: outcome(text, "streamed", true) }).toEqual({ text, got: expected });
        },
      ),
      { seed: 29, numRuns: INVALID_RUNS },
    );
    // Most broken texts must be reported (not all: a mutation can leave a valid text).
    expect(reported).toBeGreaterThan(INVALID_RUNS * 0.6);
  });

  test("merge keys and __proto__ are left to the yaml path", () => {
    for (const text of [
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n<<: {b: 1}\n",
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: a, <<: {b: 1}}\n",
      "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  __proto__: {b: 1}\n",
    ])
      expect(outcome(text, "fast")).toEqual(outcome(text, "yaml"));
  });

  test.each<Decoders>(["yaml", "fast"])(
    "%s: positions after a syntax error are the text's own lines",
    (decoders) => {
      // yaml's LineCounter misses the line break after `*aapiVersion: v1` (the lexer skips it
      // while recovering), which put every later position a line early.
      const text =
        "*aapiVersion: v1\nkind: Namespace\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n";
      const read = readManifests([{ file: "m.yaml", text }], decoders);
      expect(read.issues.map((i) => [i.source?.line, i.source?.col])).toEqual([[1, 15]]);
      expect(read.objects).toHaveLength(1);
      expect(read.objects[0]!.positions["metadata.name"]).toEqual({
        file: "m.yaml",
        line: 6,
        col: 12,
      });
    },
  );

  test("a syntax error in a document of a large file: the other documents on the fast path", () => {
    // A flow mapping left open ends at the next document marker: the documents after it are
    // read as usual, and the result is the whole-file reading's.
    const docs = Array.from(
      { length: 40 },
      (_, i) => `apiVersion: v1\nkind: Namespace\nmetadata: {name: n${i}}\n`,
    );
    docs[7] = "apiVersion: v1\nkind: Namespace\nmetadata: {name: broken\n";
    docs[30] = `'apiVersion: v1\nkind: Namespace\n`; // a quote left open runs to the file's end
    const text = docs.join("---\n");
    expect(outcome(text, "fast")).toEqual(outcome(text, "yaml"));
    expect(outcome(text, "streamed", true)).toEqual(outcome(text, "yaml"));
    expect(JSON.stringify(outcome(text, "fast"))).toContain("m.yaml:");
  });

  test("loaded as decoded: a file read whole after some of its objects were loaded", () => {
    // The last document nests too deep: the `yaml` path reads the whole file to report it, after
    // the first ones were loaded as they were read; the load starts again, with the same result.
    const ns = (name: string): string =>
      `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${name}}\n`;
    const deep = `apiVersion: v1\nkind: Namespace\nmetadata: {name: d}\nx: ${"[".repeat(MAX_YAML_DEPTH + 1)}${"]".repeat(MAX_YAML_DEPTH + 1)}\n`;
    const text = [ns("a"), ns("b"), ns("c"), deep].join("---\n");
    const expected = outcome(text, "yaml");
    expect(JSON.stringify(expected)).toContain(`YAML nesting deeper than ${MAX_YAML_DEPTH} levels`);
    expect(outcome(text, "streamed", true)).toEqual(expected);
    expect(outcome(text, "streamed")).toEqual(expected);
  });

  test("a document only the yaml path reads, among fast ones: the same positions", () => {
    const text = `apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Namespace\nmetadata: &m {name: b}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: c, bogus: 1}\n`;
    expect(outcome(text, "fast")).toEqual(outcome(text, "yaml"));
    expect(JSON.stringify(outcome(text, "fast"))).toContain("m.yaml:11:21");
  });

  test("a file's ASCII bytes are read as they are: its text is decoded only for a position", () => {
    const ns = (name: string): string =>
      `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${name}}\n`;
    const input = (text: string): ManifestInput & { decoded: number } => {
      const bytes = Buffer.from(text, "utf8");
      return {
        file: "m.yaml",
        bytes,
        decoded: 0,
        get text() {
          this.decoded++;
          return bytes.toString("utf8");
        },
      };
    };
    const valid = input(`${ns("a")}---\n${ns("b")}`);
    const c = clusterFromManifests(readManifests([valid]));
    expect(c.namespaces.map((n) => n.metadata?.name)).toEqual(["a", "b"]);
    expect(valid.decoded).toBe(0);
    // Nor for an error's position when the file is ASCII: its lines are counted in the bytes.
    const errorText = `${ns("a")}---\n# c\napiVersion: v1\nkind: Namespace\nmetadata: {name: b, annotations: {a: 1}}\n`;
    const asciiError = input(errorText);
    const asText = outcome(errorText, "yaml");
    expect(JSON.stringify(asText)).toContain("m.yaml:8:");
    expect(outcome(errorText, "streamed", true)).toEqual(asText);
    expect(() => parseCluster([asciiError])).toThrow(/^m\.yaml:8:/);
    expect(asciiError.decoded).toBe(0);
    // An error's position is the text's (in characters), with a two-byte character before it.
    const invalid = input(
      `${ns("a")}---\n# é\napiVersion: v1\nkind: Namespace\nmetadata: {annotations: {a: é}, name: é}\n`,
    );
    expect(() => clusterFromManifests(readManifests([invalid]))).toThrow(/^m\.yaml:8:33: /);
    expect(invalid.decoded).toBeGreaterThan(0);
  });

  test("plain scalars resolve as the yaml core schema says", () => {
    const text = PLAIN.map((p, i) => `k${i}: ${p}`).join("\n");
    const fast = decodeFast(text, MAX_YAML_DEPTH);
    expect(fast?.values).toHaveLength(1);
    expect(fast?.values[0]).toEqual(
      Object.fromEntries(
        PLAIN.map((p, i) => [`k${i}`, (outcomeOfScalar(p) as Record<string, unknown>)["v"]]),
      ),
    );
  });

  test("declines what only the slow path models", () => {
    for (const text of [
      "a: &x 1\nb: *x\n",
      "a: !!str 1\n",
      "? a\n: b\n",
      "<<: {a: 1}\n",
      "%YAML 1.2\n---\na: 1\n",
      "a: 1\n...\n",
      "a:\t1\n",
      "a: 1\na: 2\n",
      "a: [\n",
    ])
      expect(decodeFast(text, MAX_YAML_DEPTH)).toBeUndefined();
    expect(decodeFast("a: 'x&y'\nb: http://h/?q=1\n", MAX_YAML_DEPTH)).toBeDefined();
  });
});

/** The `yaml` path's value of one plain scalar. */
function outcomeOfScalar(p: string): unknown {
  const text = `apiVersion: v1\nkind: Namespace\nmetadata: {name: n, labels: {}}\nv: ${p}\n`;
  const read = readManifests([{ file: "s.yaml", text }], "yaml");
  return clusterFromManifests(read, { validation: "warn" }).namespaces[0];
}
