/**
 * A `kind: List`'s problems are placed by reading only the item that has them
 * (src/model/list-item-spans.ts): the same FILE:LINE:COL and paths as reading the whole List on
 * the `yaml` path, for Lists as kubectl writes them (JSON, block YAML with the entries at the
 * key's indentation) and as people do (entries indented, comments and blank lines between them,
 * an entry's mapping starting on the line after its `-`), with invalid fields anywhere.
 */
import { describe, expect, test } from "@jest/globals";
import fc from "fast-check";
import { stringify } from "yaml";
import { listItemSpans } from "../../src/model/list-item-spans.js";
import { loadOutcome } from "./helpers.js";
import { soakRuns } from "../helpers/soak.js";

// KUBE_NETSIM_SOAK: the full count, times k.
const RUNS = soakRuns(75, 150);

/** A Service with a few fields that may be invalid. */
const service = fc.record({
  name: fc.constantFrom("a", "b", "web", "a", "Bad_Name"),
  namespace: fc.constantFrom(undefined, "default", "ns1"),
  port: fc.constantFrom(80, 0, 70000, "eighty", 53),
  protocol: fc.constantFrom("TCP", "UDP", "tcp"),
  note: fc.option(fc.constantFrom("x: y", "- z", "[a]", "multi\nline"), { nil: undefined }),
});
type Svc = typeof service extends fc.Arbitrary<infer T> ? T : never;

function serviceObject(s: Svc): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: s.name,
      ...(s.namespace === undefined ? {} : { namespace: s.namespace }),
      ...(s.note === undefined ? {} : { annotations: { note: s.note } }),
    },
    spec: { ports: [{ port: s.port, protocol: s.protocol }] },
  };
}

/** The List in one layout. */
function listText(objects: Record<string, unknown>[], layout: number): string {
  const list = { apiVersion: "v1", kind: "List", items: objects };
  switch (layout) {
    case 0:
      return `${JSON.stringify(list, null, 2)}\n`;
    case 1:
      return `${JSON.stringify(list)}\n`;
    case 2:
      // kubectl -o yaml: entries at the key's indentation.
      return stringify(list, { indentSeq: false });
    case 3:
      return stringify(list, { indentSeq: true });
    default: {
      // Comments and blank lines between entries, a mapping on the line after its `-`.
      const entries = objects.map((o, i) => {
        const body = stringify(o)
          .trimEnd()
          .split("\n")
          .map((l) => `    ${l}`)
          .join("\n");
        return i % 2 === 0 ? `  -\n${body}\n\n  # item ${i}` : `  - ${body.trimStart()}`;
      });
      return `# a list\napiVersion: v1\nitems:\n${entries.join("\n")}\nkind: List\n`;
    }
  }
}

describe("List positions, item by item", () => {
  test("equal the whole List's on the yaml path (property)", () => {
    let reported = 0;
    let split = 0;
    fc.assert(
      fc.property(
        fc.array(service, { minLength: 1, maxLength: 5 }),
        fc.nat(4),
        fc.boolean(),
        (services, layout, crlf) => {
          const objects = services.map(serviceObject);
          let text = listText(objects, layout);
          if (listItemSpans(text, 0, text.length)?.items.length === objects.length) split++;
          if (crlf) text = text.replaceAll("\n", "\r\n");
          const expected = loadOutcome(text, "yaml");
          // Loaded with validation "warn": problems are warnings, each placed in the file.
          if ((expected as { warnings?: string[] }).warnings?.some((w) => w.startsWith("m.yaml:")))
            reported++;
          expect(loadOutcome(text, "fast")).toEqual(expected);
          expect(loadOutcome(text, "fast", true)).toEqual(expected);
          expect(loadOutcome(text, "streamed", true)).toEqual(expected);
        },
      ),
      { seed: 23, numRuns: RUNS },
    );
    // The property is about placing problems, in Lists the spans are found for.
    expect(reported).toBeGreaterThan(RUNS / 3);
    expect(split).toBe(RUNS);
  });

  test("finds the items of each layout", () => {
    const objects = [
      serviceObject({ name: "a", port: 80, protocol: "TCP", namespace: undefined, note: "- z" }),
      serviceObject({ name: "b", port: 81, protocol: "TCP", namespace: "ns1", note: undefined }),
    ];
    for (let layout = 0; layout <= 4; layout++) {
      const text = listText(objects, layout);
      const spans = listItemSpans(text, 0, text.length);
      expect({ layout, items: spans?.items.length }).toEqual({ layout, items: 2 });
      const second = text.slice(spans!.items[1]!.start, spans!.items[1]!.end);
      expect({ layout, second }).toEqual({ layout, second: expect.stringContaining("b") });
      expect(second).not.toContain("name: a");
    }
    // Not a List layout found here: the whole document is read instead.
    expect(listItemSpans("apiVersion: v1\nkind: List\nitems: [{a: 1}]\n", 0, 40)).toBeUndefined();
    expect(listItemSpans('{"kind": "List", "items": 3}', 0, 28)).toBeUndefined();
  });
});
