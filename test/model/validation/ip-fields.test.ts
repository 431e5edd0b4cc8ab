/**
 * isOrdinaryIPv4, the loader's shortcut for endpoint addresses, answers yes only where the
 * general check (checkIP, then the family and nonSpecialIPProblems) has nothing to report, in
 * strict and lenient validation alike; and yes for the ordinary addresses it is there for.
 */
import { describe, expect, test } from "@jest/globals";
import fc from "fast-check";
import {
  checkIP,
  isOrdinaryIPv4,
  nonSpecialIPProblems,
} from "../../../src/model/validation/ip-fields.js";

/** What the general check reports for `text` as an IPv4 endpoint address. */
function generalProblems(text: string, strict: boolean): string[] {
  const r = checkIP(["a"], text, strict);
  if (r.ip === undefined) return r.issues.map((i) => i.message);
  return [
    ...r.issues.map((i) => i.message),
    ...(r.ip.family === "IPv4" ? [] : ["family"]),
    ...nonSpecialIPProblems(r.ip, text),
  ];
}

const octet = fc.oneof(
  fc.integer({ min: 0, max: 255 }).map(String),
  fc.constantFrom("0", "00", "01", "127", "169", "254", "224", "256", "", "1a", "-1", "0x1"),
);
/** Dotted quads (some with leading zeros, special ranges, wrong octets), and near misses. */
const addressText = fc.oneof(
  fc.array(octet, { minLength: 4, maxLength: 4 }).map((o) => o.join(".")),
  fc.array(octet, { minLength: 1, maxLength: 6 }).map((o) => o.join(".")),
  fc.constantFrom("::ffff:10.0.0.1", "10.0.0.1 ", " 10.0.0.1", "10.0.0.1/32", "fd00::1", ""),
);

describe("isOrdinaryIPv4", () => {
  test("says yes exactly where the strict general check reports nothing (property)", () => {
    let ordinary = 0;
    let other = 0;
    fc.assert(
      fc.property(addressText, (text) => {
        const yes = isOrdinaryIPv4(text);
        if (yes) ordinary++;
        else other++;
        expect({ text, yes }).toEqual({ text, yes: generalProblems(text, true).length === 0 });
        // Lenient validation reports less than strict: nothing either.
        if (yes)
          expect({ text, lenient: generalProblems(text, false) }).toEqual({ text, lenient: [] });
      }),
      { seed: 11, numRuns: 2000 },
    );
    expect(ordinary).toBeGreaterThan(100);
    expect(other).toBeGreaterThan(100);
  });

  test("the ordinary addresses of a Service's endpoints are ordinary", () => {
    for (const text of ["10.0.0.1", "172.16.255.254", "192.168.0.2", "1.2.3.4"])
      expect(isOrdinaryIPv4(text)).toBe(true);
    for (const text of ["0.0.0.0", "127.0.0.1", "169.254.1.1", "224.0.0.5", "010.0.0.1", "10.0.0"])
      expect(isOrdinaryIPv4(text)).toBe(false);
  });
});
