/**
 * nftables base chains as stages of the one tracer: at each hook, a node's nftables base
 * chains run among the iptables(-nft) tables by priority (the kernel orders every hook entry
 * by priority; at equal priority the iptables table, registered first, runs first). A chain
 * of type nat runs only for the first packet of a connection, like the nat table. The chain
 * itself is evaluated by netfilter/nftables/evaluate.ts; this file turns its branches into
 * walk states: marks, DNAT and masquerade (through the same NAT mapping as the targets),
 * drops and rejects.
 */
import { formatIP, joinHostPort, parseIP, type IPAddress } from "../../net/index.js";
import type { Target } from "../targets/index.js";
import type { Hook as NftHook, Table as NftTable } from "../nftables/model.js";
import { NftEvaluator, type Branch, type NatAction } from "../nftables/evaluate.js";
import type { NftPacket } from "../nftables/match-atom.js";
import type { Hook, Packet, TableName } from "../model.js";
import { addrTypeOf } from "./addressing.js";
import type { HookRunner } from "./hooks.js";
import type { TraceStep } from "./result.js";
import { natMapping, UNTRACKED, withNatState } from "./target-effects.js";
import { packetWith, patch, type WalkState } from "./walk-state.js";

/** iptables table priorities (NF_IP_PRI_*), per hook, in hook order. */
const IPTABLES_PRIORITY: Readonly<Record<TableName, number>> = {
  raw: -300,
  mangle: -150,
  nat: -100,
  filter: 0,
  security: 50,
};

const HOOK_TABLES: Readonly<Record<Hook, readonly TableName[]>> = {
  PREROUTING: ["raw", "mangle", "nat"],
  INPUT: ["mangle", "filter", "security", "nat"],
  FORWARD: ["mangle", "filter", "security"],
  OUTPUT: ["raw", "mangle", "nat", "filter", "security"],
  POSTROUTING: ["mangle", "nat"],
};

/** The nat table runs at srcnat (100) on INPUT and POSTROUTING, at dstnat (-100) elsewhere. */
export function iptablesPriority(hook: Hook, table: TableName): number {
  return table === "nat" && (hook === "INPUT" || hook === "POSTROUTING")
    ? 100
    : IPTABLES_PRIORITY[table];
}

export interface NftStage {
  readonly kind: "nft";
  readonly table: NftTable;
  readonly chain: string;
  readonly priority: number;
  readonly nat: boolean;
}

export type Stage = { readonly kind: "iptables"; readonly table: TableName } | NftStage;

const NFT_HOOK: Readonly<Record<Hook, NftHook>> = {
  PREROUTING: "prerouting",
  INPUT: "input",
  FORWARD: "forward",
  OUTPUT: "output",
  POSTROUTING: "postrouting",
};

/**
 * The stages of one `runHook` call: its iptables `tables`, with the nftables base chains of
 * this hook whose priority falls in the part of the hook these tables cover. A call that runs
 * no nat (`natManip` none: the loop through lo, IPVS output) covers the whole hook but skips
 * nat-type chains.
 */
export function stagesFor(
  tables: readonly NftTable[] | undefined,
  hook: Hook,
  callTables: readonly TableName[],
  natManip: "dst" | "src" | "none",
): Stage[] {
  const ipt: Stage[] = callTables.map((t) => ({ kind: "iptables", table: t }));
  if (tables === undefined || tables.length === 0) return ipt;
  const all = HOOK_TABLES[hook];
  const first = callTables[0];
  const last = callTables[callTables.length - 1];
  let lo = -Infinity;
  let hi = Infinity;
  if (natManip !== "none" && first !== undefined && last !== undefined) {
    const i = all.indexOf(first);
    const before = all[i - 1];
    if (i > 0 && before !== undefined) lo = iptablesPriority(hook, before);
    const j = all.indexOf(last);
    if (j >= 0 && j < all.length - 1) hi = iptablesPriority(hook, last);
  }
  const nft: NftStage[] = [];
  for (const t of tables)
    for (const c of t.chains) {
      const b = c.base;
      if (b === undefined || b.hook !== NFT_HOOK[hook]) continue;
      if (b.priority <= lo || b.priority > hi) continue;
      if (b.type === "nat" && natManip === "none") continue;
      nft.push({
        kind: "nft",
        table: t,
        chain: c.name,
        priority: b.priority,
        nat: b.type === "nat",
      });
    }
  nft.sort((a, b) => a.priority - b.priority);
  const out: Stage[] = [];
  let k = 0;
  for (const s of ipt) {
    const p = s.kind === "iptables" ? iptablesPriority(hook, s.table) : 0;
    while (k < nft.length && (nft[k] as NftStage).priority < p) out.push(nft[k++] as NftStage);
    out.push(s);
  }
  while (k < nft.length) out.push(nft[k++] as NftStage);
  return out;
}

