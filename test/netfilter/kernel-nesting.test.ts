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
import { answersInOrder, runBatch } from "../helpers/netns-batch.js";
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
  return verdictOf(tool, r.status, r.stderr);
}

/** The line a failed restore names; undefined when it loaded. */
function verdictOf(tool: string, status: number | null, stderr: string): number | undefined {
  if (status === 0) return undefined;
  const m = /line (\d+):/.exec(stderr);
  if (m === null) throw new Error(`unexpected ${tool} error: ${stderr}`);
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
      const graphs = fc.integer({ min: 1, max: 20 }).chain(jumpGraph);
      const params = { numRuns: soakRuns(40, 120), seed: Math.floor(Math.random() * 0x7fffffff) };
      // The kernel's verdicts for the runs about to be made (the first 500 of a soak), from one
      // shell (answersInOrder).
      const texts = fc
        .sample(fc.tuple(graphs), { ...params, numRuns: Math.min(params.numRuns, 500) })
        .map(([t]) => t);
      expect(texts.length).toBeGreaterThan(0);
      const tool = family === "IPv4" ? "iptables-restore" : "ip6tables-restore";
      const batched = runBatch(
        ns as Netns,
        texts.map((text) => [{ cmd: tool, args: [], input: text }]),
      ).map(([r]) => verdictOf(tool, r!.status, r!.stderr));
      const kernel = answersInOrder(texts, batched, (text) => kernelVerdict(text, family));
      fc.assert(
        fc.property(graphs, (text) => {
          expect(ourVerdict(text, family)).toBe(kernel(text));
        }),
        params,
      );
    },
  );

test("a chain of 100,000 nested jumps is refused, without running out of stack", () => {
  const text = line(100_000);
  expect(() => parseIptables(text, { family: "IPv4" })).toThrow(/nests chains deeper/);
});
