/** Parser behaviour checked against iptables-nft-restore v1.8.9 (see the comments for what it did). */
import { describe, expect } from "@jest/globals";
import { fc, test } from "@fast-check/jest";
import { readFileSync } from "node:fs";
import {
  formatIptablesRestore,
  formatIptablesSave,
  IptablesParseError,
  parseIptables,
  splitRestoreWords,
  type Rule,
  type RuleSet,
} from "../../../src/netfilter/index.js";

function issues(text: string): string[] {
  try {
    parseIptables(text, { file: "f" });
  } catch (e) {
    if (e instanceof IptablesParseError) return e.message.split("\n");
    throw e;
  }
  return [];
}

describe("parseIptables", () => {
  test("restore commands: -N, -I [n], -F, -X, redeclared chains", () => {
    // iptables-restore: INPUT = DROP, FOO, ACCEPT; a redeclared user chain is flushed.
    const rs = parseIptables(
      "*filter\n:INPUT ACCEPT [0:0]\n-N FOO\n-A INPUT -j ACCEPT\n-I INPUT -j DROP\n-I INPUT 2 -j FOO\n-A FOO -j RETURN\n:A - [0:0]\n-A A -j ACCEPT\n:A - [0:0]\n-A A -j DROP\n:B - [0:0]\n-X B\nCOMMIT\n",
    );
    expect(formatIptablesSave(rs)).toBe(
      "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n:A - [0:0]\n:FOO - [0:0]\n-A INPUT -j DROP\n-A INPUT -j FOO\n-A INPUT -j ACCEPT\n-A A -j DROP\n-A FOO -j RETURN\nCOMMIT\n",
    );
  });
  test.each([
    ["-A INPUT -j ACCEPT\n", 'f:1: "-A" outside of a table'],
    ["*filter\n-A INPUT -j ACCEPT\n", "f:3: COMMIT expected"],
    [
      "*filter\n-A INPUT -j ACCEPT\n*nat\nCOMMIT\n",
      'f:3: "*nat": table "filter" was not committed',
    ],
    ["*filter\n:A - [0:0]\n-N A\nCOMMIT\n", 'f:3: chain "A" already exists'],
    ["*filter\n:A - [0:0]\n-A INPUT -j A\n-X A\nCOMMIT\n", 'f:4: cannot delete chain "A"'],
    ["*filter\n-X NOPE\nCOMMIT\n", 'f:2: chain "NOPE" does not exist'],
    ["*filter\n-A NOPE -j ACCEPT\nCOMMIT\n", 'f:2: chain "NOPE" does not exist'],
    ["*filter\n-A OUTPUT -i eth0 -j ACCEPT\nCOMMIT\n", "f:2: can't use -i with OUTPUT"],
    [
      "*nat\n-A PREROUTING -j MASQUERADE\nCOMMIT\n",
      'f:2: target "MASQUERADE" is not valid in the PREROUTING hook',
    ],
    [
      "*filter\n-A INPUT -s 1.2.3.4/33 -j ACCEPT\nCOMMIT\n",
      'f:2: -s: invalid address "1.2.3.4/33"',
    ],
    ["*bogus\nCOMMIT\n", 'f:1: table "bogus" does not exist'],
    ["*filter\n:X ACCEPT [0:0]\nCOMMIT\n", "f:2: cannot set policy"],
    ["*filter\n-A INPUT -j ACCEPT extra\nCOMMIT\n", 'f:2: bad argument "extra"'],
    // A target iptables has and kube-netsim does not is named as such.
    [
      "*nat\n-A PREROUTING -p tcp -j REDIRECT --to-ports 8080\nCOMMIT\n",
      'f:2: target "REDIRECT" is not modelled by kube-netsim (option "--to-ports")',
    ],
    ["*mangle\n-A PREROUTING -j TRACE\nCOMMIT\n", 'f:2: target "TRACE" is not modelled'],
  ])("rejects %j", (text, message) => {
    expect(issues(text)[0]).toContain(message);
  });
  test("a user chain may have the name of a target kube-netsim does not model", () => {
    const rs = parseIptables("*filter\n:TRACE - [0:0]\n-A INPUT -j TRACE\nCOMMIT\n");
    expect(rs.tables[0]?.chains.find((c) => c.name === "INPUT")?.rules[0]?.target).toEqual({
      kind: "jump",
      chain: "TRACE",
      goto: false,
    });
  });
  test("counters before -A and on chains are kept", () => {
    const rs = parseIptables("*filter\n:INPUT DROP [5:100]\n[3:4] -A INPUT -j ACCEPT\nCOMMIT\n");
    const input = rs.tables[0]?.chains[0];
    expect(input?.counters).toEqual({ packets: 5n, bytes: 100n });
    expect(input?.rules[0]?.counters).toEqual({ packets: 3n, bytes: 4n });
    expect(formatIptablesSave(rs, { counters: false })).toContain(":INPUT DROP [0:0]");
  });
  test("IPv6 is sniffed from the addresses", () => {
    expect(parseIptables("*filter\n-A INPUT -d fd00::1 -j ACCEPT\nCOMMIT\n").family).toBe("IPv6");
  });
});

describe("splitRestoreWords (iptables-restore's add_param_to_argv)", () => {
  test.each([
    ['-m comment --comment "a b" -j X', ["-m", "comment", "--comment", "a b", "-j", "X"]],
    ['"a\\"b" ""', ['a"b', ""]],
    ['ab"c d"e', ["abc d", "e"]],
    ["a\\b\tc", ["a\\b", "c"]],
  ])("%s", (line, words) => {
    expect(splitRestoreWords(line).words).toEqual(words);
  });
  test.prop([
    fc.array(
      fc.string().filter((s) => !/[ \t\n"]/.test(s)),
      { maxLength: 8 },
    ),
  ])("unquoted words split on spaces", (ws) => {
    const nonEmpty = ws.filter((w) => w !== "");
    expect(splitRestoreWords(nonEmpty.join(" ")).words).toEqual(nonEmpty);
  });
});

describe("formatIptablesRestore", () => {
  test("kube-proxy restore text round-trips byte for byte", () => {
    const text = readFileSync("examples/netfilter/kube-proxy.rules", "utf8");
    expect(formatIptablesRestore(parseIptables(text))).toBe(text);
  });
  test("spread copies of parsed rules still print as written", () => {
    const text = readFileSync("examples/netfilter/kube-proxy.rules", "utf8");
    const rs = parseIptables(text);
    const copy = (keep: boolean): RuleSet => ({
      ...rs,
      tables: rs.tables.map((t) => ({
        ...t,
        chains: t.chains.map((c) => ({
          ...c,
          rules: c.rules.map((r): Rule => {
            if (keep) return { ...r };
            return Object.fromEntries(Object.entries(r).filter(([k]) => k !== "written")) as Rule;
          }),
        })),
      })),
    });
    const first = rs.tables.flatMap((t) => t.chains.flatMap((c) => c.rules))[0]!;
    expect(Object.keys(first)).toContain("written");
    expect(formatIptablesRestore(copy(true))).toBe(text);
    // Without the words the same rules print canonically, which differs from kube-proxy's text.
    expect(formatIptablesRestore(copy(false))).not.toBe(text);
  });
  test("-X lines and declarations keep their place", () => {
    const text =
      "*nat\n:KUBE-SERVICES - [0:0]\n:KUBE-SVC-OLD - [0:0]\n-A KUBE-SERVICES -j RETURN\n-X KUBE-SVC-OLD\nCOMMIT\n";
    expect(formatIptablesRestore(parseIptables(text))).toBe(text);
  });
});
