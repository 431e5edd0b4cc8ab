import { createHash } from "node:crypto";
import { describe, expect, test } from "@jest/globals";
import { fc, test as propTest } from "@fast-check/jest";
import { base32, chainHash, prefixedChainHash } from "../../../src/proxiers/common/hash.js";

/** The definition, through node:crypto: base32(SHA-256(UTF-8 input)) truncated to 16. */
const reference = (s: string): string =>
  base32(createHash("sha256").update(s, "utf8").digest()).slice(0, 16);

describe("chainHash", () => {
  // shared/spec/kube-proxy-iptables.md §3 worked examples (from upstream tests).
  test.each([
    ["ns1/svc1:p80tcp", "XPGD46QRK7WJZT7O"],
    ["ns2/svc2:p80tcp", "GNZBNJ2PO5MGZ6GT"],
    ["ns3/svc3:p80tcp", "X27LE4BHSL4DOUIK"],
    ["ns4/svc4:p80tcp", "4SW47YFZTEDKD3PK"],
    ["ns5/svc5:p80tcp", "NUKIZ6OKUXPJNT4C"],
    ["ns2/svc2:p8080tcp", "2VJB64SDSIJUP5T6"],
    ["ns1/svc1:p80tcp10.180.0.1:80", "SXIVWICOYRO3J4NJ"],
    ["ns5/svc5:p80tcp10.180.0.3:80", "I77PXRDZVX7PMWMN"],
    ["ns1/svc1:p80tcp10.0.0.0:80", "DKGQUZGBKLTPAR56"],
    ["ns3/svc3:p8081tcp203.0.113.4:8081", "RUVVH7YV3PHQBDOS"],
    ["default/kubernetes:httpstcp", "NPX46M4PTMTKRN6Y"],
    ["ns1/svc1tcp", "AQI2S6QIMU7PVVRP"],
    ["ns1/svc1:p80udp", "OJWW7NSBVZTDHXNW"],
    ["ns1/svc1:p80sctp", "GFCIFIA5VTFSTMSM"],
    ["ns1/svc1:p80tcp[fd00:10:180::1]:80", "OGYCNMB4EMRUSJ6N"],
  ])("%s -> %s", (input, expected) => {
    expect(chainHash(input)).toBe(expected);
  });

  test("base32 follows RFC 4648 test vectors (unpadded)", () => {
    const enc = (s: string): string => base32(new TextEncoder().encode(s));
    expect(enc("f")).toBe("MY");
    expect(enc("fo")).toBe("MZXQ");
    expect(enc("foo")).toBe("MZXW6");
    expect(enc("foob")).toBe("MZXW6YQ");
    expect(enc("fooba")).toBe("MZXW6YTB");
    expect(enc("foobar")).toBe("MZXW6YTBOI");
  });

  // chainHash computes short ASCII inputs in JavaScript: around the one/two-block padding
  // boundaries (55/56 and 119/120 bytes) and for non-ASCII input it must still be SHA-256.
  propTest.prop([fc.string({ maxLength: 140 })], { numRuns: 200 })(
    "equals base32(sha256) of ASCII input of any length",
    (s) => {
      expect(chainHash(s)).toBe(reference(s));
    },
  );
  propTest.prop(
    [
      fc.constantFrom("KUBE-SEP-", "KUBE-FW-", ""),
      fc.string({ maxLength: 60 }),
      fc.string({ maxLength: 40 }),
      fc.string({ unit: "grapheme", maxLength: 30 }),
    ],
    { numRuns: 200 },
  )("prefixedChainHash(prefix, a, b, c) is prefix + hash of a + b + c", (prefix, a, b, c) => {
    expect(prefixedChainHash(prefix, a, b, c)).toBe(prefix + reference(a + b + c));
    expect(prefixedChainHash(prefix, a)).toBe(prefix + reference(a));
  });
  propTest.prop([fc.string({ unit: "grapheme", maxLength: 60 })], { numRuns: 100 })(
    "equals base32(sha256) of non-ASCII input",
    (s) => {
      expect(chainHash(s)).toBe(reference(s));
    },
  );
  test.each([0, 1, 54, 55, 56, 63, 64, 65, 118, 119, 120, 200])(
    "padding boundary: %i bytes",
    (n) => {
      const s = "k".repeat(n);
      expect(chainHash(s)).toBe(reference(s));
    },
  );
});
