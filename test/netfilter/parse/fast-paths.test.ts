/**
 * The parser's shortcuts against the general paths they stand for: the words-only splitter and
 * word offsets against `splitRestoreWords`, the build cache's last-key memo against a plain map
 * of whole keys, and the remembered chains and jump checks against a small model of
 * iptables-restore's chain commands.
 */
import { describe, expect } from "@jest/globals";
import { fc, test } from "@fast-check/jest";
import {
  IptablesParseError,
  parseIptables,
  splitRestoreWords,
} from "../../../src/netfilter/index.js";
import { BuildCache } from "../../../src/netfilter/parse/build-cache.js";
import { SharedValues } from "../../../src/netfilter/parse/shared-values.js";
import { splitWords, wordOffset } from "../../../src/netfilter/parse/words.js";
import type { Negatable } from "../../../src/netfilter/model.js";

const lineChars = fc.constantFrom(" ", " ", "\t", '"', "\\", "a", "b", "-", "!");
const restoreLine = fc.string({ unit: lineChars, maxLength: 30 });

describe("splitWords and wordOffset", () => {
  test.prop([restoreLine], { numRuns: 300 })("splitWords = splitRestoreWords().words", (line) => {
    expect(splitWords(line)).toEqual(splitRestoreWords(line).words);
  });
  // Lines whose quotes wrap whole words (split from the spaces) and near misses (scanned).
  const plain = fc.string({
    unit: fc.constantFrom("a", "b", "-", "!"),
    minLength: 1,
    maxLength: 4,
  });
  const quoted = fc.array(fc.string({ unit: fc.constantFrom("a", "b", '"'), maxLength: 3 }), {
    maxLength: 3,
  });
  const wordsLine = fc
    .array(
      fc.oneof(
        plain,
        quoted.map((ws) => `"${ws.join(" ")}"`),
      ),
      { maxLength: 6 },
    )
    .map((ws) => ws.join(" "));
  test.prop([wordsLine], { numRuns: 300 })("splitWords of quoted words", (line) => {
    expect(splitWords(line)).toEqual(splitRestoreWords(line).words);
  });
  test.prop([restoreLine, fc.nat({ max: 8 })], { numRuns: 300 })(
    "the words from wordOffset(k) on are the k-th word on, raw texts too",
    (line, k) => {
      const all = splitRestoreWords(line);
      const rest = splitRestoreWords(line.slice(wordOffset(line, k)));
      expect(rest.raw).toEqual(all.raw.slice(k));
      expect(rest.words).toEqual(all.words.slice(k));
    },
  );
});

describe("Rule.written (the text of the words after the chain)", () => {
  const body = fc.constantFrom(
    "-j ACCEPT",
    '-m comment --comment "a b" -j ACCEPT',
    '-m comment\t--comment  "x \\" y"   -j DROP',
    "",
    "-p tcp --dport 80 -j ACCEPT ",
  );
  const prefix = fc.constantFrom(
    "-A INPUT",
    "[1:2] -A INPUT",
    "-I INPUT 1",
    "-I INPUT",
    "-A\tINPUT ",
  );
  test.prop([prefix, body, fc.constantFrom("\n", "\r\n")], { numRuns: 100 })(
    "the words after the chain (and insert index) as written",
    (head, rest, eol) => {
      const line = rest === "" ? head : `${head} ${rest}`;
      const rs = parseIptables(`*filter${eol}${line}${eol}COMMIT${eol}`);
      const rule = rs.tables[0]?.chains.find((c) => c.name === "INPUT")?.rules[0];
      // The text after the head's words, inner spacing kept, trailing blanks cut.
      expect(rule?.written).toBe(rest.replace(/[ \t]+$/, ""));
      const start = splitRestoreWords(head).raw.length;
      expect(splitRestoreWords(rule?.written ?? "").raw).toEqual(
        splitRestoreWords(line).raw.slice(start),
      );
    },
  );
});

describe("match lists shared with recent rules", () => {
  const match = fc.constantFrom(
    "-m comment --comment a",
    "-m comment --comment b",
    "-p tcp -m tcp --dport 1",
    "-m mark --mark 0x1",
    "-m mark --mark 0x2",
  );
  test.prop([fc.array(fc.array(match, { minLength: 1, maxLength: 4 }), { maxLength: 12 })], {
    numRuns: 100,
  })("each rule's matches are those of the rule read alone", (rules) => {
    // A rule with -p twice is not a rule: keep the first -p only.
    const lines = rules.map((ms) => {
      let p = false;
      const words = ms.map((m) => {
        if (!m.startsWith("-p ")) return m;
        if (p) return m.slice("-p tcp ".length);
        p = true;
        return m;
      });
      return `-A INPUT ${words.join(" ")} -j ACCEPT`;
    });
    const parse = (ls: string[]) =>
      parseIptables(`*filter\n${ls.join("\n")}\nCOMMIT\n`).tables[0]?.chains[0]?.rules ?? [];
    const all = parse(lines);
    lines.forEach((l, i) => {
      expect(all[i]?.matches).toEqual(parse([l])[0]?.matches);
    });
  });
});

