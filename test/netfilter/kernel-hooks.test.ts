/**
 * Where each target and hook-restricted match may stand, with the real kernel as the oracle:
 * every body below is put in every built-in chain of every table, and in a user chain that all
 * of them jump to; our parse must accept it exactly where iptables-restore (ip6tables-restore)
 * does. This covers the tables a target belongs to, the hooks it may be reached from, and the
 * matches that refuse some hooks (addrtype's interface limits, physdev's out-port tests). Then
 * option values at the edges, in filter INPUT: our parse must accept exactly what the kernel
 * accepts, except for a short list of inputs we refuse on purpose (each with the reason).
 */
import { afterAll, beforeAll, expect } from "@jest/globals";
import { createNetns, deleteNetns, type Netns } from "../../src/backends/netns.js";
import {
  formatIpsetSave,
  formatIptablesSave,
  IptablesParseError,
  parseIpsetSave,
  parseIptables,
} from "../../src/netfilter/index.js";
import type { IPFamily } from "../../src/net/index.js";
import { ICMP_NAMES, ICMPV6_NAMES } from "../../src/netfilter/matches/icmp-types.js";
import { kernelRulesOnly, kernelTest } from "../helpers/kernel.js";
import {
  restoresTaken,
  runBatch,
  type BatchStep,
  type StepResult,
} from "../helpers/netns-batch.js";

// Rules only: loads, checks and listings in its own namespaces, nothing timed.
kernelRulesOnly();

let ns: Netns | undefined;
beforeAll(() => {
  ns = createNetns("kns-nf");
});
afterAll(() => {
  if (ns !== undefined) deleteNetns(ns);
});

const BUILTIN: Readonly<Record<string, readonly string[]>> = {
  raw: ["PREROUTING", "OUTPUT"],
  mangle: ["PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"],
  nat: ["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"],
  filter: ["INPUT", "FORWARD", "OUTPUT"],
  security: ["INPUT", "FORWARD", "OUTPUT"],
};

const COMMON = [
  "-j ACCEPT",
  "-j MARK --set-mark 1",
  "-j CONNMARK --set-mark 1",
  "-j CONNMARK --save-mark",
  "-j LOG",
  "-j NFLOG",
  "-j CT --notrack",
  "-j NOTRACK",
  "-j MASQUERADE",
  "-j REJECT",
  "-p tcp -j REJECT --reject-with tcp-reset",
  "-m addrtype --dst-type LOCAL --limit-iface-in -j ACCEPT",
  "-m addrtype --src-type LOCAL --limit-iface-out -j ACCEPT",
  "-m physdev --physdev-out veth1 -j ACCEPT",
  "-m physdev --physdev-is-out --physdev-is-bridged -j ACCEPT",
  "-m physdev --physdev-in veth1 -j ACCEPT",
  "-m conntrack --ctstate NEW -j ACCEPT",
];
const BODIES: Readonly<Record<IPFamily, readonly string[]>> = {
  IPv4: [
    ...COMMON,
    "-j SNAT --to-source 10.0.0.1",
    "-j DNAT --to-destination 10.0.0.1",
    "-j REJECT --reject-with icmp-host-prohibited",
  ],
  IPv6: [
    ...COMMON,
    "-j SNAT --to-source fd00::1",
    "-j DNAT --to-destination fd00::1",
    "-j REJECT --reject-with icmp6-adm-prohibited",
  ],
};

/**
 * Whether the kernel takes each text, as its own `tool`-restore would say (restoresTaken: the
 * texts our parse takes are loaded in one run first).
 */
function restoreEach(tool: string, texts: readonly string[], family: IPFamily): boolean[] {
  return restoresTaken(
    ns as Netns,
    tool,
    texts,
    texts.map((t) => accepts(t, family)),
  );
}

function accepts(text: string, family: IPFamily): boolean {
  try {
    parseIptables(text, { family });
    return true;
  } catch (e) {
    if (e instanceof IptablesParseError) return false;
    throw e;
  }
}

