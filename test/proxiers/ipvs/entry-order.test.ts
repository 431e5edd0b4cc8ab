/**
 * inEntryTextOrder orders a set's entries as the numeric collator alone does (what sync.ts
 * sorted with before): a faster comparison is used only for two texts that begin with different
 * canonical IPv4 addresses, and it must never disagree with the collator. Texts are made in the
 * shapes the IPVS proxier's sets hold (ip, ip,proto:port, ip,proto:port,ip, ip,proto:port,net,
 * bare ports) and in near-misses (leading zeros, octets above 255, IPv6, three octets).
 */
import { describe, expect } from "@jest/globals";
import { fc, test } from "@fast-check/jest";
import {
  inEntryTextOrder,
  leadingIPv4,
  numericCompare,
} from "../../../src/proxiers/ipvs/entry-order.js";

const octet = fc.oneof(
  fc.integer({ min: 0, max: 255 }).map(String),
  fc.constantFrom("0", "1", "10", "01", "256", "999", "1000"),
);
const ipv4 = fc.tuple(octet, octet, octet, octet).map((o) => o.join("."));
const head = fc.oneof(
  { weight: 6, arbitrary: ipv4 },
  fc.tuple(octet, octet, octet).map((o) => o.join(".")),
  fc.constantFrom("fd00::1", "fd00::10", "2001:db8::1", "::ffff:10.0.0.1"),
  fc.integer({ min: 0, max: 65535 }).map(String),
);
const tail = fc.oneof(
  fc.constant(""),
  fc
    .tuple(fc.constantFrom("tcp", "udp", "sctp"), fc.integer({ min: 1, max: 65535 }))
    .map(([p, n]) => `,${p}:${n}`),
  fc
    .tuple(fc.constantFrom("tcp", "udp"), fc.integer({ min: 1, max: 65535 }), ipv4)
    .map(([p, n, ip]) => `,${p}:${n},${ip}`),
  fc.tuple(ipv4, fc.integer({ min: 0, max: 32 })).map(([ip, len]) => `,tcp:80,${ip}/${len}`),
  fc.integer({ min: 0, max: 9 }).map(String),
);
const text = fc.tuple(head, tail).map(([h, t]) => h + t);
/**
 * Texts that begin with a dotted quad, canonical or a near miss (leading zeros, octets above
 * 255): the fast comparison's precondition holds for about one in four, where for a `text` it
 * held for about one in six and most pairs were discarded.
 */
const quadText = fc.tuple(ipv4, tail).map(([h, t]) => h + t);

describe("ipset entries in the numeric collator's order", () => {
  test.prop([fc.uniqueArray(text, { maxLength: 60 })], { numRuns: 300, seed: 41 })(
    "the same order as sorting by the collator alone",
    (texts) => {
      const values = texts.map((t, i) => ({ t, i }));
      const expected = [...values].sort((a, b) => numericCompare(a.t, b.t));
      expect(inEntryTextOrder(texts, values)).toEqual(expected);
    },
  );

  test.prop([quadText, quadText], { numRuns: 1000, seed: 43 })(
    "where both begin with a different address, its order is the collator's",
    (a, b) => {
      const ka = leadingIPv4(a);
      const kb = leadingIPv4(b);
      fc.pre(ka >= 0 && kb >= 0 && ka !== kb);
      expect(Math.sign(ka - kb)).toBe(Math.sign(numericCompare(a, b)));
    },
  );

  test("only canonical dotted quads are read as addresses", () => {
    expect(leadingIPv4("10.0.0.1,tcp:80")).toBe(0x0a000001);
    expect(leadingIPv4("255.255.255.255")).toBe(0xffffffff);
    expect(leadingIPv4("10.0.0.01")).toBe(-1);
    expect(leadingIPv4("10.0.0.256")).toBe(-1);
    expect(leadingIPv4("10.0.0")).toBe(-1);
    expect(leadingIPv4("10.0.0.1000")).toBe(-1);
    expect(leadingIPv4("fd00::1")).toBe(-1);
    expect(leadingIPv4("8080")).toBe(-1);
  });
});
