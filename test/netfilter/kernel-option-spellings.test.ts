/**
 * Issue 19 item 2: every long option in every spelling getopt_long takes — `--option value`,
 * `--option=value`, and an unambiguous start of the name in both forms — against the kernel
 * (iptables-restore, then iptables-save): refused by both or saved as the same rule. Each
 * option of iptables and of every modelled extension appears in a sample below (a test checks
 * that none is missing); each gets its `=` form, and a property draws abbreviated spellings.
 */
import { afterAll, beforeAll, expect } from "@jest/globals";
import { fc } from "@fast-check/jest";
import { createNetns, deleteNetns, type Netns } from "../../src/backends/netns.js";
import {
  formatIptablesSave,
  IptablesParseError,
  parseIptables,
} from "../../src/netfilter/index.js";
import { MATCH_EXTENSIONS, TARGET_EXTENSIONS } from "../../src/netfilter/registry.js";
import type { IPFamily } from "../../src/net/index.js";
import { kernelRulesOnly, kernelTest } from "../helpers/kernel.js";
import { okOutput, runBatch, type BatchStep } from "../helpers/netns-batch.js";
import { soakRuns } from "../helpers/soak.js";

// Rules only: loads, checks and listings in its own namespaces, nothing timed.
kernelRulesOnly();

let ns: Netns | undefined;
beforeAll(() => {
  ns = createNetns("kns-opt");
});
afterAll(() => {
  if (ns !== undefined) deleteNetns(ns);
});

interface Sample {
  readonly table: string;
  readonly chain: string;
  readonly body: string;
  readonly family?: IPFamily;
}

const f = (body: string): Sample => ({ table: "filter", chain: "INPUT", body });
const at = (table: string, chain: string, body: string): Sample => ({ table, chain, body });

