/**
 * The iptables-restore payload of the IPVS proxier (spec §5.2), byte for byte: nat then
 * filter, each with its chain declarations and rules in kube-proxy's emission order. Almost
 * every rule matches an ipset; a set-driven rule is written only when its set has entries.
 * The jump rules from the built-in chains are not part of the payload (kube-proxy ensures them
 * separately with `iptables -I … 1`); `IPVS_JUMP_RULES` lists them in the order they are ensured.
 */
import type { IPFamily } from "../../net/index.js";
import type { RuleBuilder } from "../../netfilter/build/rule-builder.js";
import { RuleSetBuilder, type TableBuilder } from "../../netfilter/build/rule-set-builder.js";
import { formatIptablesRestore } from "../../netfilter/format/restore.js";
import type { Chain, Counters, RuleSet, Table } from "../../netfilter/model.js";
import {
  KUBE_FORWARD,
  KUBE_IPVS_FILTER,
  KUBE_IPVS_OUT_FILTER,
  KUBE_LOAD_BALANCER,
  KUBE_MARK_MASQ,
  KUBE_NODE_PORT,
  KUBE_POSTROUTING,
  KUBE_PROXY_FIREWALL,
  KUBE_SERVICES,
  KUBE_SOURCE_RANGES_FIREWALL,
} from "../common/chain-names.js";
import { fromLocal, type LocalDetector } from "../common/local-detector.js";
import { writeForwardAcceptRules, writeMasqueradeRules } from "../common/shared-rules.js";
import { ipsetDefinition, type IpvsIpset, type IpvsIpsetId } from "./ipsets.js";
import type { NoNodeAccessEntry } from "./sync.js";

export const NAT_CHAINS = [
  KUBE_SERVICES,
  KUBE_POSTROUTING,
  KUBE_NODE_PORT,
  KUBE_LOAD_BALANCER,
  KUBE_MARK_MASQ,
] as const;
export const FILTER_CHAINS = [
  KUBE_FORWARD,
  KUBE_NODE_PORT,
  KUBE_PROXY_FIREWALL,
  KUBE_SOURCE_RANGES_FIREWALL,
  KUBE_IPVS_FILTER,
  KUBE_IPVS_OUT_FILTER,
] as const;

export interface JumpRule {
  readonly table: "nat" | "filter";
  readonly chain: string;
  readonly comment: string;
  readonly target: string;
}

/** In the order kube-proxy ensures them; each is prepended, so later ones end up first. */
export const IPVS_JUMP_RULES: readonly JumpRule[] = [
  { table: "nat", chain: "OUTPUT", comment: "kubernetes service portals", target: KUBE_SERVICES },
  {
    table: "nat",
    chain: "PREROUTING",
    comment: "kubernetes service portals",
    target: KUBE_SERVICES,
  },
  {
    table: "nat",
    chain: "POSTROUTING",
    comment: "kubernetes postrouting rules",
    target: KUBE_POSTROUTING,
  },
  {
    table: "filter",
    chain: "FORWARD",
    comment: "kubernetes forwarding rules",
    target: KUBE_FORWARD,
  },
  {
    table: "filter",
    chain: "INPUT",
    comment: "kubernetes health check rules",
    target: KUBE_NODE_PORT,
  },
  {
    table: "filter",
    chain: "INPUT",
    comment: "kube-proxy firewall rules",
    target: KUBE_PROXY_FIREWALL,
  },
  {
    table: "filter",
    chain: "FORWARD",
    comment: "kube-proxy firewall rules",
    target: KUBE_PROXY_FIREWALL,
  },
  {
    table: "filter",
    chain: "INPUT",
    comment: "kubernetes ipvs access filter",
    target: KUBE_IPVS_FILTER,
  },
  {
    table: "filter",
    chain: "OUTPUT",
    comment: "kubernetes ipvs access filter",
    target: KUBE_IPVS_OUT_FILTER,
  },
];

/** The rule words of a jump rule (`-m comment --comment "…" -j TARGET`). */
export function jumpRuleArgs(j: JumpRule): string {
  return `-m comment --comment "${j.comment}" -j ${j.target}`;
}

