/**
 * Which kernel modules a hostport configuration needs loaded, and why.
 *
 * The mapping (iptables-legacy / x_tables naming; see docs/hostports.md for sources):
 * - each `-m <match>` and `-j <target>` extension is one x_tables module named after its
 *   Kconfig symbol in linux net/netfilter/Makefile (`CONFIG_NETFILTER_XT_MATCH_COMMENT` →
 *   `xt_comment.o`, …); the tcp and udp matches live together in `xt_tcpudp`, DNAT/SNAT in
 *   `xt_nat`, the MARK target and mark match in `xt_mark`;
 * - an implicit protocol match (`-p tcp --dport 80` without `-m tcp`) loads the protocol's
 *   match module, as iptables does;
 * - the nat table is `iptable_nat` (IPv4) / `ip6table_nat` (IPv6) over `nf_nat` and `nf_conntrack`;
 * - SCTP flows are tracked and NATed by netfilter's SCTP support (CONFIG_NF_CT_PROTO_SCTP,
 *   separate `nf_conntrack_proto_sctp`/`nf_nat_proto_sctp` modules on older kernels, built into
 *   nf_conntrack/nf_nat since) — none of which is the SCTP protocol module `sctp`;
 * - clearing UDP conntrack entries after an Add uses ctnetlink (`nf_conntrack_netlink`);
 * - only an SCTP *socket* (socket(AF_INET*, SOCK_STREAM|SOCK_SEQPACKET, IPPROTO_SCTP)) makes the
 *   kernel load `sctp`. Neither the kubenet manager nor portmap opens one (KEP-614).
 * With iptables-nft some of these become native nf_tables expressions (nft_compat carries the
 * rest); the conclusion about `sctp` is the same.
 */
import type { IPFamily } from "../net/index.js";
import type { NatTable } from "./nat-table.js";
import { splitWords } from "./rule-words.js";

export type ModuleCategory =
  "table" | "iptables-match" | "iptables-target" | "conntrack" | "netlink" | "socket";

export interface ModuleNeed {
  readonly module: string;
  readonly category: ModuleCategory;
  readonly reason: string;
  /** What needs it: `-m comment`, `-j DNAT`, `socket udp4 *:8081`, … (deduplicated, sorted). */
  readonly neededBy: readonly string[];
}

/** A host socket of any protocol (the hostport components only ever open tcp and udp). */
export interface SocketUse {
  readonly family: IPFamily;
  readonly hostIP: string;
  readonly port: number;
  readonly protocol: "tcp" | "udp" | "sctp";
}

export interface ModuleReport {
  readonly modules: readonly ModuleNeed[];
  readonly sockets: readonly SocketUse[];
  /** True only when an SCTP socket is opened: the SCTP test plan's "sctp.ko not loaded" check. */
  readonly sctpModuleNeeded: boolean;
  /** Extensions found in the rules that the mapping does not know (reported, never guessed). */
  readonly unmapped: readonly string[];
}

export const MATCH_MODULES: Readonly<Record<string, string>> = {
  comment: "xt_comment",
  tcp: "xt_tcpudp",
  udp: "xt_tcpudp",
  sctp: "xt_sctp",
  addrtype: "xt_addrtype",
  multiport: "xt_multiport",
  mark: "xt_mark",
  conntrack: "xt_conntrack",
  statistic: "xt_statistic",
  set: "xt_set",
  recent: "xt_recent",
};

export const TARGET_MODULES: Readonly<Record<string, string>> = {
  DNAT: "xt_nat",
  SNAT: "xt_nat",
  MASQUERADE: "xt_MASQUERADE",
  MARK: "xt_mark",
  REJECT: "ipt_REJECT",
  CONNMARK: "xt_connmark",
};

const CORE_TARGETS = new Set(["ACCEPT", "DROP", "RETURN"]);
const PORT_OPTIONS = new Set(["--dport", "--sport", "--destination-port", "--source-port"]);

export interface RuleSource {
  readonly family: IPFamily;
  readonly nat: NatTable;
}