const SAMPLES: readonly Sample[] = [
  f("--protocol tcp --source 10.0.0.1 --destination 10.0.0.2 --in-interface eth0 --jump ACCEPT"),
  f("--src 10.0.0.1 --dst 10.0.0.2 --match comment --comment x --jump ACCEPT"),
  f("--fragment --jump ACCEPT"),
  f("--set-counters 1 2 --jump ACCEPT"),
  at("filter", "OUTPUT", "--out-interface eth0 --jump ACCEPT"),
  f("-p tcp -m tcp --sport 1000 --dport 80 --tcp-flags SYN,ACK SYN -j ACCEPT"),
  f("-p tcp -m tcp --syn --tcp-option 2 -j ACCEPT"),
  f("-p tcp -m tcp --source-port 1000 --destination-port 80 -j ACCEPT"),
  f("-p udp -m udp --sport 53 --dport 53 -j ACCEPT"),
  f("-p udp -m udp --source-port 53 --destination-port 53 -j ACCEPT"),
  f("-p sctp -m sctp --sport 1 --dport 2 --chunk-types any DATA -j ACCEPT"),
  f("-p sctp -m sctp --source-port 1 --destination-port 2 -j ACCEPT"),
  f("-p icmp -m icmp --icmp-type echo-request -j ACCEPT"),
  {
    table: "filter",
    chain: "INPUT",
    body: "-p ipv6-icmp -m icmp6 --icmpv6-type echo-request -j ACCEPT",
    family: "IPv6",
  },
  f("-p tcp -m multiport --sports 1,2 -j ACCEPT"),
  f("-p tcp -m multiport --dports 3,4 -j ACCEPT"),
  f("-p tcp -m multiport --ports 5,6 -j ACCEPT"),
  f("-p tcp -m multiport --source-ports 1 -j ACCEPT"),
  f("-p tcp -m multiport --destination-ports 2 -j ACCEPT"),
  f(
    "-m conntrack --ctstate NEW --ctproto 6 --ctorigsrc 10.0.0.1 --ctorigdst 10.0.0.2 --ctreplsrc 10.0.0.3 --ctrepldst 10.0.0.4 -j ACCEPT",
  ),
  f(
    "-m conntrack --ctorigsrcport 1 --ctorigdstport 2 --ctreplsrcport 3 --ctrepldstport 4 --ctstatus ASSURED --ctdir ORIGINAL -j ACCEPT",
  ),
  f("-m state --state NEW -j ACCEPT"),
  f("-m mark --mark 0x1/0x1 -j ACCEPT"),
  f("-m connmark --mark 0x1 -j ACCEPT"),
  f("-m addrtype --src-type LOCAL --dst-type LOCAL --limit-iface-in -j ACCEPT"),
  at("filter", "OUTPUT", "-m addrtype --dst-type LOCAL --limit-iface-out -j ACCEPT"),
  f("-m statistic --mode random --probability 0.5 -j ACCEPT"),
  f("-m statistic --mode nth --every 2 --packet 1 -j ACCEPT"),
  f("-m recent --set --name foo --mask 255.255.255.255 --rsource -j ACCEPT"),
  f("-m recent --rcheck --seconds 10 --reap --hitcount 2 --rttl --name foo --rdest -j ACCEPT"),
  f("-m recent --update --name foo -j ACCEPT"),
  f("-m recent --remove --name foo -j ACCEPT"),
  f("-m set --match-set kns-opt src -j ACCEPT"),
  f("-m set --set kns-opt src -j ACCEPT"),
  f("-m physdev --physdev-in veth1 --physdev-is-in --physdev-is-bridged -j ACCEPT"),
  at("filter", "FORWARD", "-m physdev --physdev-out veth1 --physdev-is-out -j ACCEPT"),
  f("-m iprange --src-range 10.0.0.1-10.0.0.2 --dst-range 10.0.0.3-10.0.0.4 -j ACCEPT"),
  f("-m nfacct --nfacct-name kns-opt -j ACCEPT"),
  f("-m limit --limit 10/second --limit-burst 5 -j ACCEPT"),
  f("-p tcp -j REJECT --reject-with tcp-reset"),
  at("nat", "PREROUTING", "-p tcp -j DNAT --to-destination 1.2.3.4:80 --random --persistent"),
  at(
    "nat",
    "POSTROUTING",
    "-p tcp -j SNAT --to-source 1.2.3.4:1000-2000 --random --random-fully --persistent",
  ),
  at("nat", "POSTROUTING", "-p tcp -j MASQUERADE --to-ports 1000-2000 --random --random-fully"),
  ...["--set-xmark 0x1/0x1", "--set-mark 0x1", "--and-mark 0x1", "--or-mark 0x1", "--xor-mark 0x1"]
    .flatMap((o) => [`-j MARK ${o}`, `-j CONNMARK ${o}`])
    .map((b) => at("mangle", "PREROUTING", b)),
  at("mangle", "PREROUTING", "-j CONNMARK --save-mark --nfmask 0x1 --ctmask 0x1"),
  at("mangle", "PREROUTING", "-j CONNMARK --restore-mark --mask 0x1"),
  f(
    "-j LOG --log-prefix x --log-level 4 --log-tcp-sequence --log-tcp-options --log-ip-options --log-uid --log-macdecode",
  ),
  f("-j NFLOG --nflog-group 1 --nflog-prefix x --nflog-size 10 --nflog-threshold 1"),
  f("-j NFLOG --nflog-range 10"),
  at("raw", "PREROUTING", "-j CT --notrack"),
  at("raw", "PREROUTING", "-j CT --zone 1"),
];

/** Options no sample can load here, with the reason. */
const NOT_ON_THIS_KERNEL: Readonly<Record<string, string>> = {
  "ipvs --ipvs": "no IPVS in this kernel: the ipvs match does not load",
  "ipvs --vproto": "no IPVS",
  "ipvs --vaddr": "no IPVS",
  "ipvs --vport": "no IPVS",
  "ipvs --vdir": "no IPVS",
  "ipvs --vmethod": "no IPVS",
  "ipvs --vportctl": "no IPVS",
};

const CORE_OPTIONS = [
  "--protocol",
  "--source",
  "--src",
  "--destination",
  "--dst",
  "--in-interface",
  "--out-interface",
  "--fragment",
  "--match",
  "--jump",
  "--set-counters",
];

const words = (body: string) => body.split(" ");

/** The option words of a body: `--name` words, and whether an argument follows. */
function optionsOf(body: string): { index: number; hasArg: boolean }[] {
  const w = words(body);
  const out: { index: number; hasArg: boolean }[] = [];
  w.forEach((word, index) => {
    if (!word.startsWith("--")) return;
    const next = w[index + 1];
    out.push({ index, hasArg: next !== undefined && !next.startsWith("-") && next !== "!" });
  });
  return out;
}

/**
 * The body with option `k` spelt as `name` cut to `length` characters, its argument joined
 * with `=` when `joined` (an option without one gets `=x`, which getopt refuses).
 */
function respelt(body: string, k: number, length: number, joined: boolean): string {
  const w = words(body);
  const o = optionsOf(body)[k]!;
  const name = w[o.index]!.slice(0, Math.max(3, length));
  if (!joined) w[o.index] = name;
  else if (o.hasArg) w.splice(o.index, 2, `${name}=${w[o.index + 1]!}`);
  else w[o.index] = `${name}=x`;
  return w.join(" ");
}

