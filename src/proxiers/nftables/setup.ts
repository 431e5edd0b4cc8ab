/**
 * The table, base chains, helper chains, sets and maps every full sync writes (spec §2, §3).
 */
import {
  concat,
  jump,
  match,
  meta,
  payload,
  value,
  verdictStatement,
  type ChainType,
  type Expr,
  type Hook,
  type Rule,
  type Statement,
} from "../../netfilter/nftables/model.js";
import type { TableSink } from "../../netfilter/nftables/table-sink.js";
import type { NftSettings } from "./settings.js";

export const TABLE_NAME = "kube-proxy";
export const TABLE_COMMENT = "rules for kube-proxy";

export const CLUSTER_IPS = "cluster-ips";
export const NODEPORT_IPS = "nodeport-ips";
export const SERVICE_IPS = "service-ips";
export const SERVICE_NODEPORTS = "service-nodeports";
export const NO_ENDPOINT_SERVICES = "no-endpoint-services";
export const NO_ENDPOINT_NODEPORTS = "no-endpoint-nodeports";
export const FIREWALL_IPS = "firewall-ips";
export const MARK_FOR_MASQUERADE = "mark-for-masquerade";
export const REJECT_CHAIN = "reject-chain";

const PRE_DNAT = -110;
const DSTNAT = -100;
const FILTER = 0;
const SRCNAT = 100;

interface BaseChainDef {
  readonly name: string;
  readonly type: ChainType;
  readonly hook: Hook;
  readonly priority: number;
  readonly jumps: readonly string[];
  /** Filter chains only act on new connections. */
  readonly newOnly: boolean;
}

export const BASE_CHAINS: readonly BaseChainDef[] = [
  base("filter-prerouting-pre-dnat", "filter", "prerouting", PRE_DNAT, ["firewall-check"]),
  base("filter-output-pre-dnat", "filter", "output", PRE_DNAT, ["firewall-check"]),
  base("filter-input", "filter", "input", FILTER, [
    "nodeport-endpoints-check",
    "service-endpoints-check",
  ]),
  base("filter-forward", "filter", "forward", FILTER, [
    "service-endpoints-check",
    "cluster-ips-check",
  ]),
  base("filter-output", "filter", "output", FILTER, [
    "service-endpoints-check",
    "cluster-ips-check",
  ]),
  base("nat-prerouting", "nat", "prerouting", DSTNAT, ["services"]),
  base("nat-output", "nat", "output", DSTNAT, ["services"]),
  base("nat-postrouting", "nat", "postrouting", SRCNAT, ["masquerading"]),
];

function base(
  name: string,
  type: ChainType,
  hook: Hook,
  priority: number,
  jumps: readonly string[],
): BaseChainDef {
  return { name, type, hook, priority, jumps, newOnly: type === "filter" };
}

const rule = (statements: Statement[], comment?: string): Rule =>
  comment === undefined ? { statements } : { statements, comment };

const CT_NEW: Statement = match({ kind: "ct", key: "state" }, value("new"));
const L4_DPORT = concat(meta("l4proto"), payload("th", "dport"));

