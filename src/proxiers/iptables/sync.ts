/**
 * kube-proxy's iptables syncs over a sequence of cluster states (spec §9, §4.11, Appendix B):
 * each sync's iptables-restore input, following pkg/proxy/iptables/proxier.go `syncProxyRules`
 * (commit 531be812).
 *
 * - Before the first sync, `iptables.Monitor` creates the empty canary chain
 *   `KUBE-PROXY-CANARY` in mangle, nat and filter (`EnsureChain`); kube-proxy forces a full sync
 *   when it disappears (someone flushed iptables), which a sequence of cluster states never does.
 * - A full sync (the first one; then whenever the last is older than `FullSyncPeriod`, 1h)
 *   first ensures the jumps from the built-in chains (`EnsureChain` + `EnsureRule(Prepend)`,
 *   each inserted only when missing), then restores everything.
 * - A partial sync restores the filter table and the top-level nat chains in full, but declares
 *   and writes the KUBE-SVC/SVL/EXT/FW/SEP chains only of services whose Service or
 *   EndpointSlices changed since the previous sync; the others stay in the kernel untouched
 *   (kube-proxy writes them to a discarding buffer).
 * - Stale chains: kube-proxy reads the nat table (`iptables-save -t nat`) and, for every service
 *   chain (those prefixes) that exists but was not used by this sync, writes `:CHAIN - [0:0]`
 *   and `-X CHAIN` into the nat section, after the service rules and before the final
 *   KUBE-SERVICES NodePort rule(s): the chain is flushed and deleted in the same restore. In
 *   large-cluster mode (> 1000 endpoints) it does this at most once per syncPeriod (30s).
 *
 * The restore text of each sync is cut from the full render of its state (render.ts): the same
 * lines in the same order, minus the chains of unchanged services, plus the stale chains. Where
 * upstream iterates a Go map the order here is fixed (services as render.ts orders them, stale
 * chains sorted by name).
 */
import type { Cluster } from "../../model/cluster.js";
import { assertNever } from "../../util/assert-never.js";
import type { IPFamily } from "../../net/index.js";
import type { ServicePortPlan } from "../common/plan.js";
import { ENSURED_JUMPS, type BuiltinJump } from "./builtin-jumps.js";
import { endpointChain, isServiceChainName, servicePortChains } from "./chain-names.js";
import {
  LARGE_CLUSTER_ENDPOINTS_THRESHOLD,
  NODEPORTS_LAST_RULE_COMMENT,
} from "./render-restore.js";
import { renderIptablesFamilies, type IptablesRenderOptions } from "./render.js";

/** `proxyutil.FullSyncPeriod` (seconds). */
export const IPTABLES_FULL_SYNC_PERIOD_SECONDS = 3600;
/** kube-proxy's default `iptables.syncPeriod` (seconds): stale-chain cleanup interval in large clusters. */
export const IPTABLES_SYNC_PERIOD_SECONDS = 30;
/** The chain `iptables.Monitor` watches. */
export const CANARY_CHAIN = "KUBE-PROXY-CANARY";
/** The tables the canary is created in, in `Monitor`'s order. */
export const CANARY_TABLES = ["mangle", "nat", "filter"] as const;

export interface IptablesSyncState {
  readonly cluster: Cluster;
  readonly name?: string;
  /** Seconds since the previous sync (ignored for the first). Default: `intervalSeconds`. */
  readonly elapsedSeconds?: number;
}

export interface IptablesSyncOptions extends IptablesRenderOptions {
  /** Seconds between syncs unless a state says otherwise (default 30). */
  readonly intervalSeconds?: number;
}

/** A command kube-proxy runs outside the restore input (`iptables` / `ip6tables`). */
export type IptablesCommand =
  | { readonly kind: "ensure-chain"; readonly table: string; readonly chain: string }
  | { readonly kind: "prepend-rule"; readonly jump: BuiltinJump };