function restoreText(s: Sample, body: string): string {
  return `*${s.table}\n:${s.chain} ACCEPT [0:0]\n-A ${s.chain} ${body}\nCOMMIT\n`;
}

/**
 * Whether a respelt body is read as the kernel reads it: refused by both, or saved as the
 * same rule; or, where our saved text differs from the kernel's for reasons of printing
 * alone (nfacct: iptables-save prints two spaces after --nfacct-name), read as the plain
 * spelling is by both.
 */
function readAlike(
  s: Sample,
  body: string,
): { body: string; kernel: string; ours: string } | undefined {
  const r = both(s, body);
  if (r.kernel === r.ours) return undefined;
  if (r.kernel !== "refused" && r.ours !== "refused") {
    const plain = both(s, s.body);
    if (plain.kernel === r.kernel && plain.ours === r.ours) return undefined;
  }
  return r;
}

/** The saved rule as the kernel and as we give it ("refused" when refused). */
function both(s: Sample, body: string): { body: string; kernel: string; ours: string } {
  const netns = ns!;
  const family = s.family ?? "IPv4";
  const tool = family === "IPv4" ? "iptables" : "ip6tables";
  const text = restoreText(s, body);
  netns.run(tool, ["-t", s.table, "-F", s.chain]);
  const loaded = netns.run(`${tool}-restore`, ["--noflush"], text).status === 0;
  const pick = (saved: string) =>
    saved.split("\n").find((l) => l.startsWith(`-A ${s.chain}`)) ?? "(no rule)";
  const kernel = loaded ? pick(netns.exec(`${tool}-save`, ["-t", s.table])) : "refused";
  let ours: string;
  try {
    ours = pick(formatIptablesSave(parseIptables(text, { family }), { counters: false }));
  } catch (e) {
    if (!(e instanceof IptablesParseError)) throw e;
    ours = "refused";
  }
  return { body, kernel, ours };
}

function prepare(): void {
  ns!.run("ipset", ["create", "kns-opt", "hash:ip"]);
  ns!.run("nfacct", ["add", "kns-opt"]);
}

kernelTest("every long option is in a sample", ["root"], () => {
  const present = new Set(SAMPLES.flatMap((s) => words(s.body)));
  const missing: string[] = [];
  for (const o of CORE_OPTIONS) if (!present.has(o)) missing.push(o);
  const check = (owner: string, names: Iterable<string>) => {
    for (const name of names)
      if (!present.has(name) && NOT_ON_THIS_KERNEL[`${owner} ${name}`] === undefined)
        missing.push(`${owner} ${name}`);
  };
  for (const [name, ext] of Object.entries(MATCH_EXTENSIONS))
    check(name, [...Object.keys(ext.options), ...Object.keys(ext.aliases ?? {})]);
  for (const ext of TARGET_EXTENSIONS) check(ext.name, Object.keys(ext.options));
  expect(missing).toEqual([]);
});

/**
 * For each sample, the kernel's saved lines for its `bodies` in one restore (one restore per
 * sample, not per spelling), or undefined when it refuses any of them. All samples from one
 * process (runBatch), each command its own process.
 */
function kernelBatches(
  batches: readonly { readonly s: Sample; readonly bodies: readonly string[] }[],
): (string[] | undefined)[] {
  const tool = (s: Sample) => ((s.family ?? "IPv4") === "IPv4" ? "iptables" : "ip6tables");
  const items = batches.map(({ s, bodies }): BatchStep[] => [
    { cmd: tool(s), args: ["-t", s.table, "-F", s.chain] },
    {
      cmd: `${tool(s)}-restore`,
      args: ["--noflush"],
      input: `*${s.table}\n:${s.chain} ACCEPT [0:0]\n${bodies.map((b) => `-A ${s.chain} ${b}`).join("\n")}\nCOMMIT\n`,
    },
    { cmd: `${tool(s)}-save`, args: ["-t", s.table], ifOk: true },
  ]);
  const results = runBatch(ns!, items);
  return batches.map(({ s }, i) => {
    const [, restore, save] = results[i] ?? [];
    if (restore?.status !== 0) return undefined;
    return okOutput(items[i]![2]!, save)
      .split("\n")
      .filter((l) => l.startsWith(`-A ${s.chain} `));
  });
}

