/**
 * The real kernel is the oracle: random restore inputs go through `iptables-restore` and
 * `iptables-save` (ip6tables for IPv6) in a scratch netns, and our canonical serializer must
 * print exactly what the kernel prints; an input the kernel rejects, we must reject too.
 */
import { afterAll, beforeAll, expect } from "@jest/globals";
import { fc } from "@fast-check/jest";
import { createNetns, deleteNetns, type Netns } from "../../src/backends/netns.js";
import { formatIptablesSave, parseIptables } from "../../src/netfilter/index.js";
import type { IPFamily } from "../../src/net/index.js";
import { kernelRulesOnly, kernelTest } from "../helpers/kernel.js";
import { answersInOrder, okOutput, runBatch, type BatchStep } from "../helpers/netns-batch.js";
import { restoreText } from "./rule-text.arbitrary.js";

// Rules only: loads, checks and listings in its own namespaces, nothing timed.
kernelRulesOnly();

let ns: Netns | undefined;
beforeAll(() => {
  try {
    ns = createNetns("kns-nf");
    for (const [name, type, fam] of [
      ["kns-ip", "hash:ip", "inet"],
      ["kns-ipport", "hash:ip,port", "inet"],
      ["kns-ip6", "hash:ip", "inet6"],
    ])
      ns.run("ipset", ["create", name as string, type as string, "family", fam as string]);
  } catch {
    ns = undefined;
  }
});
afterAll(() => {
  if (ns !== undefined) deleteNetns(ns);
});

function stripHeader(s: string): string {
  return s
    .split("\n")
    .filter((l) => !l.startsWith("#"))
    .join("\n");
}

function oursOrError(text: string, family: IPFamily): string | Error {
  try {
    return formatIptablesSave(parseIptables(text, { family }), { counters: false });
  } catch (e) {
    return e as Error;
  }
}

/** One rule line broken the way hand-written rules go wrong. */
function mutate(text: string, seed: number, how: number): string {
  const lines = text.split("\n");
  const ruleIdx = lines.map((l, i) => (l.startsWith("-A ") ? i : -1)).filter((i) => i >= 0);
  if (ruleIdx.length === 0) return text;
  const i = ruleIdx[seed % ruleIdx.length] as number;
  const words = (lines[i] as string).split(" ");
  const mutations = [
    () => [...words.slice(0, -1)],
    () => [...words, "--bogus"],
    () => [...words, "-j", "NOPE"],
    () => words.map((w) => (/^[0-9]+$/.test(w) ? "70000" : w)),
    () => [...words, "!"],
    () => [...words.slice(0, 2), "-m", "tcp", ...words.slice(2)],
    () => [...words.slice(0, 2), "-p", "udp", ...words.slice(2)],
    () => words.map((w) => (w === "-p" ? "-m" : w)),
    // Numbers as libxtables reads them: a leading zero makes an octet octal.
    () => words.map((w) => w.replace(/(^|[.\-/])([1-9])(?=[.:/-]|$)/, "$10$2")),
    // ... hex and a sign, which libxtables reads but a service lookup (udp, conntrack) does not.
    () =>
      words.map((w) =>
        w.replace(
          /(^|[:,])([0-9]+)(?=[:,]|$)/g,
          (_, p: string, n: string) => `${p}0x${Number(n).toString(16)}`,
        ),
      ),
    () => words.map((w) => (/^[0-9]+$/.test(w) ? `+${w}` : w)),
    // The rule in another chain of its table (a hook its target or matches may refuse).
    () => [words[0] as string, "OUTPUT", ...words.slice(2)],
    () => [words[0] as string, "PREROUTING", ...words.slice(2)],
    // A jump back to the chain itself: a loop, refused only if a built-in chain reaches it.
    () => {
      const j = words.findIndex((w, k) => k >= 2 && (w === "-j" || w === "-g"));
      return [...(j === -1 ? words : words.slice(0, j)), "-j", words[1] as string];
    },
  ];
  lines[i] = (mutations[how % mutations.length] as () => string[])().join(" ");
  return lines.join("\n");
}