export function moduleReport(
  tables: readonly RuleSource[],
  sockets: readonly SocketUse[],
  opts: { readonly udpConntrackCleanup?: boolean } = {},
): ModuleReport {
  const needs = new Map<string, { category: ModuleCategory; reason: string; by: Set<string> }>();
  const need = (module: string, category: ModuleCategory, reason: string, by: string) => {
    const e = needs.get(module) ?? { category, reason, by: new Set<string>() };
    e.by.add(by);
    needs.set(module, e);
  };
  const unmapped = new Set<string>();
  let sctpFlows = false;
  let udpPorts = false;

  for (const { family, nat } of tables) {
    const rules = nat.chains.flatMap((c) =>
      c.rules.map((r) => ({ chain: c.name, words: splitWords(r.written) })),
    );
    if (rules.length === 0) continue;
    const natTable = family === "IPv4" ? "iptable_nat" : "ip6table_nat";
    need(natTable, "table", `the ${family} nat table`, `*nat (${family})`);
    need("nf_nat", "conntrack", "NAT core used by the nat table", `*nat (${family})`);
    need("nf_conntrack", "conntrack", "connection tracking, required by NAT", `*nat (${family})`);
    const chainNames = new Set(nat.chains.map((c) => c.name));
    for (const { words } of rules) {
      const loaded = new Set<string>();
      let proto: string | undefined;
      for (let i = 0; i < words.length; i++) {
        const w = words[i];
        const next = words[i + 1] ?? "";
        if (w === "-p" || w === "--protocol") proto = next.toLowerCase();
        if (w === "-m" || w === "--match") {
          loaded.add(next);
          const mod = MATCH_MODULES[next];
          if (mod === undefined) unmapped.add(`-m ${next}`);
          else need(mod, "iptables-match", `iptables match "${next}"`, `-m ${next}`);
        }
        if (w === "-j" || w === "-g") {
          if (CORE_TARGETS.has(next) || chainNames.has(next) || /^KUBE-|^CNI-/.test(next)) continue;
          const mod = TARGET_MODULES[next];
          if (mod === undefined) unmapped.add(`-j ${next}`);
          else need(mod, "iptables-target", `iptables target "${next}"`, `-j ${next}`);
        }
        if (w !== undefined && PORT_OPTIONS.has(w) && proto !== undefined && !loaded.has(proto)) {
          const mod = MATCH_MODULES[proto];
          if (mod !== undefined)
            need(
              mod,
              "iptables-match",
              `implicit "${proto}" match of -p ${proto} ${w}`,
              `-p ${proto} ${w}`,
            );
          loaded.add(proto);
        }
      }
      if (proto === "sctp") sctpFlows = true;
      if (proto === "udp") udpPorts = true;
    }
  }
  if (sctpFlows)
    need(
      "nf_conntrack_proto_sctp",
      "conntrack",
      "tracking and NAT of SCTP flows (CONFIG_NF_CT_PROTO_SCTP: a separate module with nf_nat_proto_sctp on older kernels, part of nf_conntrack/nf_nat on newer ones); not the sctp protocol module",
      "-p sctp",
    );
  if (udpPorts && (opts.udpConntrackCleanup ?? true))
    need(
      "nf_conntrack_netlink",
      "netlink",
      "deleting stale UDP conntrack entries after an Add",
      "conntrack -D -p udp",
    );
  for (const s of sockets) {
    const label = `socket ${s.protocol}${s.family === "IPv4" ? "4" : "6"} ${s.hostIP === "" ? "*" : s.hostIP}:${s.port}`;
    if (s.protocol === "sctp")
      need("sctp", "socket", "an SCTP socket loads the SCTP protocol module", label);
  }
  const modules = [...needs.entries()]
    .map(([module, e]) => ({
      module,
      category: e.category,
      reason: e.reason,
      neededBy: [...e.by].sort(),
    }))
    .sort((a, b) => (a.module < b.module ? -1 : a.module > b.module ? 1 : 0));
  return {
    modules,
    sockets: [...sockets],
    sctpModuleNeeded: modules.some((m) => m.module === "sctp"),
    unmapped: [...unmapped].sort(),
  };
}

/** The report for a node's hostport result (kubenet sockets included). */
export function nodeModuleReport(result: {
  readonly families: readonly RuleSource[];
  readonly sockets: readonly SocketUse[];
}): ModuleReport {
  return moduleReport(result.families, result.sockets);
}
