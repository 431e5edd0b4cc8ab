/**
 * Issue 19: iptables-restore reads each line with fgets and then handles it as a C string, so a
 * NUL byte ends the line where it stands and the rest of that line is ignored; a line left
 * blank that way is refused ("no command specified"). Every case is loaded into the kernel
 * (iptables-restore, then iptables-save) and compared with what our parser makes of it.
 */
import { expect, test } from "@jest/globals";
import { withNetns } from "../../../src/backends/netns.js";
import {
  formatIptablesSave,
  IptablesParseError,
  parseIptables,
} from "../../../src/netfilter/index.js";
import { kernelRulesOnly, kernelTest } from "../../helpers/kernel.js";

// Rules only: loads, checks and listings in its own namespaces, nothing timed.
kernelRulesOnly();

const HEAD = "*filter\n:INPUT ACCEPT [0:0]\n";

interface Case {
  readonly name: string;
  readonly text: string;
  /** What the kernel was seen to do (the test checks it again): the rule saved, or the failing line. */
  readonly expected: { readonly saved: string } | { readonly failsAt: number };
}

const CASES: readonly Case[] = [
  {
    name: "in the middle of a rule: the rest is ignored, the rule has no target",
    text: `${HEAD}-A INPUT -s 10.0.0.1\0 -j DROP\nCOMMIT\n`,
    expected: { saved: "-A INPUT -s 10.0.0.1/32" },
  },
  {
    name: "inside a quoted comment: the comment ends there, the open quote with it",
    text: `${HEAD}-A INPUT -m comment --comment "a b\0cd" -j ACCEPT\n-A INPUT -j DROP\nCOMMIT\n`,
    expected: { saved: '-A INPUT -m comment --comment "a b"\n-A INPUT -j DROP' },
  },
  {
    name: "after the target: ignored",
    text: `${HEAD}-A INPUT -j ACCEPT\0 garbage "open\nCOMMIT\n`,
    expected: { saved: "-A INPUT -j ACCEPT" },
  },
  {
    name: "after COMMIT and after *filter: ignored",
    text: `*filter\0zzz\n:INPUT ACCEPT [0:0]\n-A INPUT -j ACCEPT\nCOMMIT\0xyz\n`,
    expected: { saved: "-A INPUT -j ACCEPT" },
  },
  {
    name: "in a # comment line: still a comment",
    text: `${HEAD}# x\0y\n-A INPUT -j ACCEPT\nCOMMIT\n`,
    expected: { saved: "-A INPUT -j ACCEPT" },
  },
  {
    name: "at the start of a line: a line without a command, refused",
    text: `${HEAD}\0-A INPUT -j ACCEPT\n-A INPUT -j DROP\nCOMMIT\n`,
    expected: { failsAt: 3 },
  },
  {
    name: "after blanks only: refused the same way",
    text: `${HEAD}  \0-A INPUT -j ACCEPT\nCOMMIT\n`,
    expected: { failsAt: 3 },
  },
  {
    name: "inside a chain declaration: the policy is cut off, refused",
    text: `*filter\n:FOO\0bar - [0:0]\n-A FOO -j ACCEPT\nCOMMIT\n`,
    expected: { failsAt: 2 },
  },
  {
    name: "inside the chain name of a rule: an unknown chain, refused",
    text: `${HEAD}-A INP\0UT -j DROP\nCOMMIT\n`,
    expected: { failsAt: 3 },
  },
];

/** The -A lines of an iptables-save dump, in order. */
function rulesOf(save: string): string {
  return save
    .split("\n")
    .filter((l) => l.startsWith("-A "))
    .join("\n");
}

function ours(text: string): { saved: string } | { failsAt: number } {
  try {
    return { saved: rulesOf(formatIptablesSave(parseIptables(text), { counters: false })) };
  } catch (e) {
    if (e instanceof IptablesParseError) return { failsAt: e.issues[0]!.source!.line };
    throw e;
  }
}

kernelTest(
  "a NUL byte in a rules line: iptables-restore and our parser agree",
  ["root", "ip", "iptables"],
  async () => {
    expect(CASES.length).toBeGreaterThan(0);
    await withNetns(
      1,
      ([ns]) => {
        for (const c of CASES) {
          ns!.run("iptables", ["-t", "filter", "-F"]);
          ns!.run("iptables", ["-t", "filter", "-X"]);
          const restored = ns!.run("iptables-restore", [], c.text);
          let kernel: { saved: string } | { failsAt: number };
          if (restored.status === 0) {
            kernel = { saved: rulesOf(ns!.run("iptables-save", ["-t", "filter"]).stdout) };
          } else {
            const m = /line:? (\d+)/.exec(restored.stderr);
            kernel = { failsAt: m === null ? -1 : Number(m[1]) };
          }
          expect({ name: c.name, kernel }).toEqual({ name: c.name, kernel: c.expected });
          expect({ name: c.name, ours: ours(c.text) }).toEqual({ name: c.name, ours: c.expected });
        }
      },
      "kns-nul",
    );
  },
);

test("a line a NUL byte leaves blank is named, with its column", () => {
  expect(() =>
    parseIptables(`${HEAD}  \0-A INPUT -j ACCEPT\nCOMMIT\n`, { file: "f.rules" }),
  ).toThrow(
    /^f\.rules:3: a NUL byte at column 3 ends the line, leaving no command: iptables-restore refuses it \("no command specified"\)$/,
  );
});