const evaluators = new WeakMap<NftTable, WeakMap<HookRunner["dp"], NftEvaluator>>();

function evaluatorFor(r: HookRunner, table: NftTable): NftEvaluator {
  let byDp = evaluators.get(table);
  if (byDp === undefined) evaluators.set(table, (byDp = new WeakMap()));
  let ev = byDp.get(r.dp);
  if (ev === undefined) {
    const dp = r.dp;
    ev = new NftEvaluator(table, {
      isLocal: (ip) => {
        const a = parseIP(ip, "lenient");
        return a !== undefined && addrTypeOf(dp, a) === "LOCAL";
      },
    });
    byDp.set(r.dp, ev);
  }
  return ev;
}

function nftPacketOf(p: Packet): NftPacket {
  const state = p.ctState.find((s) => s !== "DNAT" && s !== "SNAT") ?? "NEW";
  return {
    family: p.family === "IPv4" ? "ip" : "ip6",
    protocol: p.protocol === "icmpv6" ? "ipv6-icmp" : p.protocol,
    src: formatIP(p.src),
    dst: formatIP(p.dst),
    sport: p.sport,
    dport: p.dport,
    mark: p.mark,
    ...(p.inInterface !== "" ? { iifname: p.inInterface } : {}),
    ...(p.outInterface !== "" ? { oifname: p.outInterface } : {}),
    ctState: state.toLowerCase(),
    ctStatus: [
      ...(p.ctState.includes("DNAT") ? ["dnat"] : []),
      ...(p.ctState.includes("SNAT") ? ["snat"] : []),
    ],
    ctMark: p.connmark,
  };
}

/** Runs one nftables base chain over every branch; stopped branches go to `r.finals`. */
export function runNftStage(
  r: HookRunner,
  states: readonly WalkState[],
  stage: NftStage,
  firstPacket: (s: WalkState) => boolean,
): WalkState[] {
  const out: WalkState[] = [];
  const ev = evaluatorFor(r, stage.table);
  const family = stage.table.family;
  for (const s of states) {
    // Like the nat table: nat chains see only the first packet of a new connection.
    if (stage.nat && (!firstPacket(s) || r.nat.kind !== "new")) {
      out.push(s);
      continue;
    }
    if (s.pkt.family !== (family === "ip" ? "IPv4" : "IPv6") && family !== "inet") {
      out.push(s);
      continue;
    }
    const hook = stage.table.chains.find((c) => c.name === stage.chain)?.base?.hook;
    for (const b of ev.runBase(stage.chain, nftPacketOf(s.pkt)))
      apply(r, s, b, `${family} ${stage.table.name}`, out, hook === "output");
  }
  return out;
}

