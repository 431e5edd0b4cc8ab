/**
 * Utf8Chunks keeps written text as UTF-8 bytes in chunks: what comes out (pieces, text) is
 * what Buffer encodes for the same words, whatever the chunk boundaries and truncations; a
 * newline inside a word is refused. Node's own UTF-8 encoder is the reference.
 */
import { describe, expect, test } from "@jest/globals";
import fc from "fast-check";
import { Utf8Chunks } from "../../../src/netfilter/build/utf8-chunks.js";

type Step =
  | { readonly kind: "write"; readonly text: string }
  | { readonly kind: "newline" }
  /** `writeNumber`: a port's digits, or String(n) for any other number. */
  | { readonly kind: "number"; readonly n: number }
  /** Everything held goes to a store (`spillTo`); it cannot be truncated into after. */
  | { readonly kind: "spill" }
  /** Back to one of the lengths reached so far (`keep` picks which). */
  | { readonly kind: "truncate"; readonly keep: number };

const word = fc.oneof(
  fc.string({ unit: "grapheme-ascii", maxLength: 40 }).filter((s) => !s.includes("\n")),
  fc.string({ unit: "grapheme", maxLength: 10 }).filter((s) => !s.includes("\n")),
  // Long words cross (and outgrow) chunks.
  fc.integer({ min: 1000, max: 5000 }).map((n) => "x".repeat(n)),
);
const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: word.map((text) => ({ kind: "write" as const, text })), weight: 6 },
  { arbitrary: fc.constant({ kind: "newline" as const }), weight: 2 },
  {
    arbitrary: fc
      .oneof(
        fc.integer({ min: 0, max: 65535 }),
        fc.integer({ min: 99990, max: 100010 }),
        fc.integer({ min: -10, max: -1 }),
        fc.double(),
      )
      .map((n) => ({ kind: "number" as const, n })),
    weight: 2,
  },
  { arbitrary: fc.nat(1000).map((keep) => ({ kind: "truncate" as const, keep })), weight: 1 },
  { arbitrary: fc.constant({ kind: "spill" as const }), weight: 1 },
);

describe("Utf8Chunks", () => {
  test("bytes and text are Buffer's UTF-8 of what was written and kept", () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 200 }), (steps) => {
        const chunks = new Utf8Chunks("a test line");
        let expected = Buffer.alloc(0);
        /** What was spilled, copied as it came (the pieces are written over after). */
        const spilled: Buffer[] = [];
        const store = {
          append: (b: Uint8Array) => spilled.push(Buffer.from(b)),
          replay: () => undefined,
        };
        /** Lengths between words: where a table truncates (an unfinished rule's start). */
        const marks = [0];
        for (const s of steps) {
          if (s.kind === "write") {
            chunks.write(s.text);
            expected = Buffer.concat([expected, Buffer.from(s.text, "utf8")]);
          } else if (s.kind === "newline") {
            chunks.newline();
            expected = Buffer.concat([expected, Buffer.from("\n")]);
          } else if (s.kind === "number") {
            chunks.writeNumber(s.n);
            expected = Buffer.concat([expected, Buffer.from(String(s.n), "utf8")]);
          } else if (s.kind === "spill") {
            chunks.spillTo(store);
            marks.length = 0;
            expect(() => chunks.truncate(expected.length - 1)).toThrow(/spilled/);
          } else {
            const keep = marks[s.keep % marks.length] as number;
            marks.length = (s.keep % marks.length) + 1;
            chunks.truncate(keep);
            expected = expected.subarray(0, keep);
            continue;
          }
          marks.push(expected.length);
        }
        expect(chunks.length).toBe(expected.length);
        const held = expected.subarray(chunks.spilled);
        expect(Buffer.concat(spilled).equals(expected.subarray(0, chunks.spilled))).toBe(true);
        expect(Buffer.concat(chunks.pieces()).equals(held)).toBe(true);
        // `ascii` may stay false after non-ASCII bytes are truncated away, never the reverse.
        if (chunks.ascii) expect(expected.every((b) => b < 0x80)).toBe(true);
        if (chunks.ascii) expect(chunks.text()).toBe(held.toString("latin1"));
        // (A spill may cut a character's bytes: what is held is then read as Buffer reads it.)
        else expect(chunks.text()).toBe(held.toString("utf8"));
      }),
      { seed: 17, numRuns: 200 },
    );
  });

  test("a word holding a newline is refused, naming the text", () => {
    const chunks = new Utf8Chunks("a rule in nat");
    chunks.write("-A X");
    expect(() => chunks.write(" -m comment --comment a\nb")).toThrow(
      /a rule in nat holds a newline/,
    );
  });

  test("startsWith(at, text) is whether the bytes from `at` begin with text's UTF-8", () => {
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 60 }),
        fc.nat(),
        fc.nat(40),
        word,
        (words, pick, len, other) => {
          const chunks = new Utf8Chunks("a test line");
          const starts: number[] = [];
          for (const w of words) {
            starts.push(chunks.length);
            chunks.write(w);
          }
          const all = Buffer.concat(chunks.pieces());
          const i = pick % words.length;
          const at = starts[i] as number;
          const w = words[i] as string;
          // Every word written is found where it was written, and so is any prefix of it.
          expect(chunks.startsWith(at, w)).toBe(true);
          expect(chunks.startsWith(at, w.slice(0, len))).toBe(
            all
              .subarray(at)
              .subarray(0, Buffer.byteLength(w.slice(0, len)))
              .equals(Buffer.from(w.slice(0, len))),
          );
          // Any text, anywhere: exactly Buffer's answer.
          const where = pick % (all.length + 2);
          const bytes = Buffer.from(other, "utf8");
          const expected =
            where + bytes.length <= all.length &&
            all.subarray(where, where + bytes.length).equals(bytes);
          expect(chunks.startsWith(where, other)).toBe(expected);
          // With the byte that must follow: a word is not found as a prefix of a longer one.
          const next = all[where + bytes.length];
          expect(chunks.startsWith(where, other, 0x20)).toBe(expected && next === 0x20);
          if (next !== undefined) expect(chunks.startsWith(where, other, next)).toBe(expected);
        },
      ),
      { seed: 17, numRuns: 300 },
    );
  });

  test("text() of a prefix stops at that byte", () => {
    const chunks = new Utf8Chunks("a test line");
    chunks.write("ab");
    chunks.newline();
    chunks.write("cd");
    expect(chunks.text(3)).toBe("ab\n");
    expect(chunks.text()).toBe("ab\ncd");
  });
});