for (const family of ["IPv4", "IPv6"] as const) {
  const tool = family === "IPv4" ? "iptables" : "ip6tables";
  kernelTest(
    `targets and matches stand where the kernel lets them (${family})`,
    ["root", "ip", tool],
    () => {
      const cases: { what: string; text: string }[] = [];
      for (const [table, chains] of Object.entries(BUILTIN))
        for (const chain of [...chains, "U"])
          for (const body of BODIES[family]) {
            const jumps = chain === "U" ? chains.map((c) => `-A ${c} -j U`) : [];
            const text = [
              `*${table}`,
              ...chains.map((c) => `:${c} ACCEPT [0:0]`),
              ":U - [0:0]",
              ...jumps,
              `-A ${chain} ${body}`,
              "COMMIT",
              "",
            ].join("\n");
            cases.push({ what: `${table} ${chain} "${body}"`, text });
          }
      const kernel = restoreEach(
        tool,
        cases.map((c) => c.text),
        family,
      );
      const differ: string[] = [];
      cases.forEach(({ what, text }, i) => {
        if (accepts(text, family) !== kernel[i])
          differ.push(`${what}: kernel ${kernel[i] ? "accepts" : "refuses"}`);
      });
      expect(cases.length).toBeGreaterThan(0);
      expect(differ).toEqual([]);
    },
  );
}

/** Option values at the edges of what libxtables and the kernel take (IPv4). */
const EDGES = [
  "-m tcp --dport 80 -j ACCEPT",
  "-p udp -m tcp --dport 80 -j ACCEPT",
  "-p tcp --dport 5:3 -j ACCEPT",
  "-p udp --dport 5:3 -j ACCEPT",
  "-p udp ! --sport 5:3 -j ACCEPT",
  "-p sctp --dport 5:3 -j ACCEPT",
  "-p udp -m multiport --dports 5:3 -j ACCEPT",
  "-p tcp -m multiport --dports 5:5 -j ACCEPT",
  "-p tcp -m multiport --dports 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 -j ACCEPT",
  "-p tcp -m multiport --dports 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 -j ACCEPT",
  "-p tcp -m multiport --dports 1:2,3:4,5:6,7:8,9:10,11:12,13:14,15 -j ACCEPT",
  "-p tcp -m multiport --dports 1:2,3:4,5:6,7:8,9:10,11:12,13:14,15:16 -j ACCEPT",
  "-m conntrack --ctproto udp --ctorigdstport 5:3 -j ACCEPT",
  "-p tcp --dport :80 -j ACCEPT",
  "-p tcp --dport 80: -j ACCEPT",
  "-p tcp --dport 0 -j ACCEPT",
  "-p tcp --dport 65536 -j ACCEPT",
  "-p all --dport 80 -j ACCEPT",
  "-p 6 --dport 80 -j ACCEPT",
  "-p tcp -f -j ACCEPT",
  "-p tcp --tcp-option 2 -j ACCEPT",
  "-m conntrack --ctstate NEW,BOGUS -j ACCEPT",
  "-m conntrack --ctdir REPLY -j ACCEPT",
  "-m mark --mark 4294967296 -j ACCEPT",
  "-m statistic --mode nth --every 2 --packet 2 -j ACCEPT",
  "-m statistic --mode nth --every 2 --packet 1 -j ACCEPT",
  "-m statistic --mode random --probability 1.5 -j ACCEPT",
  "-m statistic --mode random -j ACCEPT",
  "-m recent --set --seconds 10 -j ACCEPT",
  "-m recent --rcheck --hitcount 100 -j ACCEPT",
  "-m recent --rcheck --seconds 10 --reap -j ACCEPT",
  "-m recent --set --rsource --rdest -j ACCEPT",
  "-m recent --rcheck --set -j ACCEPT",
  "-m limit --limit 0/sec -j ACCEPT",
  "-m limit --limit 10001/sec -j ACCEPT",
  "-m limit --limit 1/sec --limit-burst 0 -j ACCEPT",
  "-m iprange --src-range 1.2.3.4-1.2.3.1 -j ACCEPT",
  "-s 1.2.3.4/33 -j ACCEPT",
  "-s 1.2.3.4/255.255.0.0 -j ACCEPT",
  "-s 1.2.3.256 -j ACCEPT",
  "-i + -j ACCEPT",
  "-j MARK --set-mark 0x1 --or-mark 2",
  "-j LOG --log-level 9",
  "-j NFLOG --nflog-group 70000",
  "-m state --state NEW,INVALID,UNTRACKED -j ACCEPT",
  "-m addrtype --src-type FOO -j ACCEPT",
  "-m physdev -j ACCEPT",
  "-j DROP -j ACCEPT",
  "-j LOG --log-prefix 0123456789012345678901234567890123456789",
  `-j NFLOG --nflog-prefix ${"p".repeat(200)}`,
  "-p tcp -j DNAT --to-destination 1.2.3.4:90-80",
  "-p tcp -j DNAT --to-destination 1.2.3.4-1.2.3.9:80-90 --random --persistent",
  "-j DNAT --to-destination 1.2.3.4:80",
  "-p tcp -j DNAT --to-destination :80",
];

