/**
 * The iptables-restore payload of the IPVS proxier (spec §5.2), byte for byte: nat then
 * filter, each with its chain declarations and rules in kube-proxy's emission order. Almost
 * every rule matches an ipset; a set-driven rule is written only when its set has entries.
 * The jump rules from the built-in chains are not part of the payload (kube-proxy ensures them
 * separately with `iptables -I … 1`); `IPVS_JUMP_RULES` lists them in the order they are ensured.
 */
import type { IPFamily } from "../../net/index.js";
import { ifNotLocalArgs, type LocalDetector } from "../common/index.js";
import { ipsetDefinition, type IpvsIpset, type IpvsIpsetId } from "./ipsets.js";
import type { NoNodeAccessEntry } from "./sync.js";

export const NAT_CHAINS = [
  "KUBE-SERVICES",
  "KUBE-POSTROUTING",
  "KUBE-NODE-PORT",
  "KUBE-LOAD-BALANCER",
  "KUBE-MARK-MASQ",
] as const;
export const FILTER_CHAINS = [
  "KUBE-FORWARD",
  "KUBE-NODE-PORT",
  "KUBE-PROXY-FIREWALL",
  "KUBE-SOURCE-RANGES-FIREWALL",
  "KUBE-IPVS-FILTER",
  "KUBE-IPVS-OUT-FILTER",
] as const;

export interface JumpRule {
  readonly table: "nat" | "filter";
  readonly chain: string;
  readonly comment: string;
  readonly target: string;
}

