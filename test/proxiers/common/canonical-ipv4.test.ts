/** The dotted-quad shortcut answers exactly what parsing and printing the address would. */
import { describe, expect, test } from "@jest/globals";
import fc from "fast-check";
import { canonicalIP, parseIP } from "../../../src/net/index.js";
import { isCanonicalIPv4 } from "../../../src/proxiers/common/canonical-ipv4.js";

/** What the shortcut stands for: an IPv4 address whose canonical text is itself. */
const reference = (s: string): boolean =>
  parseIP(s, "lenient")?.family === "IPv4" && canonicalIP(s) === s;

describe("isCanonicalIPv4", () => {
  test("agrees with parse-and-print on dotted quads, near misses and other text", () => {
    const octet = fc.oneof(
      fc.nat(300).map(String),
      fc.constantFrom("0", "00", "01", "010", "255", "256", "1000", ""),
    );
    const quadish = fc
      .array(octet, { minLength: 1, maxLength: 6 })
      .chain((parts) =>
        fc.constantFrom(".", ":", "..").map((sep) => parts.join(sep === ".." ? "." : sep)),
      );
    const text = fc.oneof(
      quadish,
      fc.string({ maxLength: 20 }),
      fc.constantFrom("::1", "::ffff:1.2.3.4", "1.2.3.4 ", " 1.2.3.4", "1.2.3.4/32", "١.2.3.4"),
    );
    let canonical = 0;
    fc.assert(
      fc.property(text, (s) => {
        if (isCanonicalIPv4(s)) canonical++;
        expect(isCanonicalIPv4(s)).toBe(reference(s));
      }),
      { seed: 11, numRuns: 3000 },
    );
    // The run met both answers.
    expect(canonical).toBeGreaterThan(0);
    expect(isCanonicalIPv4("10.0.0.1")).toBe(true);
    expect(isCanonicalIPv4("10.0.0.01")).toBe(false);
  });
});
