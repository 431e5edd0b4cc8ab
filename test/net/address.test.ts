import { describe, expect } from "@jest/globals";
import { fc, it, test } from "@fast-check/jest";
import ipaddr from "ipaddr.js";
import {
  canonicalIP,
  compareIP,
  formatIP,
  formatIPv4Value,
  formatIPv6Value,
  ipFamilyOf,
  ipv4,
  isIPv4Mapped,
  joinHostPort,
  parseIP,
  parseIPv4Value,
  parseIPv6Value,
} from "../../src/net/address.js";
import { ipv4Address, ipv6Address } from "../../src/testing/arbitraries/ipAddress.js";

const RUNS = { numRuns: 200 };

function bytesOf6(v: bigint): number[] {
  const out: number[] = [];
  for (let i = 15; i >= 0; i--) out.push(Number((v >> BigInt(i * 8)) & 0xffn));
  return out;
}

function oracle6(v: bigint): string {
  return ipaddr.fromByteArray(bytesOf6(v)).toString();
}

describe("IPv4", () => {
  test.each([
    ["0.0.0.0", 0],
    ["255.255.255.255", 0xffffffff],
    ["10.180.0.1", 0x0ab40001],
  ])("parses %s", (s, v) => {
    expect(parseIPv4Value(s)).toBe(v);
  });

  test.each([
    "",
    "1.2.3",
    "1.2.3.4.5",
    "256.1.1.1",
    "1.2.3.-4",
    " 1.2.3.4",
    "1.2.3.4 ",
    "1..2.3",
    "0x1.2.3.4",
    "1.2.3.4/8",
  ])("rejects %j", (s) => {
    expect(parseIPv4Value(s, "strict")).toBeUndefined();
    expect(parseIPv4Value(s, "lenient")).toBeUndefined();
  });

  test("strict mode rejects leading zeros; lenient reads them as decimal, never octal", () => {
    expect(parseIP("172.30.0.041", "strict")).toBeUndefined();
    expect(parseIP("172.30.0.041", "lenient")).toEqual(ipv4(0xac1e0029));
    expect(canonicalIP("010.180.00.001")).toBe("10.180.0.1");
    expect(parseIP("0.0.0.0", "strict")).toEqual(ipv4(0));
  });

  it.prop([ipv4Address()], RUNS)("prints like ipaddr.js and round-trips", (a) => {
    const s = formatIPv4Value(a.value);
    expect(s).toBe(
      ipaddr
        .fromByteArray([
          (a.value >>> 24) & 255,
          (a.value >>> 16) & 255,
          (a.value >>> 8) & 255,
          a.value & 255,
        ])
        .toString(),
    );
    expect(parseIP(s, "strict")).toEqual(a);
  });

  it.prop(
    [
      fc
        .array(fc.stringMatching(/^[0-9]{1,4}$/), { minLength: 4, maxLength: 4 })
        .map((p) => p.join(".")),
    ],
    RUNS,
  )("strict acceptance of dotted decimals agrees with ipaddr.js isValidFourPartDecimal", (s) => {
    expect(parseIPv4Value(s, "strict") !== undefined).toBe(ipaddr.IPv4.isValidFourPartDecimal(s));
  });

  /** The grammar written out with split and regular expressions: the reader must agree with it. */
  function referenceIPv4(s: string, mode: "strict" | "lenient"): number | undefined {
    const parts = s.split(".");
    if (parts.length !== 4) return undefined;
    const octet = mode === "strict" ? /^(0|[1-9][0-9]{0,2})$/ : /^[0-9]{1,3}$/;
    let value = 0;
    for (const p of parts) {
      if (!octet.test(p) || Number(p) > 255) return undefined;
      value = value * 256 + Number(p);
    }
    return value;
  }

  it.prop(
    [
      fc
        .array(
          fc.oneof(
            fc.stringMatching(/^[0-9]{0,4}$/),
            fc.constantFrom("", "x", " 1", "1 ", "+1", "-0", "٣"),
          ),
          {
            minLength: 0,
            maxLength: 6,
          },
        )
        .map((p) => p.join(".")),
      fc.constantFrom("strict" as const, "lenient" as const),
    ],
    { numRuns: 500 },
  )("reads dotted quads as the split-and-regex grammar does", (s, mode) => {
    expect(parseIPv4Value(s, mode)).toBe(referenceIPv4(s, mode));
  });

  it.prop(
    [
      fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 }),
      fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 4, maxLength: 4 }),
    ],
    RUNS,
  )("lenient mode reads zero-padded octets as their decimal value", (octets, pads) => {
    const padded = octets.map((o, i) => {
      const t = String(o);
      return "0".repeat(Math.min(pads[i] ?? 0, 3 - t.length)) + t;
    });
    const v = parseIPv4Value(padded.join("."), "lenient");
    expect(v).toBe(
      ((octets[0]! << 24) >>> 0) + (octets[1]! << 16) + (octets[2]! << 8) + octets[3]!,
    );
    const hasLeadingZero = padded.some((p) => p.length > 1 && p.startsWith("0"));
    expect(parseIPv4Value(padded.join("."), "strict") === undefined).toBe(hasLeadingZero);
  });
});