export interface IptablesFamilySync {
  readonly family: IPFamily;
  readonly full: boolean;
  /** Commands run before the restore: the canary (first sync) and the built-in jumps (full syncs). */
  readonly commands: readonly IptablesCommand[];
  /** The iptables-restore input (`--noflush --counters`). */
  readonly restore: string;
  /** Service chains deleted (`-X`) by this restore. */
  readonly deletedChains: readonly string[];
  /** Service chains whose rules this restore (re)wrote. */
  readonly writtenChains: readonly string[];
}

export interface IptablesSync {
  readonly index: number;
  readonly name: string;
  readonly at: number;
  readonly families: readonly IptablesFamilySync[];
}

/** Each sync's restore input over `states`, in order (one proxier per IP family of the node). */
export function syncIptablesSequence(
  states: readonly (IptablesSyncState | Cluster)[],
  opts: IptablesSyncOptions,
): IptablesSync[] {
  const families: readonly IPFamily[] =
    opts.node.ipFamilies.length > 0 ? opts.node.ipFamilies : ["IPv4"];
  const syncers = new Map(families.map((f) => [f, new IptablesFamilySyncer(f)]));
  const interval = opts.intervalSeconds ?? IPTABLES_SYNC_PERIOD_SECONDS;
  const out: IptablesSync[] = [];
  let at = 0;
  states.forEach((raw, i) => {
    const st: IptablesSyncState = "cluster" in raw ? raw : { cluster: raw };
    if (i > 0) at += st.elapsedSeconds ?? interval;
    const rendered = renderIptablesFamilies(st.cluster, opts);
    out.push({
      index: i + 1,
      name: st.name ?? `state ${i + 1}`,
      at,
      families: rendered.map((r) => {
        const s = syncers.get(r.family);
        if (s === undefined) throw new Error(`no proxier for ${r.family}`);
        return s.sync(r.restore, r.plan.servicePorts, r.plan.totalEndpoints, at);
      }),
    });
  });
  return out;
}

const serviceKey = (p: ServicePortPlan): string =>
  `${p.servicePort.namespace}/${p.servicePort.serviceName}`;

/** The restore input as kube-proxy's four buffers (chain lines and rules per table). */
interface Sections {
  readonly filter: string[];
  readonly natChains: string[];
  readonly natRules: string[];
}

function splitRestore(text: string): Sections {
  const lines = text.split("\n");
  const filter: string[] = [];
  const natChains: string[] = [];
  const natRules: string[] = [];
  let table = "";
  for (const line of lines) {
    if (line.startsWith("*")) table = line.slice(1);
    else if (line === "COMMIT" || line === "") continue;
    else if (table === "filter") filter.push(line);
    else if (table === "nat") (line.startsWith(":") ? natChains : natRules).push(line);
    else throw new Error(`restore input: line outside filter/nat: ${line}`);
  }
  return { filter, natChains, natRules };
}

const chainOfDeclaration = (line: string): string => line.slice(1).split(" ")[0] ?? "";
const chainOfRule = (line: string): string => line.split(" ")[1] ?? "";
const isNodePortsTail = (line: string): boolean =>
  line.startsWith("-A KUBE-SERVICES ") && line.includes(NODEPORTS_LAST_RULE_COMMENT);

class IptablesFamilySyncer {
  private needFullSync = true;
  private lastFullSync = Number.NEGATIVE_INFINITY;
  private lastCleanup = Number.NEGATIVE_INFINITY;
  private canaryCreated = false;
  private readonly jumpsPresent = new Set<BuiltinJump>();
  /** Chains of the nat table in the kernel (what `iptables-save -t nat` lists). */
  private readonly natChains = new Set<string>();
  private fingerprints = new Map<string, string>();

  constructor(readonly family: IPFamily) {}

