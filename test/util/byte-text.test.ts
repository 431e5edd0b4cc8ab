import { describe, expect } from "@jest/globals";
import { fc, test } from "@fast-check/jest";
import {
  decodeKeepingBytes,
  encodeKeepingBytes,
  keptByteLength,
} from "../../src/util/byte-text.js";

describe("text that keeps every byte", () => {
  test.prop([fc.uint8Array({ maxLength: 64 })], { numRuns: 300, seed: 19 })(
    "any bytes come back as themselves",
    (bytes) => {
      const text = decodeKeepingBytes(bytes);
      expect(Buffer.compare(encodeKeepingBytes(text), Buffer.from(bytes))).toBe(0);
      expect(keptByteLength(text)).toBe(bytes.length);
    },
  );

  test.prop([fc.string({ unit: "grapheme", maxLength: 32 })], { numRuns: 300, seed: 19 })(
    "valid UTF-8 decodes exactly as Node decodes it",
    (s) => {
      const bytes = Buffer.from(s, "utf8");
      expect(decodeKeepingBytes(bytes)).toBe(bytes.toString("utf8"));
      expect(encodeKeepingBytes(s).equals(bytes)).toBe(true);
    },
  );

  test("each invalid byte is one lone surrogate U+DC80..U+DCFF; U+FFFD itself stays", () => {
    const bytes = Buffer.from([0x61, 0xff, 0xc3, 0xa9, 0xe2, 0x82, 0xef, 0xbf, 0xbd, 0xc3, 0x28]);
    expect(decodeKeepingBytes(bytes)).toBe("a\udcff\u00e9\udce2\udc82\ufffd\udcc3(");
    // An astral character whose low surrogate is in the kept range is a character, not bytes.
    expect(encodeKeepingBytes("\u{1F480}").equals(Buffer.from("\u{1F480}", "utf8"))).toBe(true);
  });
});
