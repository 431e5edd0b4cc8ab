/**
 * The kernel's limit on nested chains (src/netfilter/parse/nesting.ts), with the real kernel as
 * the oracle: random jump graphs, loops and long chains of jumps go through iptables-restore in
 * a scratch netns; our parse must accept exactly what the kernel accepts, and when both refuse,
 * name the line iptables-restore names first.
 */
import { afterAll, beforeAll, expect, test } from "@jest/globals";
import { fc } from "@fast-check/jest";
import { createNetns, deleteNetns, type Netns } from "../../src/backends/netns.js";
import { IptablesParseError, parseIptables } from "../../src/netfilter/index.js";
import type { IPFamily } from "../../src/net/index.js";
import { kernelRulesOnly, kernelTest } from "../helpers/kernel.js";
import { soakRuns } from "../helpers/soak.js";

// Rules only: loads, checks and listings in its own namespaces, nothing timed.
kernelRulesOnly();

let ns: Netns | undefined;
beforeAll(() => {
  ns = createNetns("kns-nf");
});
afterAll(() => {
  if (ns !== undefined) deleteNetns(ns);
});

const TABLES = {
  filter: ["INPUT", "FORWARD", "OUTPUT"],
  nat: ["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"],
} as const;

/** A table whose rules jump between `chains` user chains (C0...) and from its built-in chains. */
function jumpGraph(chains: number) {
  return fc
    .tuple(
      fc.constantFrom<keyof typeof TABLES>("filter", "nat"),
      fc.array(
        fc.tuple(
          fc.integer({ min: -2, max: chains - 1 }),
          fc.integer({ min: 0, max: chains - 1 }),
          fc.boolean(),
        ),
        { minLength: 1, maxLength: chains * 2 },
      ),
    )
    .map(([table, edges]) => {
      const builtins = TABLES[table];
      const from = (k: number) => (k < 0 ? builtins[-k - 1] : `C${k}`) as string;
      return [
        `*${table}`,
        ...builtins.map((b) => `:${b} ACCEPT [0:0]`),
        ...Array.from({ length: chains }, (_, k) => `:C${k} - [0:0]`),
        ...edges.map(([a, b, goto]) => `-A ${from(a)} ${goto ? "-g" : "-j"} C${b}`),
        "COMMIT",
        "",
      ].join("\n");
    });
}

/** A straight line of `n` nested jumps from INPUT. */
function line(n: number): string {
  return [
    "*filter",
    ":INPUT ACCEPT [0:0]",
    ...Array.from({ length: n }, (_, k) => `:C${k} - [0:0]`),
    "-A INPUT -j C0",
    ...Array.from({ length: n - 1 }, (_, k) => `-A C${k} -j C${k + 1}`),
    "COMMIT",
    "",
  ].join("\n");
}

/** The first line iptables-restore names, or undefined if it accepts the text. */
function kernelVerdict(text: string, family: IPFamily): number | undefined {
  const tool = family === "IPv4" ? "iptables-restore" : "ip6tables-restore";
  const r = (ns as Netns).run(tool, [], text);
  if (r.status === 0) return undefined;
  const m = /line (\d+):/.exec(r.stderr);
  if (m === null) throw new Error(`unexpected ${tool} error: ${r.stderr}`);
  return Number(m[1]);
}

function ourVerdict(text: string, family: IPFamily): number | undefined {
  try {
    parseIptables(text, { family });
    return undefined;
  } catch (e) {
    if (!(e instanceof IptablesParseError)) throw e;
    return e.issues[0]?.source?.line;
  }
}

kernelTest(
  "nesting: 15 jumps from a built-in chain load, 16 do not, as in the kernel",
  ["root", "ip", "iptables"],
  () => {
    for (const n of [1, 15, 16, 17, 40]) {
      const text = line(n);
      expect({ n, ours: ourVerdict(text, "IPv4") }).toEqual({
        n,
        ours: kernelVerdict(text, "IPv4"),
      });
    }
    expect(ourVerdict(line(15), "IPv4")).toBeUndefined();
    expect(ourVerdict(line(16), "IPv4")).toBeDefined();
  },
);

for (const family of ["IPv4", "IPv6"] as const)
  kernelTest(
    `nesting: random jump graphs load in our parse exactly when they load in the kernel (${family})`,
    ["root", "ip", family === "IPv4" ? "iptables" : "ip6tables"],
    () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 20 }).chain(jumpGraph), (text) => {
          expect(ourVerdict(text, family)).toBe(kernelVerdict(text, family));
        }),
        { numRuns: soakRuns(40, 120) },
      );
    },
  );

test("a chain of 100,000 nested jumps is refused, without running out of stack", () => {
  const text = line(100_000);
  expect(() => parseIptables(text, { family: "IPv4" })).toThrow(/nests chains deeper/);
});