  sync(
    fullRestore: string,
    plans: readonly ServicePortPlan[],
    totalEndpoints: number,
    start: number,
  ): IptablesFamilySync {
    const commands: IptablesCommand[] = [];
    if (!this.canaryCreated) {
      for (const table of CANARY_TABLES)
        commands.push({ kind: "ensure-chain", table, chain: CANARY_CHAIN });
      this.canaryCreated = true;
    }
    const full = this.needFullSync || start - this.lastFullSync > IPTABLES_FULL_SYNC_PERIOD_SECONDS;
    if (full)
      for (const jump of ENSURED_JUMPS) {
        commands.push({ kind: "ensure-chain", table: jump.table, chain: jump.target });
        if (!this.jumpsPresent.has(jump)) {
          commands.push({ kind: "prepend-rule", jump });
          this.jumpsPresent.add(jump);
        }
      }

    // Which service owns each service chain, and which services changed.
    const owner = new Map<string, string>();
    const fingerprints = new Map<string, string>();
    for (const p of plans) {
      const key = serviceKey(p);
      const c = servicePortChains(p.servicePort);
      for (const chain of [c.svc, c.svl, c.ext, c.fw]) owner.set(chain, key);
      for (const ep of p.categorized.allReachable) owner.set(endpointChain(p.servicePort, ep), key);
      fingerprints.set(
        key,
        (fingerprints.get(key) ?? "") + JSON.stringify([p.servicePort, p.endpoints]),
      );
    }
    const previous = this.fingerprints;
    const rewrite = (chain: string): boolean => {
      if (full || !isServiceChainName(chain)) return true;
      const key = owner.get(chain);
      return key === undefined || previous.get(key) !== fingerprints.get(key);
    };
    this.fingerprints = fingerprints;

    const s = splitRestore(fullRestore);
    const active = new Set(s.natChains.map(chainOfDeclaration).filter(isServiceChainName));
    const natChains = s.natChains.filter((l) => rewrite(chainOfDeclaration(l)));
    let tail = s.natRules.length;
    while (tail > 0 && isNodePortsTail(s.natRules[tail - 1] ?? "")) tail--;
    const natRules = s.natRules.slice(0, tail).filter((l) => rewrite(chainOfRule(l)));

    const deleted: string[] = [];
    const large = totalEndpoints > LARGE_CLUSTER_ENDPOINTS_THRESHOLD;
    if (!large || start - this.lastCleanup > IPTABLES_SYNC_PERIOD_SECONDS) {
      for (const chain of [...this.natChains].sort())
        if (isServiceChainName(chain) && !active.has(chain)) deleted.push(chain);
      this.lastCleanup = start;
    }
    const restore = [
      "*filter",
      ...s.filter,
      "COMMIT",
      "*nat",
      ...natChains,
      ...deleted.map((c) => `:${c} - [0:0]`),
      ...natRules,
      ...deleted.map((c) => `-X ${c}`),
      ...s.natRules.slice(tail),
      "COMMIT",
      "",
    ].join("\n");

    for (const l of natChains) this.natChains.add(chainOfDeclaration(l));
    for (const c of deleted) this.natChains.delete(c);
    this.needFullSync = false;
    if (full) this.lastFullSync = start;
    return {
      family: this.family,
      full,
      commands,
      restore,
      deletedChains: deleted,
      writtenChains: natChains.map(chainOfDeclaration).filter(isServiceChainName),
    };
  }
}

/** A command as kube-proxy runs it (`iptables -t TABLE -N CHAIN`, `-I CHAIN RULE`). */
export function commandText(family: IPFamily, c: IptablesCommand): string {
  const bin = family === "IPv6" ? "ip6tables" : "iptables";
  switch (c.kind) {
    case "ensure-chain":
      return `${bin} -t ${c.table} -N ${c.chain}`;
    case "prepend-rule":
      return `${bin} -t ${c.jump.table} -I ${c.jump.chain} ${c.jump.rule}`;
    default:
      return assertNever(c);
  }
}