describe("IPv6", () => {
  test.each([
    ["::", "::"],
    ["::1", "::1"],
    ["0:0:0:0:0:0:0:1", "::1"],
    ["2001:DB8::1", "2001:db8::1"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"], // first of two equal runs
    ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"], // a single zero group is not compressed
    ["1:0:0:2:0:0:0:3", "1:0:0:2::3"], // the longest run wins
    ["::1.2.3.4", "::102:304"],
    ["64:ff9b::192.0.2.33", "64:ff9b::c000:221"],
  ])("%s prints as %s (RFC 5952)", (input, out) => {
    expect(canonicalIP(input)).toBe(out);
  });

  test.each([
    "1::2::3",
    "1:2:3:4:5:6:7:8:9",
    "1:2:3:4:5:6:7",
    "12345::",
    ":1",
    "1:",
    "fe80::1%eth0",
    "::1.2.3",
    "::1.2.3.4:1",
    "g::",
  ])("rejects %j", (s) => {
    expect(parseIPv6Value(s, "lenient")).toBeUndefined();
    expect(parseIP(s, "lenient")).toBeUndefined();
  });

  test("IPv4-mapped addresses: rejected by strict parsing, folded to IPv4 by lenient parsing", () => {
    expect(parseIP("::ffff:1.2.3.4", "strict")).toBeUndefined();
    expect(parseIP("::ffff:1.2.3.4", "lenient")).toEqual(ipv4(0x01020304));
    expect(isIPv4Mapped(parseIPv6Value("::ffff:1.2.3.4")!)).toBe(true);
    expect(formatIPv6Value(0xffff01020304n)).toBe("::ffff:1.2.3.4");
  });

  it.prop([ipv6Address().filter((a) => !isIPv4Mapped(a.value))], RUNS)(
    "prints like ipaddr.js toRFC5952String",
    (a) => {
      expect(formatIP(a)).toBe(oracle6(a.value));
    },
  );

  it.prop([ipv6Address(), fc.boolean(), fc.boolean()], RUNS)(
    "every spelling (full, upper case, uncompressed) parses to the same value as ipaddr.js",
    (a, upper, full) => {
      let text = full
        ? bytesOf6(a.value)
            .reduce<string[]>(
              (acc, b, i) =>
                i % 2 === 0
                  ? [...acc, b.toString(16).padStart(2, "0")]
                  : [...acc.slice(0, -1), acc[acc.length - 1] + b.toString(16).padStart(2, "0")],
              [],
            )
            .join(":")
        : formatIPv6Value(a.value);
      if (upper) text = text.toUpperCase();
      expect(parseIPv6Value(text, "lenient")).toBe(a.value);
      expect(bytesOf6(parseIPv6Value(text, "lenient")!)).toEqual(
        ipaddr.IPv6.parse(text).toByteArray(),
      );
    },
  );

  const hexGroup = fc.oneof(
    fc.stringMatching(/^[0-9a-fA-F]{1,5}$/),
    fc.constantFrom("0", "ffff", ""),
  );
  const dotted = fc
    .array(fc.integer({ min: 0, max: 300 }), { minLength: 3, maxLength: 5 })
    .map((o) => o.join("."));
  const nearlyIPv6 = fc
    .tuple(
      fc.array(hexGroup, { minLength: 1, maxLength: 9 }),
      fc.option(dotted, { nil: undefined }),
    )
    .map(([groups, v4]) => [...groups, ...(v4 === undefined ? [] : [v4])].join(":"));

  it.prop([nearlyIPv6], { numRuns: 400 })(
    "accepts a near-IPv6 string exactly when ipaddr.js does",
    (s) => {
      expect(parseIPv6Value(s, "strict") !== undefined).toBe(ipaddr.IPv6.isValid(s));
    },
  );
});

describe("helpers", () => {
  test("ipFamilyOf, compareIP, joinHostPort", () => {
    expect(ipFamilyOf("10.0.0.1")).toBe("IPv4");
    expect(ipFamilyOf("fd00::1")).toBe("IPv6");
    expect(ipFamilyOf("nope")).toBeUndefined();
    expect(compareIP(parseIP("10.0.0.2")!, parseIP("10.0.0.10")!)).toBeLessThan(0);
    expect(compareIP(parseIP("10.0.0.2")!, parseIP("::1")!)).toBeLessThan(0);
    expect(joinHostPort("10.0.0.1", 80)).toBe("10.0.0.1:80");
    expect(joinHostPort("fd00::1", 80)).toBe("[fd00::1]:80");
  });
});