/**
 * Inputs the kernel takes and we refuse on purpose, each with a clear error: what they mean
 * depends on more than the text, or our model has no form for it.
 */
const REFUSED_ON_PURPOSE: Readonly<Record<string, string>> = {
  // A service name is looked up in the machine's /etc/services.
  "-p tcp --dport http -j ACCEPT": "invalid port/service",
  // A netmask with holes: a CIDR cannot hold it.
  "-s 1.2.3.4/255.0.255.0 -j ACCEPT": "invalid address",
  // Where the kernel maps a NAT range given backwards, or to port 0, is not modelled.
  "-p tcp -j DNAT --to-destination 1.2.3.4-1.2.3.1": "reversed address range",
  "-p tcp -j DNAT --to-destination 1.2.3.4:0": "port 0",
  // SCTP chunk flags are not modelled.
  "-p sctp --chunk-types any DATA:Be -j ACCEPT": "chunk flags",
  // iptables-nft drops a flags test with an empty mask (and the tcp match, if COMP is not NONE).
  "-p tcp -m tcp --tcp-flags NONE ALL -j ACCEPT": "mask NONE is not modelled",
  "-p tcp -m tcp --tcp-flags NONE NONE -j ACCEPT": "mask NONE is not modelled",
  // Shifted NAT ports (`a-b/base`, NAT revision 2).
  "-p tcp -j DNAT --to-destination 1.2.3.4:5-6/7": "base port",
};

kernelTest(
  "option values at the edges: accepted exactly where the kernel accepts them",
  ["root", "ip", "iptables"],
  () => {
    const differ: string[] = [];
    // NAT targets go to nat PREROUTING, everything else to filter INPUT.
    const text = (body: string) =>
      body.includes("-j DNAT")
        ? `*nat\n:PREROUTING ACCEPT [0:0]\n-A PREROUTING ${body}\nCOMMIT\n`
        : `*filter\n:INPUT ACCEPT [0:0]\n-A INPUT ${body}\nCOMMIT\n`;
    const refused = Object.entries(REFUSED_ON_PURPOSE);
    const kernel = restoreEach(
      "iptables",
      [...EDGES, ...refused.map(([b]) => b)].map(text),
      "IPv4",
    );
    EDGES.forEach((body, i) => {
      if (accepts(text(body), "IPv4") !== kernel[i])
        differ.push(`"${body}": kernel ${kernel[i] ? "accepts" : "refuses"}`);
    });
    expect(differ).toEqual([]);
    refused.forEach(([body, message], i) => {
      expect({ body, kernel: kernel[EDGES.length + i] }).toEqual({ body, kernel: true });
      expect(() => parseIptables(text(body), { family: "IPv4" })).toThrow(message);
    });
  },
);

/** A rule body, where it goes, and its family (IPv4 unless given). */
interface Load {
  readonly table: string;
  readonly chain: string;
  readonly body: string;
  readonly family?: IPFamily;
}

/**
 * Each `body` in its `table`'s `chain`: refused by both, or saved as the same rule. Returns the
 * kernel's saved rules, or "refused". What the kernel says of a body is what a restore of that
 * body alone, then a save, would say; the bodies our parse takes are loaded together, one chain
 * of a table at a time (kernelRules).
 */
function loadAllAsKernel(loads: readonly Load[]): (string | undefined)[] {
  expect(loads.length).toBeGreaterThan(0);
  const ours = loads.map((l): string | undefined => {
    try {
      return formatIptablesSave(parseIptables(text(l), { family: l.family ?? "IPv4" }), {
        counters: false,
      })
        .split("\n")
        .find((line) => line.startsWith(`-A ${l.chain}`));
    } catch (e) {
      if (!(e instanceof IptablesParseError)) throw e;
      return "refused";
    }
  });
  const kernel = kernelRules(
    loads,
    ours.map((o) => o !== "refused"),
  );
  loads.forEach((l, i) =>
    expect({ body: l.body, rule: ours[i] }).toEqual({ body: l.body, rule: kernel[i] }),
  );
  return kernel;
}