/** `both` for many bodies, from one process (runBatch). */
function bothAll(
  pairs: readonly { readonly s: Sample; readonly body: string }[],
): { body: string; kernel: string; ours: string }[] {
  const tool = (s: Sample) => ((s.family ?? "IPv4") === "IPv4" ? "iptables" : "ip6tables");
  const items = pairs.map(({ s, body }): BatchStep[] => [
    { cmd: tool(s), args: ["-t", s.table, "-F", s.chain] },
    { cmd: `${tool(s)}-restore`, args: ["--noflush"], input: restoreText(s, body) },
    { cmd: `${tool(s)}-save`, args: ["-t", s.table], ifOk: true },
  ]);
  const results = runBatch(ns!, items);
  return pairs.map(({ s, body }, i) => {
    const [, restore, save] = results[i] ?? [];
    const kernel =
      restore?.status === 0
        ? (okOutput(items[i]![2]!, save)
            .split("\n")
            .find((l) => l.startsWith(`-A ${s.chain}`)) ?? "(no rule)")
        : "refused";
    return { body, kernel, ours: oursAlone(s, body) };
  });
}

function oursAlone(s: Sample, body: string): string {
  try {
    const saved = formatIptablesSave(
      parseIptables(restoreText(s, body), { family: s.family ?? "IPv4" }),
      {
        counters: false,
      },
    );
    return saved.split("\n").find((l) => l.startsWith(`-A ${s.chain}`)) ?? "(no rule)";
  } catch (e) {
    if (!(e instanceof IptablesParseError)) throw e;
    return "refused";
  }
}

kernelTest(
  "every sample loads, and every option's --option=value form is read as the kernel reads it",
  ["root", "ip", "iptables", "ip6tables", "ipset"],
  () => {
    prepare();
    const differ: unknown[] = [];
    let checked = 0;
    const formsOf = (s: Sample) =>
      optionsOf(s.body).map((_, k) => respelt(s.body, k, Infinity, true));
    const oneByOne: { s: Sample; forms: string[] }[] = [];
    const kernels = kernelBatches(SAMPLES.map((s) => ({ s, bodies: [s.body, ...formsOf(s)] })));
    for (const [i, s] of SAMPLES.entries()) {
      const forms = formsOf(s);
      checked += forms.length;
      const kernel = kernels[i];
      const ours = [s.body, ...forms].map((b) => oursAlone(s, b));
      expect({ body: s.body, ours: ours[0] }).not.toEqual({ body: s.body, ours: "refused" });
      // All loaded: each spelling saves as the plain one does (here and in the kernel).
      if (kernel !== undefined) {
        expect(kernel).toHaveLength(forms.length + 1);
        forms.forEach((body, k) => {
          const same = { kernel: kernel[k + 1] === kernel[0], ours: ours[k + 1] === ours[0] };
          if (!same.kernel || !same.ours)
            differ.push({ body, kernel: kernel[k + 1], ours: ours[k + 1] });
        });
        continue;
      }
      oneByOne.push({ s, forms });
    }
    // Samples with a refused spelling: each spelling alone (readAlike's test, the plain body
    // read first), all from one process.
    const alone = bothAll(
      oneByOne.flatMap(({ s, forms }) => [s.body, ...forms].map((body) => ({ s, body }))),
    );
    let at = 0;
    for (const { s, forms } of oneByOne) {
      const plain = alone[at++]!;
      expect({ body: s.body, kernel: plain.kernel }).not.toEqual({
        body: s.body,
        kernel: "refused",
      });
      for (let k = 0; k < forms.length; k++) {
        const r = alone[at++]!;
        if (r.kernel === r.ours) continue;
        const printingAlone =
          r.kernel !== "refused" &&
          r.ours !== "refused" &&
          plain.kernel === r.kernel &&
          plain.ours === r.ours;
        if (!printingAlone) differ.push(r);
      }
    }
    expect(at).toBe(alone.length);
    expect(checked).toBeGreaterThan(100);
    expect(differ).toEqual([]);
  },
);

kernelTest(
  "abbreviated options, with and without =, as the kernel reads them (property)",
  ["root", "ip", "iptables", "ip6tables", "ipset"],
  () => {
    prepare();
    fc.assert(
      fc.property(
        fc
          .constantFrom(...SAMPLES)
          .chain((s) =>
            fc.tuple(
              fc.constant(s),
              fc.integer({ min: 0, max: optionsOf(s.body).length - 1 }),
              fc.integer({ min: 3, max: 24 }),
              fc.boolean(),
            ),
          ),
        ([s, k, length, joined]) => {
          expect(readAlike(s, respelt(s.body, k, length, joined))).toBeUndefined();
        },
      ),
      { numRuns: soakRuns(20, 50), seed: 19 },
    );
  },
);