function apply(
  r: HookRunner,
  s0: WalkState,
  b: Branch,
  where: string,
  out: WalkState[],
  localOut: boolean,
): void {
  let path = s0.path;
  for (const p of b.path) path = { head: `${where}/${p}`, tail: path };
  let s = patch(s0, { prob: s0.prob * b.probability, path });
  if (b.packet.mark !== s.pkt.mark) {
    const from = `0x${s.pkt.mark.toString(16)}`;
    s = patch(s, { pkt: packetWith(s.pkt, { mark: b.packet.mark }) });
    if (r.explain) s = step(s, { kind: "mark", from, to: `0x${b.packet.mark.toString(16)}` });
  }
  if ((b.packet.ctMark ?? 0) !== s.pkt.connmark)
    s = patch(s, { pkt: packetWith(s.pkt, { connmark: b.packet.ctMark ?? 0 }) });
  // `notrack`: no conntrack entry, so no NAT for this packet (as the NOTRACK target).
  if (b.packet.ctState === "untracked" && !s.untracked)
    s = patch(s, { untracked: true, pkt: packetWith(s.pkt, { ctState: UNTRACKED }) });
  const f = b.final;
  switch (f.kind) {
    case "accept":
      out.push(s);
      return;
    case "drop":
    case "reject":
      r.finals.push({
        state: s,
        stoppedBy: f.kind === "drop" ? "DROP" : "REJECT",
        delivery: "stopped",
      });
      return;
    case "nat": {
      const pkt = s.pkt;
      if (s.untracked) {
        // The kernel's NAT statements need a conntrack entry: without one they do nothing
        // and the rule's implicit accept ends the chain.
        out.push(s);
        return;
      }
      if (f.nat.kind === "snat" || f.nat.kind === "redirect") {
        const target = natTargetOf(r, f.nat, pkt, localOut);
        if (target === undefined) {
          // redirect on an interface without an address of the family: the kernel drops.
          r.finals.push({ state: s, stoppedBy: "DROP", delivery: "stopped" });
          return;
        }
        const m = natMapping(r.dp, target, pkt)!;
        const manip = target.kind === "DNAT" ? "dst" : "src";
        const before =
          manip === "dst"
            ? joinHostPort(formatIP(pkt.dst), pkt.dport)
            : joinHostPort(formatIP(pkt.src), pkt.sport);
        s = patch(s, {
          pkt: {
            ...packetWith(
              pkt,
              manip === "dst" ? { dst: m.ip, dport: m.port } : { src: m.ip, sport: m.port },
            ),
            ctState: withNatState(pkt.ctState, manip === "dst" ? "DNAT" : "SNAT"),
          },
          ...(manip === "dst" ? { dnat: true } : { snat: true }),
          ...(m.randomPort !== undefined ? { randomPort: m.randomPort } : {}),
        });
        if (r.explain)
          s = step(s, {
            kind: manip === "dst" ? "dnat" : "snat",
            from: before,
            to: joinHostPort(formatIP(m.ip), m.port),
          });
        out.push(s);
        return;
      }
      if (f.nat.kind === "dnat") {
        const ip = parseIP(f.nat.address ?? "", "lenient");
        if (ip === undefined) throw new Error(`${where}: dnat to ${f.nat.address}: not an address`);
        const port = f.nat.port ?? pkt.dport;
        const from = joinHostPort(formatIP(pkt.dst), pkt.dport);
        s = patch(s, {
          pkt: {
            ...packetWith(pkt, { dst: ip, dport: port }),
            ctState: withNatState(pkt.ctState, "DNAT"),
          },
          dnat: true,
        });
        if (r.explain) s = step(s, { kind: "dnat", from, to: joinHostPort(formatIP(ip), port) });
      } else {
        const m = natMapping(
          r.dp,
          { kind: "MASQUERADE", random: false, randomFully: f.nat.fullyRandom === true },
          pkt,
        );
        if (m === undefined) {
          // No address to masquerade to: the kernel drops the packet (target-effects.ts).
          r.finals.push({ state: s, stoppedBy: "DROP", delivery: "stopped" });
          return;
        }
        const from = joinHostPort(formatIP(pkt.src), pkt.sport);
        s = patch(s, {
          pkt: {
            ...packetWith(pkt, { src: m.ip, sport: m.port }),
            ctState: withNatState(pkt.ctState, "SNAT"),
          },
          snat: true,
          ...(m.randomPort !== undefined ? { randomPort: m.randomPort } : {}),
        });
        if (r.explain)
          s = step(s, { kind: "snat", from, to: joinHostPort(formatIP(m.ip), m.port) });
      }
      out.push(s);
      return;
    }
    default: {
      const never: never = f;
      return never;
    }
  }
}

function step(s: WalkState, t: TraceStep): WalkState {
  return patch(s, { steps: { head: t, tail: s.steps } });
}

/**
 * `snat to` and `redirect` as the iptables targets the kernel runs for them (nft_nat and
 * nft_redir share nf_nat with SNAT/REDIRECT). Redirect maps to 127.0.0.1 / ::1 for locally
 * generated packets, else to the first address of the incoming interface (undefined: none,
 * and the kernel drops the packet); the port stays unless one is given.
 */
function natTargetOf(
  r: HookRunner,
  nat: NatAction,
  pkt: Packet,
  localOut: boolean,
): Extract<Target, { kind: "SNAT" | "DNAT" }> | undefined {
  const flags = nat.flags ?? [];
  const ports =
    nat.port !== undefined ? { ports: { from: nat.port, to: nat.portTo ?? nat.port } } : {};
  if (nat.kind === "snat") {
    const from = parseIP(nat.address ?? "", "lenient");
    if (from === undefined) throw new Error(`snat to ${nat.address}: not an address`);
    const to = nat.addressTo === undefined ? from : parseIP(nat.addressTo, "lenient");
    if (to === undefined) throw new Error(`snat to ${nat.addressTo}: not an address`);
    return {
      kind: "SNAT",
      to: { ipFrom: from, ipTo: to, ...ports },
      random: flags.includes("random"),
      randomFully: flags.includes("fully-random"),
      persistent: flags.includes("persistent"),
    };
  }
  let address: IPAddress | undefined;
  if (localOut) address = parseIP(pkt.family === "IPv4" ? "127.0.0.1" : "::1", "strict");
  else
    address = r.dp.addresses.find(
      (a) => a.interfaceName === pkt.inInterface && a.cidr.family === pkt.family,
    )?.cidr.address;
  if (address === undefined) return undefined;
  return {
    kind: "DNAT",
    to: { ipFrom: address, ipTo: address, ...ports },
    random: flags.includes("random"),
    persistent: flags.includes("persistent"),
  };
}