/** Adds the fixed part of the table to `b`. */
export function addSetup(b: TableSink, s: NftSettings): void {
  const w = s.words.word;
  const addrType = s.words.addressType;
  const daddr = payload(w, "daddr");
  for (const c of BASE_CHAINS) {
    b.addChain(c.name, {
      base: { type: c.type, hook: c.hook, priority: c.priority },
    });
    for (const target of c.jumps)
      b.addRule(c.name, rule([...(c.newOnly ? [CT_NEW] : []), verdictStatement(jump(target))]));
  }

  b.addSet({
    kind: "set",
    name: CLUSTER_IPS,
    keyType: [addrType],
    flags: [],
    comment: "Active ClusterIPs",
  });
  if (s.nodePortIPs !== undefined)
    b.addSet({
      kind: "set",
      name: NODEPORT_IPS,
      keyType: [addrType],
      flags: [],
      comment: "IPs that accept NodePort traffic",
    });
  const map = (name: string, withAddress: boolean, comment: string): void =>
    b.addSet({
      kind: "map",
      name,
      keyType: withAddress
        ? [addrType, "inet_proto", "inet_service"]
        : ["inet_proto", "inet_service"],
      valueType: "verdict",
      flags: [],
      comment,
    });
  map(FIREWALL_IPS, true, "destinations that are subject to LoadBalancerSourceRanges");
  map(
    NO_ENDPOINT_NODEPORTS,
    false,
    "vmap to drop or reject packets to service nodeports with no endpoints",
  );
  map(NO_ENDPOINT_SERVICES, true, "vmap to drop or reject packets to services with no endpoints");
  map(SERVICE_IPS, true, "ClusterIP, ExternalIP and LoadBalancer IP traffic");
  map(SERVICE_NODEPORTS, false, "NodePort traffic");

  const regular = (name: string, rules: Rule[], comment?: string): void => {
    b.addChain(name, comment === undefined ? {} : { comment });
    for (const r of rules) b.addRule(name, r);
  };
  const vmap = (key: Expr, m: string): Statement => ({
    kind: "vmap",
    key,
    map: { kind: "set-ref", name: m },
  });
  const mark = value(s.markText);
  const markExpr = meta("mark", true);

  regular(MARK_FOR_MASQUERADE, [
    rule([
      {
        kind: "mark-set",
        short: true,
        value: { kind: "bitwise", op: "or", left: markExpr, right: mark, words: true },
      },
    ]),
  ]);
  regular("masquerading", [
    rule([
      {
        kind: "match",
        left: { kind: "bitwise", op: "and", left: markExpr, right: mark, words: true },
        op: "==",
        right: value(0),
        explicit: true,
      },
      verdictStatement({ kind: "return" }),
    ]),
    rule([
      {
        kind: "mark-set",
        short: true,
        value: { kind: "bitwise", op: "xor", left: markExpr, right: mark, words: true },
      },
    ]),
    rule([{ kind: "masquerade", fullyRandom: true }]),
  ]);

  const clusterIPsCheck = [
    rule(
      [match(daddr, { kind: "set-ref", name: CLUSTER_IPS }), { kind: "reject" }],
      "Reject traffic to invalid ports of ClusterIPs",
    ),
  ];
  if (s.serviceCIDRs.length > 0)
    clusterIPsCheck.push(
      rule(
        [
          match(daddr, { kind: "set-literal", elements: s.serviceCIDRs, compact: true }),
          verdictStatement({ kind: "drop" }),
        ],
        "Drop traffic to unallocated ClusterIPs",
      ),
    );
  regular("cluster-ips-check", clusterIPsCheck);
  regular(
    REJECT_CHAIN,
    [rule([{ kind: "reject" }])],
    "helper for @no-endpoint-services / @no-endpoint-nodeports",
  );

  const nodePortDest: Statement[] =
    s.nodePortIPs !== undefined
      ? [match(daddr, { kind: "set-ref", name: NODEPORT_IPS })]
      : [match(daddr, value(s.words.loopback), true)];
  const daddrKey = concat(daddr, meta("l4proto"), payload("th", "dport"));
  regular("service-endpoints-check", [rule([vmap(daddrKey, NO_ENDPOINT_SERVICES)])]);
  regular("nodeport-endpoints-check", [
    rule([...nodePortDest, vmap(L4_DPORT, NO_ENDPOINT_NODEPORTS)]),
  ]);
  regular("firewall-check", [rule([vmap(daddrKey, FIREWALL_IPS)])]);
  const fibLocal: Statement = match({ kind: "fib", flag: "daddr", result: "type" }, value("local"));
  regular("services", [
    rule([vmap(daddrKey, SERVICE_IPS)]),
    rule([
      ...(s.nodePortIPs !== undefined ? [] : [fibLocal]),
      ...nodePortDest,
      vmap(L4_DPORT, SERVICE_NODEPORTS),
    ]),
  ]);

  for (const ip of s.nodePortIPs ?? []) b.addElement(NODEPORT_IPS, { key: [ip] });
}