describe("BuildCache", () => {
  const word = fc.constantFrom("a", "b", "!", "--x", "--y");
  // A key decodes only because an option's name fixes how many arguments follow it, as every
  // extension's option specs do (see build-cache.ts): here --x takes 1, --y none, --z 2.
  const ARITY: Readonly<Record<string, number>> = { "--x": 1, "--y": 0, "--z": 2 };
  const option = fc
    .tuple(
      fc.constantFrom("--x", "--y", "--z"),
      fc.boolean(),
      fc.array(word, { minLength: 2, maxLength: 2 }),
    )
    .map(([name, negated, args]) => ({ name, negated, args: args.slice(0, ARITY[name]) }));
  const protocols: (Negatable<string> | undefined)[] = [
    undefined,
    { value: "tcp", negated: false },
    { value: "tcp", negated: true },
    { value: "udp", negated: false },
  ];
  const owners = [{}, {}];
  // Keys of a few shapes that differ in their last word (what the memo shortcuts), and any keys.
  const opt = (name: string, negated: boolean, args: string[]) => ({ name, negated, args });
  const shaped = fc
    .tuple(fc.nat({ max: 4 }), fc.constantFrom("a", "b"), fc.constantFrom("a", "b"))
    .map(([shape, w, v]) => {
      if (shape === 0) return [];
      if (shape === 1) return [opt("--x", false, [w])];
      if (shape === 2) return [opt("--z", true, [v, w])];
      if (shape === 3) return [opt("--y", false, []), opt("--x", false, [w])];
      return [
        opt("--x", false, [w]),
        w === "a" ? opt("--y", false, []) : opt("--z", false, [v, w]),
      ];
    });
  const lookup = fc.record({
    owner: fc.constantFrom(0, 0, 0, 1),
    family: fc.constantFrom("IPv4" as const, "IPv4" as const, "IPv4" as const, "IPv6" as const),
    protocol: fc.constantFrom(0, 0, 0, 0, 0, 1, 2, 3),
    options: fc.oneof(shaped, shaped, shaped, fc.array(option, { maxLength: 3 })),
  });
  test.prop([fc.array(lookup, { maxLength: 40 }), fc.constantFrom(3, 1000)], { numRuns: 200 })(
    "finds what a map of whole keys finds",
    (lookups, limit) => {
      const cache = new BuildCache(limit, Infinity);
      // The reference: whole keys; cleared when the cache starts over at its limit.
      let reference = new Map<string, number>();
      let size = 0;
      lookups.forEach((l, i) => {
        const protocol = protocols[l.protocol];
        const key = JSON.stringify([l.owner, l.family, protocol, l.options]);
        const found = cache.lookup(owners[l.owner] as object, l.family, protocol, l.options);
        expect(found).toBe(reference.get(key));
        if (found === undefined) {
          cache.store(i);
          if (size >= limit) {
            reference = new Map();
            size = 0;
          } else {
            reference.set(key, i);
            size++;
          }
        }
      });
    },
  );
  test("a key that differs from the last one before its last word", () => {
    const cache = new BuildCache(1000);
    const key = (first: string) => [{ name: "--x", negated: true, args: [first, "c"] }];
    expect(cache.lookup(owners[0] as object, "IPv4", undefined, key("a"))).toBeUndefined();
    cache.store(1);
    expect(cache.lookup(owners[0] as object, "IPv4", undefined, key("b"))).toBeUndefined();
    cache.store(2);
    expect(cache.lookup(owners[0] as object, "IPv4", undefined, key("a"))).toBe(1);
    expect(cache.lookup(owners[0] as object, "IPv4", undefined, key("b"))).toBe(2);
  });
  test.prop([fc.array(lookup, { maxLength: 60 })], { numRuns: 200 })(
    "a node that stopped caching finds nothing wrong",
    (lookups) => {
      const cache = new BuildCache(1000, 5);
      const stored = new Map<string, number>();
      lookups.forEach((l, i) => {
        const protocol = protocols[l.protocol];
        const key = JSON.stringify([l.owner, l.family, protocol, l.options]);
        const found = cache.lookup(owners[l.owner] as object, l.family, protocol, l.options);
        if (found !== undefined) expect(found).toBe(stored.get(key));
        else {
          cache.store(i);
          stored.set(key, i);
        }
      });
    },
  );
});

describe("SharedValues", () => {
  test.prop(
    [fc.array(fc.constantFrom("a", "b", "c", "d"), { maxLength: 60 }), fc.constantFrom(2, 1000)],
    { numRuns: 200 },
  )("finds only what was set under the key, everything while it caches", (keys, limit) => {
    const cache = new SharedValues<number>(limit, 20);
    const set = new Map<string, number>();
    keys.forEach((k, i) => {
      const found = cache.get(k);
      if (found !== undefined) expect(found).toBe(set.get(k));
      // Before it may stop (20 lookups) and start over (limit), it finds every key set.
      else if (i < 20 && limit > 4) expect(set.has(k)).toBe(false);
      if (found === undefined) {
        cache.set(k, i);
        set.set(k, i);
      }
    });
  });
});