/** Set-driven rules (kube-proxy's ipsetWithIptablesChain), in its order. */
const SET_RULES: readonly {
  readonly set: IpvsIpsetId;
  readonly table: "nat" | "filter";
  readonly from: string;
  /** A chain, a verdict, or MASQUERADE. */
  readonly to: string;
  readonly matchType: string;
  readonly protocol?: string;
}[] = [
  {
    set: "LOOP-BACK",
    table: "nat",
    from: KUBE_POSTROUTING,
    to: "MASQUERADE",
    matchType: "dst,dst,src",
  },
  {
    set: "LOAD-BALANCER",
    table: "nat",
    from: KUBE_SERVICES,
    to: KUBE_LOAD_BALANCER,
    matchType: "dst,dst",
  },
  {
    set: "LOAD-BALANCER-LOCAL",
    table: "nat",
    from: KUBE_LOAD_BALANCER,
    to: "RETURN",
    matchType: "dst,dst",
  },
  {
    set: "NODE-PORT-LOCAL-TCP",
    table: "nat",
    from: KUBE_NODE_PORT,
    to: "RETURN",
    matchType: "dst",
    protocol: "tcp",
  },
  {
    set: "NODE-PORT-TCP",
    table: "nat",
    from: KUBE_NODE_PORT,
    to: KUBE_MARK_MASQ,
    matchType: "dst",
    protocol: "tcp",
  },
  {
    set: "NODE-PORT-LOCAL-UDP",
    table: "nat",
    from: KUBE_NODE_PORT,
    to: "RETURN",
    matchType: "dst",
    protocol: "udp",
  },
  {
    set: "NODE-PORT-UDP",
    table: "nat",
    from: KUBE_NODE_PORT,
    to: KUBE_MARK_MASQ,
    matchType: "dst",
    protocol: "udp",
  },
  {
    set: "NODE-PORT-LOCAL-SCTP-HASH",
    table: "nat",
    from: KUBE_NODE_PORT,
    to: "RETURN",
    matchType: "dst,dst",
    protocol: "sctp",
  },
  {
    set: "NODE-PORT-SCTP-HASH",
    table: "nat",
    from: KUBE_NODE_PORT,
    to: KUBE_MARK_MASQ,
    matchType: "dst,dst",
    protocol: "sctp",
  },
  {
    set: "LOAD-BALANCER-FW",
    table: "filter",
    from: KUBE_PROXY_FIREWALL,
    to: KUBE_SOURCE_RANGES_FIREWALL,
    matchType: "dst,dst",
  },
  {
    set: "LOAD-BALANCER-SOURCE-CIDR",
    table: "filter",
    from: KUBE_SOURCE_RANGES_FIREWALL,
    to: "RETURN",
    matchType: "dst,dst,src",
  },
  {
    set: "LOAD-BALANCER-SOURCE-IP",
    table: "filter",
    from: KUBE_SOURCE_RANGES_FIREWALL,
    to: "RETURN",
    matchType: "dst,dst,src",
  },
];

/** Go's `%#08x`: `0x` plus zero padding to 8 characters in all. */
export function formatMasqueradeMark(mark: number): string {
  return `0x${mark.toString(16).padStart(6, "0")}`;
}

export interface IptablesInput {
  readonly family: IPFamily;
  readonly ipsets: readonly IpvsIpset[];
  readonly noNodeAccess: readonly NoNodeAccessEntry[];
  readonly masqueradeAll: boolean;
  readonly localDetector: LocalDetector;
  readonly masqueradeMark: number;
  readonly randomFully: boolean;
}

export function renderIpvsIptables(input: IptablesInput): string {
  return formatIptablesRestore(buildIpvsIptables(input));
}

/** `-j TO`: a verdict, MASQUERADE, or a chain. */
function jumpTo(rule: RuleBuilder, to: string): void {
  if (to === "RETURN" || to === "ACCEPT" || to === "DROP") rule.verdict(to);
  else if (to === "MASQUERADE") rule.masquerade(false);
  else rule.jump(to);
}

