/**
 * The subset reader (src/model/yaml-subset.ts) against the `yaml` package: on random
 * manifest-like YAML, written in random styles and then broken at random, every document it
 * reads has the value `yaml`'s `toJS()` gives, and `yaml` finds no error in it; everything else
 * it declines. The generated texts must also be read, not only declined (counted).
 */
import { describe, expect, test } from "@jest/globals";
import fc from "fast-check";
import { parseAllDocuments } from "yaml";
import { documentStarts } from "../../src/model/yaml-document-bounds.js";
import { DECLINED, readSubsetDocument } from "../../src/model/yaml-subset.js";

/** Plain scalars as a user may spell them: each core-schema form, near misses, odd words. */
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
  "1E-2",
  "1.",
  ".5",
  "-.inf",
  ".Inf",
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
  "FALSE",
  "tRue",
  "yes",
  "on",
  "10.0.0.1",
  "fd00::1",
  "10.0.0.0/8",
  "TCP",
  "1.2.3",
  "-1.2",
  "123456789012345678901",
  "node-a",
  "a b",
  "a:b",
  "a#b",
  "http://h/?q=1&x",
  "a,b",
  "x[1]",
  "x{y}",
  "-x",
  "-",
  "-]",
  "-,",
  "-#",
  "café",
  "x\u2028y",
  "\u00a0x",
  "x\u00a0",
  "\u{1f600}",
  "x\u0085y",
];

/** Plain scalars a writer would not leave plain (used at random all the same). */
const ODD = [
  "- a",
  "a: b",
  "a #b",
  "@x",
  "`x",
  "%x",
  "!x",
  "&x",
  "*x",
  "|",
  ">-",
  "?x",
  ":x",
  "",
  "#x",
  "x:",
];

/** Keys: ordinary fields, and ones a writer must quote (written plain anyway at random). */
const KEYS = [
  "apiVersion",
  "kind",
  "name",
  "port",
  "app.kubernetes.io/name",
  "80",
  "true",
  "null",
  "~",
  "1e3",
  "a b",
  "a: b",
  "#x",
  "-x",
  "x#y",
  "",
  "__proto__",
  "a'b",
  'a"b',
];

type Tree =
  | { readonly t: "scalar"; readonly text: string }
  | { readonly t: "map"; readonly entries: readonly (readonly [string, Tree])[] }
  | { readonly t: "seq"; readonly items: readonly Tree[] };

/** A scalar written plain, single- or double-quoted (JSON's escapes are YAML's too). */
const scalarText = fc.oneof(
  { arbitrary: fc.constantFrom(...PLAIN), weight: 6 },
  { arbitrary: fc.constantFrom(...ODD), weight: 1 },
  fc
    .tuple(fc.oneof(fc.constantFrom(...PLAIN), fc.string({ maxLength: 5 })), fc.nat(2))
    .map(([s, style]) =>
      style === 0 ? s : style === 1 ? `'${s.replaceAll("'", "''")}'` : JSON.stringify(s),
    ),
  fc.constantFrom('"\\x41\\u00e9\\t\\/"', '"\\q"', "'a''b'", '"a\\"b"', "'x"),
);
const keyText = fc.oneof(
  { arbitrary: fc.nat(40).map((n) => `k${n}`), weight: 8 },
  fc.constantFrom(...KEYS),
  fc
    .tuple(fc.constantFrom(...KEYS), fc.boolean())
    .map(([k, single]) => (single ? `'${k.replaceAll("'", "''")}'` : JSON.stringify(k))),
);

const tree: fc.Arbitrary<Tree> = fc.letrec<{ node: Tree }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalarText.map((text): Tree => ({ t: "scalar", text })),
    fc
      .array(fc.tuple(keyText, tie("node")), { maxLength: 4 })
      .map((entries): Tree => ({ t: "map", entries })),
    fc.array(tie("node"), { maxLength: 3 }).map((items): Tree => ({ t: "seq", items })),
  ),
})).node;