/** In the order kube-proxy ensures them; each is prepended, so later ones end up first. */
export const IPVS_JUMP_RULES: readonly JumpRule[] = [
  { table: "nat", chain: "OUTPUT", comment: "kubernetes service portals", target: "KUBE-SERVICES" },
  {
    table: "nat",
    chain: "PREROUTING",
    comment: "kubernetes service portals",
    target: "KUBE-SERVICES",
  },
  {
    table: "nat",
    chain: "POSTROUTING",
    comment: "kubernetes postrouting rules",
    target: "KUBE-POSTROUTING",
  },
  {
    table: "filter",
    chain: "FORWARD",
    comment: "kubernetes forwarding rules",
    target: "KUBE-FORWARD",
  },
  {
    table: "filter",
    chain: "INPUT",
    comment: "kubernetes health check rules",
    target: "KUBE-NODE-PORT",
  },
  {
    table: "filter",
    chain: "INPUT",
    comment: "kube-proxy firewall rules",
    target: "KUBE-PROXY-FIREWALL",
  },
  {
    table: "filter",
    chain: "FORWARD",
    comment: "kube-proxy firewall rules",
    target: "KUBE-PROXY-FIREWALL",
  },
  {
    table: "filter",
    chain: "INPUT",
    comment: "kubernetes ipvs access filter",
    target: "KUBE-IPVS-FILTER",
  },
  {
    table: "filter",
    chain: "OUTPUT",
    comment: "kubernetes ipvs access filter",
    target: "KUBE-IPVS-OUT-FILTER",
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
  readonly to: string;
  readonly matchType: string;
  readonly protocol?: string;
}[] = [
  {
    set: "LOOP-BACK",
    table: "nat",
    from: "KUBE-POSTROUTING",
    to: "MASQUERADE",
    matchType: "dst,dst,src",
  },
  {
    set: "LOAD-BALANCER",
    table: "nat",
    from: "KUBE-SERVICES",
    to: "KUBE-LOAD-BALANCER",
    matchType: "dst,dst",
  },
  {
    set: "LOAD-BALANCER-LOCAL",
    table: "nat",
    from: "KUBE-LOAD-BALANCER",
    to: "RETURN",
    matchType: "dst,dst",
  },
  {
    set: "NODE-PORT-LOCAL-TCP",
    table: "nat",
    from: "KUBE-NODE-PORT",
    to: "RETURN",
    matchType: "dst",
    protocol: "tcp",
  },
  {
    set: "NODE-PORT-TCP",
    table: "nat",
    from: "KUBE-NODE-PORT",
    to: "KUBE-MARK-MASQ",
    matchType: "dst",
    protocol: "tcp",
  },
  {
    set: "NODE-PORT-LOCAL-UDP",
    table: "nat",
    from: "KUBE-NODE-PORT",
    to: "RETURN",
    matchType: "dst",
    protocol: "udp",
  },
  {
    set: "NODE-PORT-UDP",
    table: "nat",
    from: "KUBE-NODE-PORT",
    to: "KUBE-MARK-MASQ",
    matchType: "dst",
    protocol: "udp",
  },
  {
    set: "NODE-PORT-LOCAL-SCTP-HASH",
    table: "nat",
    from: "KUBE-NODE-PORT",
    to: "RETURN",
    matchType: "dst,dst",
    protocol: "sctp",
  },
  {
    set: "NODE-PORT-SCTP-HASH",
    table: "nat",
    from: "KUBE-NODE-PORT",
    to: "KUBE-MARK-MASQ",
    matchType: "dst,dst",
    protocol: "sctp",
  },
  {
    set: "LOAD-BALANCER-FW",
    table: "filter",
    from: "KUBE-PROXY-FIREWALL",
    to: "KUBE-SOURCE-RANGES-FIREWALL",
    matchType: "dst,dst",
  },
  {
    set: "LOAD-BALANCER-SOURCE-CIDR",
    table: "filter",
    from: "KUBE-SOURCE-RANGES-FIREWALL",
    to: "RETURN",
    matchType: "dst,dst,src",
  },
  {
    set: "LOAD-BALANCER-SOURCE-IP",
    table: "filter",
    from: "KUBE-SOURCE-RANGES-FIREWALL",
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
  const set = (id: IpvsIpsetId): IpvsIpset => {
    const s = input.ipsets.find((x) => x.id === id);
    if (s === undefined) throw new Error(`missing ipset ${id}`);
    return s;
  };
  const nonEmpty = (id: IpvsIpsetId) => set(id).entries.length > 0;
  const comment = (id: IpvsIpsetId) => `-m comment --comment "${ipsetDefinition(id).comment}"`;
  const mark = formatMasqueradeMark(input.masqueradeMark);
  const nat: string[] = [];
  const filter: string[] = [];

  nat.push(`-A KUBE-SERVICES -s ${input.family === "IPv6" ? "::1/128" : "127.0.0.0/8"} -j RETURN`);
  for (const r of SET_RULES) {
    if (!nonEmpty(r.set)) continue;
    const proto = r.protocol === undefined ? "" : ` -p ${r.protocol}`;
    const line = `-A ${r.from}${proto} ${comment(r.set)} -m set --match-set ${set(r.set).name} ${r.matchType} -j ${r.to}`;
    (r.table === "nat" ? nat : filter).push(line);
  }
  if (nonEmpty("CLUSTER-IP")) {
    const base = `-A KUBE-SERVICES ${comment("CLUSTER-IP")} -m set --match-set ${set("CLUSTER-IP").name}`;
    const notLocal = ifNotLocalArgs(input.localDetector);
    if (input.masqueradeAll) nat.push(`${base} dst,dst -j KUBE-MARK-MASQ`);
    else if (notLocal.length > 0)
      nat.push(`${base} dst,dst ${notLocal.join(" ")} -j KUBE-MARK-MASQ`);
    // Without a detector only VIP-sourced (node-originated) traffic is masqueraded.
    else nat.push(`${base} src,dst -j KUBE-MARK-MASQ`);
  }
  const externalIPRules = (base: string) => {
    nat.push(`${base} -m physdev ! --physdev-is-in -m addrtype ! --src-type LOCAL -j ACCEPT`);
    nat.push(`${base} -m addrtype --dst-type LOCAL -j ACCEPT`);
  };
  if (nonEmpty("EXTERNAL-IP")) {
    const base = `-A KUBE-SERVICES ${comment("EXTERNAL-IP")} -m set --match-set ${set("EXTERNAL-IP").name} dst,dst`;
    nat.push(`${base} -j KUBE-MARK-MASQ`);
    externalIPRules(base);
  }
  if (nonEmpty("EXTERNAL-IP-LOCAL"))
    externalIPRules(
      `-A KUBE-SERVICES ${comment("EXTERNAL-IP-LOCAL")} -m set --match-set ${set("EXTERNAL-IP-LOCAL").name} dst,dst`,
    );
  nat.push("-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j KUBE-NODE-PORT");
  nat.push("-A KUBE-LOAD-BALANCER -j KUBE-MARK-MASQ");
  filter.push("-A KUBE-SOURCE-RANGES-FIREWALL -j DROP");
  for (const e of input.noNodeAccess)
    filter.push(
      `-A KUBE-IPVS-OUT-FILTER -s ${e.ip} -m ipvs --vaddr ${e.ip} --vproto ${e.protocol} --vport ${e.port} -j DROP`,
    );
  if (nonEmpty("CLUSTER-IP"))
    nat.push(`-A KUBE-SERVICES -m set --match-set ${set("CLUSTER-IP").name} dst,dst -j ACCEPT`);
  if (nonEmpty("LOAD-BALANCER"))
    nat.push(`-A KUBE-SERVICES -m set --match-set ${set("LOAD-BALANCER").name} dst,dst -j ACCEPT`);
  filter.push(
    `-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark ${mark}/${mark} -j ACCEPT`,
  );
  filter.push(
    '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT',
  );
  filter.push(
    `-A KUBE-NODE-PORT ${comment("HEALTH-CHECK-NODE-PORT")} -m set --match-set ${set("HEALTH-CHECK-NODE-PORT").name} dst -j ACCEPT`,
  );
  for (const id of ["LOAD-BALANCER", "CLUSTER-IP", "EXTERNAL-IP", "EXTERNAL-IP-LOCAL"] as const)
    filter.push(`-A KUBE-IPVS-FILTER -m set --match-set ${set(id).name} dst,dst -j RETURN`);
  filter.push(
    `-A KUBE-IPVS-FILTER -m set --match-set ${set("HEALTH-CHECK-NODE-PORT").name} dst -j RETURN`,
  );
  filter.push(
    `-A KUBE-IPVS-FILTER -m conntrack --ctstate NEW -m set --match-set ${set("IPVS-IPS").name} dst -j REJECT`,
  );
  nat.push(`-A KUBE-POSTROUTING -m mark ! --mark ${mark}/${mark} -j RETURN`);
  nat.push(`-A KUBE-POSTROUTING -j MARK --xor-mark ${mark}`);
  nat.push(
    `-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE${input.randomFully ? " --random-fully" : ""}`,
  );
  nat.push(`-A KUBE-MARK-MASQ -j MARK --or-mark ${mark}`);

  return [
    "*nat",
    ...NAT_CHAINS.map((c) => `:${c} - [0:0]`),
    ...nat,
    "COMMIT",
    "*filter",
    ...FILTER_CHAINS.map((c) => `:${c} - [0:0]`),
    ...filter,
    "COMMIT",
    "",
  ].join("\n");
}

/**
 * The payload plus the built-in chains and the jump rules, as one iptables-restore input that
 * stands on its own (for loading into an empty namespace and for tracing).
 */
export function renderIpvsIptablesWithJumps(restore: string): string {
  const builtins: Record<"nat" | "filter", readonly string[]> = {
    nat: ["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"],
    filter: ["INPUT", "FORWARD", "OUTPUT"],
  };
  const jumpsFor = (table: "nat" | "filter") =>
    [...IPVS_JUMP_RULES]
      .reverse()
      .filter((j) => j.table === table)
      .map((j) => `-A ${j.chain} ${jumpRuleArgs(j)}`);
  let out = "";
  for (const block of restore.split("COMMIT\n")) {
    if (block.trim() === "") continue;
    const lines = block.split("\n").filter((l) => l !== "");
    const header = lines[0] as "*nat" | "*filter";
    const table = header === "*nat" ? "nat" : "filter";
    const decls = lines.filter((l) => l.startsWith(":"));
    const rules = lines.filter((l) => l.startsWith("-A"));
    out += [
      header,
      ...builtins[table].map((c) => `:${c} ACCEPT [0:0]`),
      ...decls,
      ...jumpsFor(table),
      ...rules,
      "COMMIT",
      "",
    ].join("\n");
  }
  return out;
}
