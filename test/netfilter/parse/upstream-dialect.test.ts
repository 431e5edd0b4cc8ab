/**
 * The `upstream-test` dialect: what kube-proxy's fake iptables (`ParseIPTablesDump` /
 * `ParseRule` in pkg/util/iptables/testing/parse.go) accepts in its fixtures and
 * iptables-restore does not, and nothing more.
 */
import { describe, expect } from "@jest/globals";
import { fc, test } from "@fast-check/jest";
import { readFileSync } from "node:fs";
import {
  formatIptablesRestore,
  formatIptablesSave,
  IptablesParseError,
  parseIptables,
  type IptablesDialect,
  type RuleSet,
} from "../../../src/netfilter/index.js";
import { ACCEPTANCE_DIR } from "../../helpers/shared.js";
import { restoreText } from "../rule-text.arbitrary.js";

const FIXTURE = `${ACCEPTANCE_DIR}/iptables/trace-packet-static/input.iptables`;

function issues(text: string, dialect: IptablesDialect): string[] {
  try {
    parseIptables(text, { file: "f", dialect });
  } catch (e) {
    if (e instanceof IptablesParseError) return e.message.split("\n");
    throw e;
  }
  return [];
}

function rulesOf(rs: RuleSet, table: string, chain: string) {
  return rs.tables.find((t) => t.name === table)?.chains.find((c) => c.name === chain)?.rules;
}

describe('parseIptables { dialect: "upstream-test" }', () => {
  const text =
    "*nat\n:PREROUTING - [0:0]\n:OUTPUT DROP [0:0]\n:KUBE-SERVICES - [0:0]\n" +
    "-A PREROUTING -m comment --comment kubernetes service portals -j KUBE-SERVICES\n" +
    "-A OUTPUT -m comment --comment kubernetes -p tcp --dport 80 -j KUBE-SERVICES\nCOMMIT\n";

  test("accepts a built-in chain declared with policy - (it keeps its policy)", () => {
    const rs = parseIptables(text, { dialect: "upstream-test" });
    const nat = rs.tables[0]!;
    expect(nat.chains.find((c) => c.name === "PREROUTING")?.policy).toBe("ACCEPT");
    expect(nat.chains.find((c) => c.name === "OUTPUT")?.policy).toBe("DROP");
    const again = parseIptables("*filter\n:INPUT DROP [0:0]\n:INPUT - [0:0]\nCOMMIT\n", {
      dialect: "upstream-test",
    });
    expect(again.tables[0]!.chains.find((c) => c.name === "INPUT")?.policy).toBe("DROP");
  });

  test("takes the first word of an unquoted multi-word comment and skips the rest", () => {
    const rs = parseIptables(text, { dialect: "upstream-test" });
    const [r] = rulesOf(rs, "nat", "PREROUTING")!;
    expect(r!.matches).toEqual([{ module: "comment", comment: "kubernetes" }]);
    expect(r!.target).toEqual({ kind: "jump", chain: "KUBE-SERVICES", goto: false });
    // The words as written are all kept (the upstream tracer reads them).
    expect(r!.written).toBe("-m comment --comment kubernetes service portals -j KUBE-SERVICES");
    // A single-word comment followed by options is read as usual.
    const [o] = rulesOf(rs, "nat", "OUTPUT")!;
    expect(o!.matches.map((m) => m.module)).toEqual(["comment", "tcp"]);
  });

  test("the strict (default) dialect rejects both leniencies, as iptables-restore does", () => {
    expect(issues(text, "iptables-restore")).toEqual([
      'f:2: bad policy "-" for built-in chain "PREROUTING"',
      'f:5: bad argument "service"',
    ]);
    expect(issues(text, "upstream-test")).toEqual([]);
  });

  test.each([
    // Bare words anywhere but right after --comment VALUE.
    ["-A INPUT -p tcp stray -j ACCEPT", 'f:3: bad argument "stray"'],
    ["-A INPUT -j ACCEPT stray", 'f:3: bad argument "stray"'],
    ["-A INPUT stray -m comment --comment a", 'f:3: bad argument "stray"'],
    ["-A INPUT -m comment --comment a -p tcp stray", 'f:3: bad argument "stray"'],
    // A negated bare word is not a comment word.
    ["-A INPUT -m comment --comment a ! stray", 'f:3: bad argument "stray"'],
    // Option-looking words after the comment are still options.
    ["-A INPUT -m comment --comment a b --bogus", 'f:3: unknown option "--bogus"'],
    ["-A INPUT -m comment --comment", 'f:3: option "--comment" requires an argument'],
    [
      "-A INPUT -m comment --comment a b -j NOPE",
      'f:3: chain "NOPE" does not exist (jump from chain "INPUT")',
    ],
    // Policies other than "-" on a built-in chain, and any policy on a user chain.
    [":INPUT BOGUS [0:0]", 'f:3: bad policy "BOGUS" for built-in chain "INPUT"'],
    [":USER ACCEPT [0:0]", 'f:3: cannot set policy "ACCEPT" on user-defined chain "USER"'],
    [":INPUT - [x]", 'f:3: chain "INPUT": bad counters "[x]"'],
    ["-P INPUT -", 'f:3: bad policy "-": expected ACCEPT or DROP'],
  ])("still rejects %j", (line, message) => {
    const input = `*filter\n:INPUT - [0:0]\n${line}\nCOMMIT\n`;
    expect(issues(input, "upstream-test")).toEqual([message]);
  });

  test("still requires COMMIT and known tables", () => {
    expect(issues("*filter\n:INPUT - [0:0]\n", "upstream-test")).toEqual([
      'f:3: COMMIT expected for table "filter"',
    ]);
    expect(issues("*bogus\nCOMMIT\n", "upstream-test")[0]).toBe(
      'f:1: table "bogus" does not exist',
    );
  });

  test("reads the trace-packet-static fixture, which the strict parser refuses", () => {
    const fixture = readFileSync(FIXTURE, "utf8");
    expect(issues(fixture, "iptables-restore").length).toBeGreaterThan(0);
    const rs = parseIptables(fixture, { dialect: "upstream-test" });
    const [health] = rulesOf(rs, "filter", "INPUT")!;
    expect(health!.matches).toEqual([{ module: "comment", comment: "kubernetes" }]);
    // Written words survive a restore round trip (declarations get the canonical policy).
    expect(formatIptablesRestore(rs)).toContain(
      "-A INPUT -m comment --comment kubernetes health check service ports -j KUBE-NODEPORTS\n",
    );
  });

  test.prop([fc.constantFrom("IPv4" as const, "IPv6" as const).chain((f) => restoreText(f))], {
    numRuns: 60,
  })("on iptables-restore input both dialects give the same result or error", (input) => {
    const read = (dialect: IptablesDialect) => {
      try {
        const rs = parseIptables(input, { dialect });
        return { save: formatIptablesSave(rs), restore: formatIptablesRestore(rs) };
      } catch (e) {
        if (e instanceof IptablesParseError) return { error: e.message };
        throw e;
      }
    };
    expect(read("upstream-test")).toEqual(read("iptables-restore"));
  });
});