/** How a tree is written: indentation, sequence placement, flow style, comments. */
interface Style {
  readonly step: number;
  readonly seqIndented: boolean;
  readonly flowSmall: boolean;
  readonly comments: readonly number[];
}
const style = fc.record({
  step: fc.integer({ min: 1, max: 4 }),
  seqIndented: fc.boolean(),
  flowSmall: fc.boolean(),
  comments: fc.array(fc.nat(5), { maxLength: 6 }),
});

function flowText(n: Tree): string {
  switch (n.t) {
    case "scalar":
      return n.text;
    case "map":
      return `{${n.entries.map(([k, v]) => `${k}: ${flowText(v)}`).join(", ")}}`;
    case "seq":
      return `[${n.items.map(flowText).join(", ")}]`;
  }
}

/** Lines of `n` as the value of a key or an entry, at `indent`. */
function blockLines(n: Tree, indent: number, st: Style): string[] {
  const pad = " ".repeat(indent);
  if (n.t === "scalar" || (st.flowSmall && flowText(n).length < 20))
    return [`${pad}${flowText(n)}`];
  if (n.t === "map") {
    if (n.entries.length === 0) return [`${pad}{}`];
    return n.entries.flatMap(([k, v]) => {
      if (v.t === "scalar" || (st.flowSmall && flowText(v).length < 20))
        return [`${pad}${k}: ${flowText(v)}`];
      const childIndent = v.t === "seq" && !st.seqIndented ? indent : indent + st.step;
      return [`${pad}${k}:`, ...blockLines(v, childIndent, st)];
    });
  }
  if (n.items.length === 0) return [`${pad}[]`];
  return n.items.flatMap((item) => {
    const inner = blockLines(item, indent + 2, st);
    if (item.t === "seq" && !(st.flowSmall && flowText(item).length < 20))
      return [`${pad}-`, ...blockLines(item, indent + st.step, st)];
    // `- ` then the item's first line (compact form for a mapping).
    return [`${pad}- ${inner[0]!.slice(indent + 2)}`, ...inner.slice(1)];
  });
}

/** A document: a mapping or sequence at the top, with comment lines and trailing comments. */
function documentText(n: Tree, st: Style): string {
  const lines = blockLines(n.t === "scalar" ? { t: "map", entries: [["k", n]] } : n, 0, st);
  for (const c of st.comments) {
    const at = c % (lines.length + 1);
    if (c % 2 === 0) lines.splice(at, 0, `${" ".repeat(c)}# comment ${c}`);
    else if (at < lines.length) lines[at] = `${lines[at]!} # trailing`;
  }
  return lines.join("\n");
}

const SEPARATORS = ["---\n", "---\n# c\n", "---\n---\n", "--- # x\n", "\n---\n", "---   \n"];

const stream = fc
  .tuple(fc.array(fc.tuple(tree, style), { minLength: 1, maxLength: 3 }), fc.nat())
  .map(
    ([docs, sep]) =>
      `${docs.map(([t, st]) => documentText(t, st)).join(`\n${SEPARATORS[sep % SEPARATORS.length]!}`)}\n`,
  );

const MUTATION = [":", "-", " ", "\n", "[", "]", "{", "}", "'", '"', "#", ",", "  ", "\t", "a"];

/** A stream, broken at up to two random places in half the cases. */
const texts = fc
  .tuple(
    stream,
    fc.array(fc.tuple(fc.nat(), fc.nat(2), fc.constantFrom(...MUTATION)), { maxLength: 2 }),
  )
  .map(([text, mutations]) =>
    mutations.reduce((t, [at, cut, put]) => {
      const i = at % (t.length + 1);
      return t.slice(0, i) + put + t.slice(i + cut);
    }, text),
  );