/**
 * A model of the chain rules the parser implements (its file comment; iptables.test.ts and
 * kernel-nesting.test.ts check them against iptables-restore v1.8.9) for `:C -`, `-N C`, `-A C -j T`, `-F C`, `-X C` in one
 * filter table: the lines rejected and, when there are none, each chain's jump targets. It has
 * no shortcuts, so it checks the parser's remembered chains and its jump checks at read time.
 */
function model(lines: readonly string[]): { bad: number[]; chains: Map<string, string[]> } {
  const builtin = new Set(["INPUT", "FORWARD", "OUTPUT"]);
  const chains = new Map<string, { target: string; line: number }[]>();
  for (const b of builtin) chains.set(b, []);
  const bad = new Set<number>();
  lines.forEach((l, i) => {
    const line = i + 2;
    const [cmd, c, , t] = l.split(" ") as [string, string, string, string];
    const rules = chains.get(c);
    if (cmd.startsWith(":")) {
      const name = cmd.slice(1);
      // A built-in chain needs a policy, not "-"; a user chain declared again is flushed.
      if (builtin.has(name)) bad.add(line);
      else chains.set(name, []);
    } else if (cmd === "-N") {
      if (rules !== undefined) bad.add(line);
      else chains.set(c, []);
    } else if (rules === undefined) bad.add(line);
    else if (cmd === "-A") rules.push({ target: t, line });
    else if (cmd === "-F") chains.set(c, []);
    else if (cmd === "-X") {
      const referenced = [...chains].some(([n, rs]) => n !== c && rs.some((r) => r.target === c));
      if (builtin.has(c) || referenced) bad.add(line);
      else chains.delete(c);
    }
  });
  for (const rules of chains.values())
    for (const r of rules)
      if (r.target !== "ACCEPT" && (!chains.has(r.target) || builtin.has(r.target)))
        bad.add(r.line);
  // The kernel refuses a path of more than 15 jumps from a built-in chain, so every loop one
  // reaches, and names the first rule (in line order) after which there is such a path.
  const userChain = (t: string) => chains.has(t) && !builtin.has(t);
  const tooDeep = (upTo: number): boolean => {
    const walk = (c: string, path: readonly string[]): boolean =>
      path.length > 16 ||
      (chains.get(c) ?? []).some(
        (r) =>
          r.line <= upTo &&
          userChain(r.target) &&
          (path.includes(r.target) || walk(r.target, [...path, r.target])),
      );
    return [...builtin].some((b) => walk(b, [b]));
  };
  const jumpLines = [...chains.values()]
    .flat()
    .filter((r) => userChain(r.target))
    .map((r) => r.line)
    .sort((a, b) => a - b);
  const first = jumpLines.find((l) => tooDeep(l));
  if (first !== undefined) bad.add(first);
  const targets = new Map([...chains].map(([n, rs]) => [n, rs.map((r) => r.target)]));
  return { bad: [...bad].sort((a, b) => a - b), chains: targets };
}

function checkAgainstModel(lines: readonly string[]): void {
  const text = `*filter\n${lines.map((l) => (l.startsWith(":") ? `${l} [0:0]` : l)).join("\n")}\nCOMMIT\n`;
  const expected = model(lines);
  let bad: number[] = [];
  let chains = new Map<string, string[]>();
  try {
    const rs = parseIptables(text, { maxIssues: 1000 });
    chains = new Map(
      rs.tables[0]?.chains.map((c) => [
        c.name,
        c.rules.map((r) => (r.target?.kind === "jump" ? r.target.chain : (r.target?.kind ?? ""))),
      ]),
    );
  } catch (e) {
    if (!(e instanceof IptablesParseError)) throw e;
    bad = [...new Set(e.issues.map((i) => i.source?.line ?? 0))].sort((a, b) => a - b);
  }
  expect(bad).toEqual(expected.bad);
  if (bad.length === 0) expect(chains).toEqual(expected.chains);
}

describe("chains and jumps", () => {
  const chain = fc.constantFrom("A", "B", "KUBE-SEP-X", "INPUT");
  const target = fc.oneof(chain, fc.constant("ACCEPT"));
  const command = fc.oneof(
    chain.map((c) => `:${c} -`),
    chain.map((c) => `-N ${c}`),
    fc.tuple(chain, target).map(([c, t]) => `-A ${c} -j ${t}`),
    fc.tuple(chain, target).map(([c, t]) => `-A ${c} -j ${t}`),
    chain.map((c) => `-F ${c}`),
    chain.map((c) => `-X ${c}`),
  );
  test.prop([fc.array(command, { maxLength: 30 })], { numRuns: 1000 })(
    "as the model of iptables-restore says",
    (lines) => checkAgainstModel(lines),
  );
  // Chains remembered before -X (the cases the property found when the memo was kept).
  test.each([
    [["-N B", "-A B -j ACCEPT", "-X B", "-A B -j ACCEPT"]],
    [["-N A", "-N B", "-A B -j A", "-F B", "-X A", "-A B -j A"]],
    [[":A -", "-A A -j ACCEPT", "-X A", ":A -", "-A A -j ACCEPT"]],
  ])("%j", (lines) => checkAgainstModel(lines));
});