interface KernelResult {
  readonly status: number;
  readonly stderr: string;
  /** `TOOL-save` after a restore that loaded. */
  readonly save?: string;
}

/**
 * What the kernel makes of each input: `TOOL-restore`, then `TOOL-save` if it loaded, input
 * after input in this order, from one shell in the namespace (runBatch: one spawn from the jest
 * worker instead of two per input).
 */
function kernelResults(netns: Netns, tool: string, texts: readonly string[]): KernelResult[] {
  const steps = (text: string): BatchStep[] => [
    { cmd: `${tool}-restore`, args: [], input: text },
    { cmd: `${tool}-save`, args: [], ifOk: true },
  ];
  return runBatch(netns, texts.map(steps)).map(([restore, save], k) => {
    if (restore === undefined) throw new Error(`${tool}-restore did not run: ${texts[k]}`);
    return {
      status: restore.status,
      stderr: restore.stderr,
      ...(restore.status === 0 ? { save: okOutput(steps("")[1]!, save) } : {}),
    };
  });
}

function checkFamily(family: IPFamily, runs: number, broken = false): void {
  const tool = family === "IPv4" ? "iptables" : "ip6tables";
  const netns = ns as Netns;
  const caseText = (text0: string, seed: number, how: number): string => {
    const text1 =
      family === "IPv6"
        ? text0.replace(/kns-ip /g, "kns-ip6 ").replace(/kns-ipport/g, "kns-ip6")
        : text0;
    return broken ? mutate(text1, seed, how) : text1;
  };
  const live = (text: string): KernelResult => {
    const r = netns.run(`${tool}-restore`, [], text);
    return r.status !== 0
      ? { status: r.status ?? -1, stderr: r.stderr }
      : { status: 0, stderr: r.stderr, save: netns.exec(`${tool}-save`, []) };
  };
  let kernel = live;
  const inputs = [restoreText(family), fc.nat(), fc.nat()] as const;
  const property = fc.property(...inputs, (text0, seed, how) => {
    const text = caseText(text0, seed, how);
    const r = kernel(text);
    const ours = oursOrError(text, family);
    if (r.status !== 0) {
      expect({
        kernel: r.stderr.trim(),
        text,
        oursAccepted: !(ours instanceof Error),
      }).toMatchObject({ oursAccepted: false });
      return;
    }
    if (ours instanceof Error)
      throw new Error(`kernel accepted but we rejected:\n${ours.message}\n${text}`);
    expect(ours).toBe(stripHeader(r.save ?? ""));
  });
  // The kernel's answers for the runs about to be made, from one batch (answersInOrder).
  const params = { numRuns: runs, seed: Math.floor(Math.random() * 0x7fffffff) };
  const texts = fc
    .sample(fc.tuple(...inputs), params)
    .map(([t, seed, how]) => caseText(t, seed, how));
  expect(texts).toHaveLength(runs);
  kernel = answersInOrder(texts, kernelResults(netns, tool, texts), live);
  fc.assert(property, params);
}

kernelTest(
  "iptables-restore → iptables-save equals formatIptablesSave(parseIptables()) (IPv4)",
  ["root", "ip", "iptables", "ipset"],
  () => {
    checkFamily("IPv4", 60);
  },
);

kernelTest(
  "inputs iptables-restore rejects are rejected by parseIptables, and vice versa (mutated rules)",
  ["root", "ip", "iptables", "ipset"],
  () => {
    checkFamily("IPv4", 80, true);
  },
);

kernelTest(
  "ip6tables-restore → ip6tables-save equals formatIptablesSave(parseIptables()) (IPv6)",
  ["root", "ip", "ip6tables", "ipset"],
  () => {
    checkFamily("IPv6", 60);
  },
);