/** The payload as a rule set: nat then filter, in kube-proxy's emission order. */
export function buildIpvsIptables(input: IptablesInput): RuleSet {
  const set = (id: IpvsIpsetId): IpvsIpset => {
    const s = input.ipsets.find((x) => x.id === id);
    if (s === undefined) throw new Error(`missing ipset ${id}`);
    return s;
  };
  const nonEmpty = (id: IpvsIpsetId) => set(id).entries.length > 0;
  const mark = { value: input.masqueradeMark, spelled: formatMasqueradeMark(input.masqueradeMark) };
  const builder = new RuleSetBuilder(input.family);
  const nat = builder.table("nat");
  const filter = builder.table("filter");
  for (const c of NAT_CHAINS) nat.declare(c);
  for (const c of FILTER_CHAINS) filter.declare(c);
  /** `-A CHAIN -m comment --comment "<the set's comment>" -m set --match-set NAME FLAGS`. */
  const setRule = (
    t: TableBuilder,
    chain: string,
    id: IpvsIpsetId,
    flags: readonly ("src" | "dst")[],
    protocol?: string,
  ): RuleBuilder => {
    const r = t.append(chain);
    if (protocol !== undefined) r.protocol(protocol);
    return r.comment(ipsetDefinition(id).comment).set(set(id).name, flags);
  };
  const dstDst = ["dst", "dst"] as const;

  nat
    .append(KUBE_SERVICES)
    .source(input.family === "IPv6" ? "::1/128" : "127.0.0.0/8")
    .verdict("RETURN");
  for (const r of SET_RULES) {
    if (!nonEmpty(r.set)) continue;
    const flags = r.matchType.split(",") as ("src" | "dst")[];
    jumpTo(setRule(r.table === "nat" ? nat : filter, r.from, r.set, flags, r.protocol), r.to);
  }
  if (nonEmpty("CLUSTER-IP")) {
    if (input.masqueradeAll) setRule(nat, KUBE_SERVICES, "CLUSTER-IP", dstDst).jump(KUBE_MARK_MASQ);
    else if (input.localDetector.kind !== "none")
      fromLocal(setRule(nat, KUBE_SERVICES, "CLUSTER-IP", dstDst), input.localDetector, true).jump(
        KUBE_MARK_MASQ,
      );
    // Without a detector only VIP-sourced (node-originated) traffic is masqueraded.
    else setRule(nat, KUBE_SERVICES, "CLUSTER-IP", ["src", "dst"]).jump(KUBE_MARK_MASQ);
  }
  const externalIPRules = (id: IpvsIpsetId) => {
    setRule(nat, KUBE_SERVICES, id, dstDst)
      .match(
        { module: "physdev", isIn: { value: true, negated: true } },
        "-m physdev ! --physdev-is-in",
      )
      .addrtype("src", "LOCAL", true)
      .verdict("ACCEPT");
    setRule(nat, KUBE_SERVICES, id, dstDst).addrtype("dst", "LOCAL").verdict("ACCEPT");
  };
  if (nonEmpty("EXTERNAL-IP")) {
    setRule(nat, KUBE_SERVICES, "EXTERNAL-IP", dstDst).jump(KUBE_MARK_MASQ);
    externalIPRules("EXTERNAL-IP");
  }
  if (nonEmpty("EXTERNAL-IP-LOCAL")) externalIPRules("EXTERNAL-IP-LOCAL");
  nat.append(KUBE_SERVICES).addrtype("dst", "LOCAL").jump(KUBE_NODE_PORT);
  nat.append(KUBE_LOAD_BALANCER).jump(KUBE_MARK_MASQ);
  filter.append(KUBE_SOURCE_RANGES_FIREWALL).verdict("DROP");
  for (const e of input.noNodeAccess) {
    filter
      .append(KUBE_IPVS_OUT_FILTER)
      .source(e.ip)
      .ipvsVirtualService(e.ip, e.protocol, e.port)
      .verdict("DROP");
  }
  if (nonEmpty("CLUSTER-IP"))
    nat.append(KUBE_SERVICES).set(set("CLUSTER-IP").name, dstDst).verdict("ACCEPT");
  if (nonEmpty("LOAD-BALANCER"))
    nat.append(KUBE_SERVICES).set(set("LOAD-BALANCER").name, dstDst).verdict("ACCEPT");
  writeForwardAcceptRules(filter, mark);
  setRule(filter, KUBE_NODE_PORT, "HEALTH-CHECK-NODE-PORT", ["dst"]).verdict("ACCEPT");
  for (const id of ["LOAD-BALANCER", "CLUSTER-IP", "EXTERNAL-IP", "EXTERNAL-IP-LOCAL"] as const)
    filter.append(KUBE_IPVS_FILTER).set(set(id).name, dstDst).verdict("RETURN");
  filter
    .append(KUBE_IPVS_FILTER)
    .set(set("HEALTH-CHECK-NODE-PORT").name, ["dst"])
    .verdict("RETURN");
  filter.append(KUBE_IPVS_FILTER).ctstate(["NEW"]).set(set("IPVS-IPS").name, ["dst"]).reject();
  writeMasqueradeRules(nat, mark, input.randomFully);
  return builder.build();
}

const ZERO: Counters = Object.freeze({ packets: 0n, bytes: 0n });

/**
 * The payload plus the built-in chains and the jump rules: the node's nat and filter tables,
 * whose restore form stands on its own (for loading into an empty namespace) and which the
 * tracer reads.
 */
export function ipvsNodeState(payload: RuleSet): RuleSet {
  const jumps = new RuleSetBuilder(payload.family);
  for (const t of payload.tables) jumps.table(t.name);
  // Each is prepended in turn: the last ensured comes first.
  for (const j of [...IPVS_JUMP_RULES].reverse())
    jumps.table(j.table).append(j.chain).comment(j.comment).jump(j.target);
  const built = jumps.build();
  const tables = payload.tables.map((t): Table => {
    const withJumps = built.tables.find((b) => b.name === t.name) as Table;
    const chains: Chain[] = withJumps.chains.map((b) => ({
      name: b.name,
      policy: "ACCEPT",
      counters: ZERO,
      rules: b.rules,
    }));
    for (const c of t.chains) if (c.policy === undefined) chains.push(c);
    return { name: t.name, chains };
  });
  return { family: payload.family, tables };
}

/**
 * The payload plus the built-in chains and the jump rules, as one iptables-restore input that
 * stands on its own (for loading into an empty namespace and for tracing).
 */
export function renderIpvsIptablesWithJumps(payload: RuleSet): string {
  return formatIptablesRestore(ipvsNodeState(payload));
}
