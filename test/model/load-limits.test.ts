/**
 * Inputs that used to crash or exhaust the loader (issue #19 items 5 and 10): a self-referencing
 * alias, and nesting deeper than MAX_YAML_DEPTH. Each is one positioned error in every loader
 * (manifests, --proxy-config, --node-env).
 */
import { describe, expect, test } from "@jest/globals";
import { parseCluster } from "../../src/model/load.js";
import { formatIssue, ValidationError } from "../../src/model/issue.js";
import { parseProxyConfig } from "../../src/model/load-proxy-config.js";
import { parseNodeEnvironment } from "../../src/model/load-node-environment.js";
import { MAX_YAML_DEPTH } from "../../src/model/yaml-depth.js";

function errorsOf(load: () => unknown): string[] {
  try {
    load();
  } catch (e) {
    if (e instanceof ValidationError) return e.issues.map(formatIssue);
    throw e;
  }
  throw new Error("expected a ValidationError");
}

const manifests = (text: string) => () => parseCluster([{ file: "m.yaml", text }]);
const loaders: readonly [string, (text: string) => () => unknown][] = [
  ["manifests", manifests],
  ["--proxy-config", (text) => () => parseProxyConfig(text, "p.yaml")],
  ["--node-env", (text) => () => parseNodeEnvironment(text, "n.yaml")],
];

describe("self-referencing aliases", () => {
  test.each(loaders)("%s: an alias inside the node it names is one positioned error", (_, load) => {
    const [only, ...rest] = errorsOf(load("kind: X\na: &a [*a]\n"));
    expect(rest).toEqual([]);
    expect(only).toMatch(
      /^[mpn]\.yaml:2:8: YAML alias \*a refers to a node that contains it \(an endless expansion\)$/,
    );
  });

  test("deeper cycles and cycles through maps are caught too", () => {
    expect(errorsOf(manifests("a: &a {b: [x, {c: *a}]}\n"))).toEqual([
      "m.yaml:1:19: YAML alias *a refers to a node that contains it (an endless expansion)",
    ]);
  });

  test("an alias of an earlier node still expands", () => {
    const c = parseCluster([
      {
        file: "m.yaml",
        text: "apiVersion: v1\nkind: Namespace\nmetadata: {name: a, labels: &l {x: y}, annotations: *l}\n",
      },
    ]);
    expect(c.namespaces[0]?.metadata?.annotations).toEqual({ x: "y" });
  });
});

describe("nesting depth", () => {
  const flow = (depth: number): string => `a: ${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}\n`;

  test.each(loaders)("%s: flow nesting beyond the limit is refused where it starts", (_, load) => {
    const [only, ...rest] = errorsOf(load(flow(MAX_YAML_DEPTH + 5)));
    expect(rest).toEqual([]);
    expect(only).toMatch(
      new RegExp(
        `^[mpn]\\.yaml:1:${MAX_YAML_DEPTH + 3}: YAML nesting deeper than ${MAX_YAML_DEPTH} levels$`,
      ),
    );
  });

  test("block nesting (compact sequences) is refused too, also on the slow path", () => {
    const text = `${"- ".repeat(MAX_YAML_DEPTH + 10)}x\n# &slow\n`;
    expect(errorsOf(manifests(text))).toEqual([
      `m.yaml:1:${2 * MAX_YAML_DEPTH + 1}: YAML nesting deeper than ${MAX_YAML_DEPTH} levels`,
    ]);
  });

  test("a large nested file is refused without building it", () => {
    const depth = 1_000_000;
    expect(errorsOf(manifests(flow(depth)))).toHaveLength(1);
  });

  test("nesting up to the limit loads", () => {
    // Level 1 is the document, 2 the field `a`'s list, … the scalar 1 at the limit.
    const text = `apiVersion: v1\nkind: Namespace\nmetadata: {name: n}\nx: ${"[".repeat(MAX_YAML_DEPTH - 2)}1${"]".repeat(MAX_YAML_DEPTH - 2)}\n`;
    expect(() => parseCluster([{ file: "m.yaml", text }], { validation: "warn" })).not.toThrow();
    expect(() =>
      parseCluster([{ file: "m.yaml", text: `${text}# &slow\n` }], { validation: "warn" }),
    ).not.toThrow();
  });

  test("aliases that nest deeper than the text are refused", () => {
    const lines = ["l0: &l0 [x]"];
    for (let i = 1; i <= MAX_YAML_DEPTH; i++) lines.push(`l${i}: &l${i} [*l${i - 1}]`);
    const errors = errorsOf(manifests(`${lines.join("\n")}\n`));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^m\.yaml:\d+:\d+: YAML nesting deeper than 200 levels$/);
  });
});