const text = ({ table, chain, body }: Load, bodies: readonly string[] = [body]) =>
  `*${table}\n:${chain} ACCEPT [0:0]\n${bodies.map((b) => `-A ${chain} ${b}\n`).join("")}COMMIT\n`;
const tool = (l: Load) => ((l.family ?? "IPv4") === "IPv4" ? "iptables" : "ip6tables");

/**
 * The rule the kernel saves for each body, or "refused". The bodies `likely` marks as taken are
 * restored as the rules of one chain per family, table and chain, and saved once (the n-th rule
 * saved is the n-th body's); a chain the kernel refuses, or saves with another number of rules,
 * is loaded again a body at a time, as the others are (a restore and a save each, all from one
 * process: runBatch).
 */
function kernelRules(loads: readonly Load[], likely: readonly boolean[]): (string | undefined)[] {
  const groups = new Map<string, number[]>();
  const alone: number[] = [];
  loads.forEach((l, i) => {
    if (likely[i] !== true) return void alone.push(i);
    const key = `${tool(l)} ${l.table} ${l.chain}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [i]);
    else group.push(i);
  });
  const steps = (l: Load, bodies?: readonly string[]): BatchStep[] => [
    { cmd: `${tool(l)}-restore`, args: [], input: text(l, bodies) },
    { cmd: `${tool(l)}-save`, args: ["-t", l.table], ifOk: true },
  ];
  const rulesOf = (l: Load, restore?: StepResult, save?: StepResult): string[] | "refused" => {
    if (restore?.status !== 0) return "refused";
    if (save === undefined || save.status !== 0)
      throw new Error(`${tool(l)}-save -t ${l.table} failed: ${save?.stderr}`);
    return save.stdout.split("\n").filter((line) => line.startsWith(`-A ${l.chain} `));
  };
  const out: (string | undefined)[] = new Array<string | undefined>(loads.length);
  const members = [...groups.values()];
  const results = runBatch(ns as Netns, [
    ...members.map((m) =>
      steps(
        loads[m[0]!]!,
        m.map((i) => loads[i]!.body),
      ),
    ),
    ...alone.map((i) => steps(loads[i]!)),
  ]);
  const again: number[] = [];
  members.forEach((m, k) => {
    const rules = rulesOf(loads[m[0]!]!, results[k]?.[0], results[k]?.[1]);
    if (rules !== "refused" && rules.length === m.length) m.forEach((i, n) => (out[i] = rules[n]));
    else again.push(...m);
  });
  const first = (l: Load, r: readonly (StepResult | undefined)[] | undefined) => {
    const rules = rulesOf(l, r?.[0], r?.[1]);
    return rules === "refused" ? rules : rules[0];
  };
  alone.forEach((i, k) => (out[i] = first(loads[i]!, results[members.length + k])));
  if (again.length > 0)
    runBatch(
      ns as Netns,
      again.map((i) => steps(loads[i]!)),
    ).forEach((r, k) => (out[again[k]!] = first(loads[again[k]!]!, r)));
  return out;
}

/** A body in filter INPUT. */
const input = (body: string, family?: IPFamily): Load =>
  family === undefined
    ? { table: "filter", chain: "INPUT", body }
    : { table: "filter", chain: "INPUT", body, family };
const placed = ([table, chain, body]: Placed, family?: IPFamily): Load =>
  family === undefined ? { table, chain, body } : { table, chain, body, family };

/**
 * Numbers in addresses as libxtables reads them (strtoul base 0: `010` is octal, `0x0a` hex),
 * and ipset (octal, no hex): our canonical text must be the kernel's, not just accepted alike.
 */
const NUMBER_FORMS = [
  "-s 010.0.0.1",
  "-s 10.0.0.01",
  "-s 0x0a.0.0.1",
  "-s 0377.0.0.1",
  "-s 10.0.0.0/024",
  "-s 10.0.0.0/0x18",
  "-s 10.0.0.0/00",
  "-s 10.0.0.0/0377.0.0.0",
  "-d 10.1.2.3/255.255.255.0",
  "-m iprange --src-range 010.0.0.1-010.0.0.2",
  "-m conntrack --ctorigdst 010.0.0.1",
  "-m recent --set --mask 0377.0.0.0",
  // Fewer than four numbers: libxtables fills in zeros; inet_aton (conntrack, recent's mask,
  // and -s/-d when libxtables' reading fails) lets the last number fill the rest.
  "-s 10.1",
  "-d 0/0",
  "-s 0",
  "-s 1.2.3/24",
  "-s 10.1/255.255.0.0",
  "-s 0x0a.1",
  "-s 010.1",
  "-s 300",
  "-s 0x7f000001",
  "-s 4294967295",
  "-m iprange --src-range 10.1-10.2",
  "-m conntrack --ctorigdst 10.1",
  "-m recent --set --mask 255.255",
];

kernelTest(
  "numbers in addresses: the same saved text as the kernel",
  ["root", "ip", "iptables", "ip6tables", "ipset"],
  () => {
    const netns = ns as Netns;
    // Each body in filter INPUT loads, and saves as the kernel saves it. IPv6: prefixes read
    // the same way; an embedded dotted quad takes no leading zeros.
    const loads = [
      ...NUMBER_FORMS.map((body) => input(`${body} -j ACCEPT`, "IPv4")),
      ...["-s fd00::1/0100", "-s fd00::1/0x40", "-s fd00::1/064", "-s FD00:0::01"].map((body) =>
        input(`${body} -j ACCEPT`, "IPv6"),
      ),
    ];
    loadAllAsKernel(loads).forEach((kernel, i) =>
      expect({ body: loads[i]?.body, kernel }).not.toEqual({
        body: loads[i]?.body,
        kernel: "refused",
      }),
    );
    const embedded = "*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -s ::ffff:010.0.0.1\nCOMMIT\n";
    expect(netns.run("ip6tables-restore", [], embedded).status).not.toBe(0);
    expect(() => parseIptables(embedded, { family: "IPv6" })).toThrow(IptablesParseError);
    // ipset: octal octets, and hex refused.
    netns.exec("ipset", ["create", "kns-forms", "hash:ip"]);
    try {
      netns.exec("ipset", ["add", "kns-forms", "010.0.0.1"]);
      netns.exec("ipset", ["add", "kns-forms", "10.1"]);
      expect(netns.run("ipset", ["add", "kns-forms", "0x0a.0.0.3"]).status).not.toBe(0);
      const saved = netns.exec("ipset", ["save", "kns-forms"]);
      const ours = parseIpsetSave(
        "create kns-forms hash:ip family inet hashsize 1024 maxelem 65536\nadd kns-forms 010.0.0.1\nadd kns-forms 10.1\n",
      );
      // ipset saves in its hash order.
      const adds = (t: string) =>
        t
          .split("\n")
          .filter((l) => l.startsWith("add"))
          .sort();
      expect(adds(formatIpsetSave(ours))).toEqual(adds(saved));
      expect(() =>
        parseIpsetSave(
          "create x hash:ip family inet hashsize 1024 maxelem 65536\nadd x 0x0a.0.0.3\n",
        ),
      ).toThrow();
    } finally {
      netns.run("ipset", ["destroy", "kns-forms"]);
    }
  },
);

/**
 * Port numbers in every form the modules read differently: libxtables' base-0 numbers (tcp,
 * sctp, multiport, the NAT targets) and getaddrinfo's decimal services cut to 16 bits (udp,
 * conntrack). `F` stands for the number.
 */
/** A rule body and where it goes. */
type Placed = readonly [table: string, chain: string, body: string];

const PORT_OPTIONS: readonly Placed[] = [
  ["filter", "INPUT", "-p tcp -m tcp --sport F -j ACCEPT"],
  ["filter", "INPUT", "-p tcp -m tcp --dport F:65535 -j ACCEPT"],
  ["filter", "INPUT", "-p udp -m udp --sport F -j ACCEPT"],
  ["filter", "INPUT", "-p udp -m udp --dport 1:F -j ACCEPT"],
  ["filter", "INPUT", "-p sctp -m sctp --dport F -j ACCEPT"],
  ["filter", "INPUT", "-p tcp -m multiport --sports F -j ACCEPT"],
  ["filter", "INPUT", "-p udp -m multiport --ports 1,F -j ACCEPT"],
  ["filter", "INPUT", "-m conntrack --ctorigsrcport F -j ACCEPT"],
  ["filter", "INPUT", "-m conntrack --ctrepldstport 5:F -j ACCEPT"],
  ["nat", "PREROUTING", "-p tcp -j DNAT --to-destination 10.0.0.1:F"],
  ["nat", "POSTROUTING", "-p tcp -j SNAT --to-source 10.0.0.1:1-F"],
  ["nat", "POSTROUTING", "-p udp -j MASQUERADE --to-ports F"],
];
// None is 0 where a NAT target reads it (the kernel takes port 0 there; we refuse it on purpose).
const PORT_NUMBERS = [
  "010",
  "0010",
  "0x10",
  "0X1F",
  "+1",
  "+0x10",
  "08",
  "1e1",
  "0x",
  "+",
  "-1",
  "-2",
  "65535",
  "65536",
  "99999",
  "0x10000",
  "4294967295",
  "4294967297",
];

kernelTest(
  "numbers in ports: accepted and saved as the kernel does",
  ["root", "ip", "iptables", "ipset"],
  () => {
    const netns = ns as Netns;
    loadAllAsKernel(
      PORT_OPTIONS.flatMap(([table, chain, template]) =>
        PORT_NUMBERS.map((n) => placed([table, chain, template.replace("F", n)])),
      ),
    );
    // ipset reads ports as libxtables does.
    netns.exec("ipset", ["create", "kns-ports", "hash:ip,port"]);
    netns.exec("ipset", ["create", "kns-bitmap", "bitmap:port", "range", "010-0x20"]);
    try {
      const entries = ["10.0.0.1,tcp:010", "10.0.0.2,tcp:0x10", "10.0.0.3,udp:+1", "10.0.0.4,010"];
      for (const e of entries) netns.exec("ipset", ["add", "kns-ports", e]);
      expect(netns.run("ipset", ["add", "kns-ports", "10.0.0.5,tcp:08"]).status).not.toBe(0);
      const adds = (t: string) =>
        t
          .split("\n")
          .filter((l) => l.startsWith("add") || l.startsWith("create kns-bitmap"))
          .sort();
      const ours = parseIpsetSave(
        [
          "create kns-ports hash:ip,port family inet hashsize 1024 maxelem 65536",
          ...entries.map((e) => `add kns-ports ${e}`),
          "create kns-bitmap bitmap:port range 010-0x20",
          "",
        ].join("\n"),
      );
      const saved = netns.exec("ipset", ["save"]);
      expect(adds(formatIpsetSave(ours))).toEqual(adds(saved));
      expect(() =>
        parseIpsetSave(
          "create x hash:ip,port family inet hashsize 1024 maxelem 65536\nadd x 10.0.0.5,tcp:08\n",
        ),
      ).toThrow();
    } finally {
      netns.run("ipset", ["destroy", "kns-ports"]);
      netns.run("ipset", ["destroy", "kns-bitmap"]);
    }
  },
);

kernelTest(
  "numbers in other options: a sign and leading zeros read as libxtables reads them",
  ["root", "ip", "iptables"],
  () => {
    const loads: Placed[] = [
      ["filter", "INPUT", "-m mark --mark +1 -j ACCEPT"],
      ["filter", "INPUT", "-m mark --mark +0x1/+0xff -j ACCEPT"],
      ["filter", "INPUT", "-m mark --mark -1 -j ACCEPT"],
      ["filter", "INPUT", "-m mark --mark ++1 -j ACCEPT"],
      ["filter", "INPUT", "-m connmark --mark 010/0x0f -j ACCEPT"],
      ["filter", "INPUT", "-m limit --limit-burst +1 -j ACCEPT"],
      ["filter", "INPUT", "-m statistic --mode nth --every +3 --packet 02 -j ACCEPT"],
      ["filter", "INPUT", "-m recent --rcheck --seconds +10 --hitcount 010 -j ACCEPT"],
      ["filter", "INPUT", "-p tcp -m tcp --tcp-option +8 -j ACCEPT"],
      ["mangle", "PREROUTING", "-j MARK --set-xmark +0x10/010"],
      ["mangle", "PREROUTING", "-j CONNMARK --set-xmark +1/+1"],
      ["filter", "INPUT", "-j NFLOG --nflog-group +2 --nflog-threshold 010"],
      ...["04", "0x7", "+1", "08", "010", "panic", "error", "WARNING", "warn", "err"].map(
        (l) => ["filter", "INPUT", `-j LOG --log-level ${l}`] as const,
      ),
    ];
    loadAllAsKernel(loads.map((l) => placed(l)));
  },
);

kernelTest(
  "protocols, ICMP types, names, rates, probabilities and interfaces written every way the kernel reads",
  ["root", "ip", "iptables"],
  () => {
    const bodies = [
      ...["6", "0x6", "06", "010", "08", "+6", "0x11", "256", "TCP", "all", "ALL"].map(
        (p) => `-p ${p} -j ACCEPT`,
      ),
      ...[
        "8",
        "08",
        "010",
        "0x8",
        "+3",
        "3/1",
        "3/0x1",
        "3/08",
        "3/",
        "any",
        "ping",
        "pong",
        "ttl-exceeded",
        "echo",
        "echo-req",
        "Echo-Request",
        "network-unreachable",
        "net-unreachable",
        "256",
      ].map((t) => `-p icmp -m icmp --icmp-type ${t} -j ACCEPT`),
      ...["5/s", "5/sec", "3/h", "010/m", "0x10/m", "+5/m", '" 5/m"', "5/day", "0/s"].map(
        (r) => `-m limit --limit ${r} -j ACCEPT`,
      ),
      ...[
        "0.5",
        ".5",
        "5e-1",
        "0x1p-1",
        "0x0.8p0",
        "+0.5",
        '" 0.5"',
        "-0",
        "1.",
        "nan",
        "-nan",
        "NAN",
        "nan(123)",
        "inf",
        "1.0000000001",
        "0.5x",
      ].map((p) => `-m statistic --mode random --probability ${p} -j ACCEPT`),
      "-i + -j ACCEPT",
      "! -i + -j ACCEPT",
      "-i eth+ -j ACCEPT",
      // Names in lists, each the start of a name (the first one, in libxtables' order).
      ...["N", "e", "S", "U", "D", "R", "I", "new,rel", "NEW,", "NEWX"].map(
        (t) => `-m conntrack --ctstate ${t} -j ACCEPT`,
      ),
      ...["N", "u", "NEW,", "inv"].map((t) => `-m state --state ${t} -j ACCEPT`),
      ...["A", "E", "n", "C", "s", "NONE", "none,assured", "ASSURED,"].map(
        (t) => `-m conntrack --ctstatus ${t} -j ACCEPT`,
      ),
      ...["U", "unr", "b", "A", "M", "Loc", "LOCALX", "LOCAL,,", ",LOCAL"].map(
        (t) => `-m addrtype --src-type ${t} -j ACCEPT`,
      ),
      // recent's --rttl goes with --rcheck and --update only; a TCP option is 1 to 255.
      ...["set", "remove", "rcheck", "update"].map((a) => `-m recent --${a} --rttl -j ACCEPT`),
      ...["0", "1", "255", "256"].map((n) => `-p tcp -m tcp --tcp-option ${n} -j ACCEPT`),
    ];
    loadAllAsKernel([
      ...bodies.map((body) => input(body)),
      placed(["filter", "FORWARD", "-o + -j ACCEPT"]),
      // Every ICMP and ICMPv6 name we know, and a few the kernel does not.
      ...ICMP_NAMES.map(([name]) => input(`-p icmp -m icmp --icmp-type ${name} -j ACCEPT`)),
      ...[...ICMPV6_NAMES.map(([n]) => n), "mld-listener-query", "neighbo", "0x80"].map((name) =>
        input(`-p ipv6-icmp -m icmp6 --icmpv6-type ${name} -j ACCEPT`, "IPv6"),
      ),
    ]);
  },
);

/**
 * Long options cut short (getopt_long takes any unambiguous start of an option known so far),
 * and reject types named by their start.
 */
const CUT_SHORT: readonly Placed[] = [
  ["filter", "INPUT", "-p tcp --dpor 80 -j ACCEPT"],
  ["filter", "INPUT", "-p tcp --dp 80 -j ACCEPT"],
  ["filter", "INPUT", "-p tcp --d 80 -j ACCEPT"],
  ["filter", "INPUT", "-m comment --comm x -j ACCEPT"],
  ["filter", "INPUT", "-m conntrack --ctsta NEW -j ACCEPT"],
  ["filter", "INPUT", "-m conntrack --ctst NEW -j ACCEPT"],
  ["filter", "INPUT", "-m mark --ma 1 -j ACCEPT"],
  ["filter", "INPUT", "-m statistic --mo random --prob 0.5 -j ACCEPT"],
  ["nat", "PREROUTING", "-p tcp -j DNAT --to-dest 1.2.3.4"],
  ["mangle", "PREROUTING", "-j MARK --set-xm 1"],
  ["filter", "INPUT", "--proto tcp -j ACCEPT"],
  ["filter", "INPUT", "--pro tcp -j ACCEPT"],
  ["filter", "INPUT", "--sou 1.2.3.4 -j ACCEPT"],
  ["filter", "INPUT", "--src 1.2.3.4 -j ACCEPT"],
  ["filter", "INPUT", "--in-int eth0 -j ACCEPT"],
  ["filter", "INPUT", "--jump ACCEPT"],
  ["filter", "INPUT", "--j ACCEPT"],
  ["filter", "INPUT", "--match comment --comment x -j ACCEPT"],
  ["filter", "INPUT", "--ma comment --comment x -j ACCEPT"],
  ["filter", "INPUT", "-j LOG --log-p x"],
  ["filter", "INPUT", "-j LOG --log-pre x"],
  ["filter", "INPUT", "-p tcp -m multiport --dport 80 -j ACCEPT"],
  ["filter", "INPUT", "-p tcp -m multiport --sport 80 -j ACCEPT"],
  ["filter", "INPUT", "-m comment --comment a -m comment --comm b -j ACCEPT"],
  ["filter", "INPUT", "--s 1.2.3.4 -j ACCEPT"],
  ["filter", "INPUT", "--fr -j ACCEPT"],
  ["filter", "INPUT", "--go INPUT -j ACCEPT"],
  ["filter", "INPUT", "-j LOG --log x"],
  ["filter", "INPUT", "-j LOG --log-l 4"],
  ["filter", "INPUT", "-j LOG --log-le 4"],
  ["filter", "INPUT", "-p udp --dp 53 -j ACCEPT"],
  ["filter", "INPUT", "-p udp --d 53 -j ACCEPT"],
  ["filter", "INPUT", "-m conntrack --ctorigdstp 80 -j ACCEPT"],
  ["filter", "INPUT", "-m conntrack --ctorigdst 1.2.3.4 -j ACCEPT"],
  ["filter", "INPUT", "-m conntrack --ctdi ORIGINAL -j ACCEPT"],
  ["filter", "INPUT", "-m addrtype --dst LOCAL -j ACCEPT"],
  ["filter", "INPUT", "-m addrtype --dst-t LOCAL -j ACCEPT"],
  ["filter", "INPUT", "-m recent --rch --name x -j ACCEPT"],
  ["nat", "POSTROUTING", "-p tcp -j SNAT --to 1.2.3.4"],
  ["nat", "POSTROUTING", "-p tcp -j MASQUERADE --to 5"],
  ["nat", "POSTROUTING", "-p tcp -j MASQUERADE --random-f"],
  ["nat", "POSTROUTING", "-p tcp -j MASQUERADE --rand"],
  ["filter", "INPUT", "-j REJECT --reject-with icmp-p"],
  ["filter", "INPUT", "-j REJECT --reject-with icmp-"],
  ["filter", "INPUT", '-j REJECT --reject-with ""'],
  ["filter", "INPUT", "-j REJECT --reject-with icmp-echo-reply"],
  ["filter", "INPUT", "-j REJECT --reject-with echoreply"],
  ["filter", "INPUT", "-j REJECT --reject-with P"],
  ["filter", "INPUT", "-j REJECT --reject-with tcp"],
  ["filter", "INPUT", '-j LOG --log-prefix ""'],
  ["filter", "INPUT", '-j NFLOG --nflog-prefix ""'],
];
const CUT_SHORT_IPV6: readonly Placed[] = [
  ["filter", "INPUT", "-j REJECT --reject-with icmp6-a"],
  ["filter", "INPUT", "-j REJECT --reject-with icmp6-not-neighbour"],
  ["filter", "INPUT", "-j REJECT --reject-with not-neighbour"],
  ["filter", "INPUT", "-j REJECT --reject-with icmp6-"],
  ["filter", "INPUT", "-j REJECT --reject-with a"],
  ["filter", "INPUT", "-j REJECT --reject-with p"],
  ["filter", "INPUT", "-j REJECT --reject-with echoreply"],
  ["filter", "INPUT", "-j REJECT --reject-with icmp6-p"],
];

kernelTest(
  "options and reject types cut short: read as the kernel reads them",
  ["root", "ip", "iptables", "ip6tables"],
  () => {
    loadAllAsKernel([
      ...CUT_SHORT.map((l) => placed(l)),
      ...CUT_SHORT_IPV6.map((l) => placed(l, "IPv6")),
    ]);
  },
);
