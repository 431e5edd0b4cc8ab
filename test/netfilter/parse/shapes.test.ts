/**
 * Rule shapes (src/netfilter/parse/shapes.ts) against the word-by-word reading they stand for:
 * texts whose rules share their literal words and differ in values, valid or not, parse to the
 * same rule set, or fail with the same issues, with shapes and without.
 */
import { describe, expect, jest } from "@jest/globals";
import { fc, test } from "@fast-check/jest";
import type { IPFamily } from "../../../src/net/index.js";
import { IptablesParseError, parseIptables } from "../../../src/netfilter/index.js";
import { RuleShapes } from "../../../src/netfilter/parse/shapes.js";
import { kubeProxyDump } from "../../../bench/iptables-parse.js";
import { ruleText } from "../rule-text.arbitrary.js";

/** The rule set, or the issues, of `text`. */
function outcome(text: string, family: IPFamily, shapes: boolean): unknown {
  try {
    return parseIptables(text, { family, shapes });
  } catch (e) {
    if (e instanceof IptablesParseError) return e.issues;
    throw e;
  }
}

/** Words a value can be replaced with: other values, quoted ones, and ones no value may be. */
const otherWord = fc.oneof(
  fc.constantFrom(
    "10.0.0.1",
    "10.0.0.0/8",
    "0.0.0.0/0",
    "fd00::1",
    "1.2.3.4,5.6.7.8",
    "bad-address",
    "80",
    "1:65535",
    "0x4000/0x4000",
    "X",
    "KUBE-SVC-ABC",
    "MISSING",
    "DNAT",
    "ACCEPT",
    "-x",
    "!",
    "tcp",
    "eth0",
    "a-very-long-interface-name",
    '""',
    '"a b"',
    '"q',
    'a"b',
    "a\\b",
    "10.0.0.1:8080",
    "--dport",
  ),
  fc.stringMatching(/^[a-z0-9./:-]{1,12}$/),
);

/** `line` with some of its space-separated words replaced. */
const variant = (line: string) =>
  fc.array(fc.tuple(fc.nat(), otherWord), { maxLength: 3 }).map((edits) => {
    const words = line.split(" ");
    for (const [at, w] of edits) if (words.length > 0) words[at % words.length] = w;
    return words.join(" ");
  });

const CHAINS = ["KUBE-SERVICES", "KUBE-SVC-ABC", "X"];

function section(family: IPFamily, table: string, builtins: readonly string[]) {
  return fc
    .array(
      ruleText(family, table, CHAINS).chain((rule) =>
        fc.tuple(
          fc.constant(rule),
          fc.array(fc.tuple(fc.constantFrom(...builtins, ...CHAINS), variant(rule)), {
            maxLength: 5,
          }),
        ),
      ),
      { minLength: 1, maxLength: 4 },
    )
    .map((groups) =>
      [
        `*${table}`,
        ...builtins.map((b) => `:${b} ACCEPT [0:0]`),
        ...CHAINS.map((c) => `:${c} - [0:0]`),
        // Each rule, then its variants (in any chain): the variants meet the rule's shape.
        ...groups.flatMap(([rule, variants]) => [
          `-A X ${rule}`,
          ...variants.map(([chain, v]) => `-A ${chain} ${v}`),
        ]),
        "COMMIT",
      ].join("\n"),
    );
}

describe("rule shapes", () => {
  for (const family of ["IPv4", "IPv6"] as const)
    test.prop(
      [
        fc.oneof(
          section(family, "filter", ["INPUT", "FORWARD", "OUTPUT"]),
          section(family, "nat", ["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"]),
          section(family, "mangle", ["PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"]),
        ),
      ],
      { numRuns: 300 },
    )(`${family}: rules read by shape equal rules read word by word`, (text) => {
      expect(outcome(`${text}\n`, family, true)).toEqual(outcome(`${text}\n`, family, false));
    });

  // Each line after the first has the first one's literal words: a shape reads it, or
  // leaves it to the word-by-word reading when a value is not one a shape can vouch for.
  test.each([
    ["-j X", "-j ACCEPT", "-j DNAT", "-j -x", '-j ""', "-g ACCEPT", "-j KUBE-SVC-ABC"],
    ["-s 10.0.0.1 -j X", "-s 1.2.3.4,5.6.7.8 -j X", "-s bad -j X", "-s 10.0.0.0/8 -j X"],
    ["! -s 10.0.0.1 -j X", "! -s 0.0.0.0/0 -j X", "! -s 10.0.0.0/0 -j X"],
    ["! -d 10.0.0.1 -j X", "! -d ::/0 -j X", "! -d 0.0.0.0/0 -j X"],
    [
      "-m comment --comment a -j X",
      '-m comment --comment "a b" -j X',
      '-m comment --comment "a\\"b" -j X',
    ],
    [
      '-m comment --comment "a b" -j X',
      '-m comment --comment "q -j X',
      '-m comment --comment a"b -j X',
    ],
    [
      "-m comment --comment a -j X",
      '-m comment --comment "" -j X',
      '-m comment --comment "a"b -j X',
    ],
    ["-i eth0 -j X", "-i a-very-long-interface-name -j X", "-i eth1 -j X"],
    ["-p tcp --dport 80 -j X", "-p tcp --dport 99999 -j X", "-p tcp --dport 1:2 -j X"],
    [
      "-m tcp -p tcp -j DNAT --to-destination 10.0.0.1:80",
      "-m tcp -p tcp -j DNAT --to-destination 10.0.0.1:0",
      "-m tcp -p tcp -j DNAT --to-destination bad",
    ],
    ["-j X", "-j X ", "-j  X", "-j\tX"],
  ])("shape of %p", (...lines) => {
    const text = [
      "*nat",
      ":PREROUTING ACCEPT [0:0]",
      ":X - [0:0]",
      ":KUBE-SVC-ABC - [0:0]",
      ...lines.map((l) => `-A X ${l.replace("\\t", "\t")}`),
      "COMMIT",
      "",
    ].join("\n");
    for (const family of ["IPv4", "IPv6"] as const)
      expect(outcome(text, family, true)).toEqual(outcome(text, family, false));
  });

  test("a kube-proxy dump is read by shapes, to the same rule set", () => {
    const read = jest.spyOn(RuleShapes.prototype, "read");
    try {
      const text = kubeProxyDump(40, 3);
      const shaped = parseIptables(text, { family: "IPv4" });
      const hits = read.mock.results.filter((r) => r.value !== undefined).length;
      const rules = text.split("\n").filter((l) => l.startsWith("-A")).length;
      // All but the first rule of each kind.
      expect(hits).toBeGreaterThan(rules * 0.9);
      expect(shaped).toEqual(parseIptables(text, { family: "IPv4", shapes: false }));
    } finally {
      read.mockRestore();
    }
  });
});