/** What `yaml` makes of one document's text: its errors and non-empty values. */
function yamlRead(text: string): { errors: string[]; values: unknown[] } {
  // logLevel: no warning on the console for a collection used as a key (mutations make some).
  const docs = parseAllDocuments(text, { uniqueKeys: true, logLevel: "error" });
  const list = Array.isArray(docs) ? docs : [];
  const errors = list.flatMap((d) => d.errors.map((e) => e.message));
  if (errors.length > 0) return { errors, values: [] };
  try {
    // An empty document is null, or no contents at all: the loader skips both.
    return { errors, values: list.map((d) => d.toJS() as unknown).filter((v) => v !== null) };
  } catch (e) {
    return { errors: [String(e)], values: [] }; // an alias without its anchor
  }
}

describe("subset YAML reader", () => {
  test("reads what it reads as yaml does, and declines the rest (property)", () => {
    let read = 0;
    let declined = 0;
    fc.assert(
      fc.property(texts, (text) => {
        const starts = documentStarts(text);
        if (starts === undefined) return;
        starts.forEach((from, k) => {
          const to = starts[k + 1] ?? text.length;
          const value = readSubsetDocument(text, from, to);
          if (value === DECLINED) {
            declined++;
            return;
          }
          read++;
          const slice = text.slice(from, to);
          expect({ slice, ...yamlRead(slice) }).toEqual({
            slice,
            errors: [],
            values: value === null ? [] : [value],
          });
        });
      }),
      { seed: 17, numRuns: 800 },
    );
    // Both answers must occur often: the generator reaches the subset and what lies outside it.
    expect(read).toBeGreaterThan(500);
    expect(declined).toBeGreaterThan(200);
  });

  test("documents read one by one are the stream's documents (property)", () => {
    let whole = 0;
    fc.assert(
      fc.property(texts, (text) => {
        const starts = documentStarts(text);
        if (starts === undefined) return;
        const values = starts.map((from, k) =>
          readSubsetDocument(text, from, starts[k + 1] ?? text.length),
        );
        if (values.includes(DECLINED)) return;
        whole++;
        expect({ text, ...yamlRead(text) }).toEqual({
          text,
          errors: [],
          values: values.filter((v) => v !== null),
        });
      }),
      { seed: 5, numRuns: 500 },
    );
    expect(whole).toBeGreaterThan(80);
  });

  test("reads a Kubernetes manifest in the usual styles", () => {
    const text = `# a Service
apiVersion: v1
kind: Service
metadata:
  name: web   # trailing
  labels: {app: web, "tier": 'front'}
spec:
  ipFamilies: [IPv4]
  selector: {}
  ports:
  - name: http
    port: 80
    targetPort: "8080"
  -   name: dns
      protocol: UDP
      port: 53
  externalIPs:
    - 192.0.2.1
`;
    expect(readSubsetDocument(text, 0, text.length)).toEqual(yamlRead(text).values[0]);
    expect(yamlRead(text).values).toHaveLength(1);
  });

  test("declines what it does not model", () => {
    for (const text of [
      "a: &x 1\nb: *x\n",
      "a: !!str 1\n",
      "? a\n: b\n",
      "a: |\n  x\n",
      "a: b\n  c\n",
      "a: 'x\n  y'\n",
      "a: [1,\n  2]\n",
      "a: 1\na: 2\n",
      "a:\t1\n",
      "a: 1\r\n",
      "~: 1\n",
      "a: {b}\n",
      "a: [b,]\n",
      '"x"#c: 1\n',
      "- - a\n",
      "a: b: c\n",
      "--- a: 1\n",
      "a: [-]\n",
      "a: [b, -]\n",
    ])
      expect(readSubsetDocument(text, 0, text.length)).toBe(DECLINED);
  });

  test("splits a stream at document markers only", () => {
    expect(documentStarts("a: 1\n---\nb: 2\n--- # c\nc: ---\n---x: 1\n")).toEqual([0, 5, 14]);
    expect(documentStarts("%YAML 1.2\n---\na: 1\n")).toBeUndefined();
    expect(documentStarts("a: 1\n...\n")).toBeUndefined();
    expect(documentStarts("\uFEFFa: 1\n")).toBeUndefined();
  });
});
