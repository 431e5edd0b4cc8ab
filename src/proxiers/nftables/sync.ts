/**
 * kube-proxy's nftables syncs over a sequence of cluster states (spec §8): what each sync sends
 * to `nft -f`, following pkg/proxy/nftables/proxier.go `syncProxyRules` (commit 531be812).
 *
 * - The first sync is full (setup of §2–§3 plus every service). Later syncs are partial: only
 *   services whose Service or EndpointSlices changed since the previous sync get their chains
 *   rewritten (`add`+`flush`+rules); every other service only has its chains noted as in use.
 *   A full sync happens again when the last one is older than `proxyutil.FullSyncPeriod` (1h).
 * - Map and set elements are reconciled against a cache (`nftElementStorage`): a new key is
 *   `add`ed, a key with another value is `delete`d and `add`ed, an equal one costs nothing, and
 *   keys no longer ensured are `delete`d at the end of the sync.
 * - Stale chains (upstream `staleChains map[string]time.Time`): a service chain (a name with a
 *   `/`) that exists in the kernel but was not used by this sync is flushed in this sync's
 *   transaction and remembered with the sync's start time; a chain used again is forgotten.
 *   At the start of a later sync, every remembered chain whose time is *before* one second ago
 *   (`modtime.Before(start.Add(-time.Second))`) is deleted in a separate transaction that runs
 *   first (kernels before 6.2 notice a dropped map reference only a moment later). A stale
 *   chain that has not aged yet is flushed again by the next sync, and its time renewed.
 *   Unused affinity sets are deleted at once.
 *
 * Where upstream iterates a Go map (services, existing chains, cache keys) the order is random;
 * here it is fixed: service ports sorted by namespace, name, port name and protocol; chains and
 * elements in the kernel's creation order. Listing never fails here, so the paths kube-proxy
 * takes after a failed `nft list` (flushing a container, no stale-chain detection) do not occur,
 * and neither does the restart shortcut (`epChainSkipUpdate`): every sequence starts on a node
 * without a kube-proxy table.
 */
import type { Cluster } from "../../model/cluster.js";
import type { IPFamily } from "../../net/index.js";
import { dumpTable } from "../../netfilter/nftables/dump.js";
import { mapValueText } from "../../netfilter/nftables/knftables-text.js";
import type { SetElement, Table } from "../../netfilter/nftables/model.js";
import { planFamily, type ServicePortPlan } from "../common/plan.js";
import { nftSettings, type NftablesOptions, type NftSettings } from "./settings.js";
import { TABLE_NAME } from "./setup.js";
import {
  elementKey,
  LiveTable,
  transactionText,
  type NftOperation,
  type TableRef,
} from "./sync-operations.js";
import { setupOperations } from "./sync-setup.js";
import { CONTAINER_NAMES, servicePortObjects, type ElementRef } from "./sync-service-port.js";

/** `proxyutil.FullSyncPeriod`: a full sync at least this often (seconds). */
export const FULL_SYNC_PERIOD_SECONDS = 3600;
/** Stale chains are deleted once they have been stale for more than this (seconds). */
export const STALE_CHAIN_DELAY_SECONDS = 1;
/** The default time between two syncs of a sequence (kube-proxy's default syncPeriod). */
export const DEFAULT_SYNC_INTERVAL_SECONDS = 30;

/** One state of the sequence: a whole cluster, optionally named and timed. */
export interface SyncState {
  readonly cluster: Cluster;
  /** Shown in headers (e.g. the file name). */
  readonly name?: string;
  /** Seconds since the previous sync (ignored for the first). Default: `intervalSeconds`. */
  readonly elapsedSeconds?: number;
}

export interface SyncSequenceOptions extends NftablesOptions {
  /** Seconds between syncs unless a state says otherwise (default 30). */
  readonly intervalSeconds?: number;
}

export interface NftFamilySync {
  readonly family: IPFamily;
  readonly table: TableRef;
  /** Whether this sync was a full one. */
  readonly full: boolean;
  /** The separate transaction deleting aged stale chains, run before `operations` (often empty). */
  readonly staleChainDeletion: readonly NftOperation[];
  /** The sync's transaction; its length is upstream's `LastTransaction.NumOperations()`. */
  readonly operations: readonly NftOperation[];
  /** Chains flushed as stale and not yet deleted after this sync, with the time they went stale. */
  readonly staleChains: ReadonlyMap<string, number>;
  /** The table in the kernel after the sync. */
  readonly state: Table;
  readonly staleChainDeletionText: string;
  readonly transaction: string;
  /** The state in the knftables fake's Dump form. */
  readonly dump: string;
}

export interface NftSync {
  /** 1-based. */
  readonly index: number;
  readonly name: string;
  /** Seconds since the first sync. */
  readonly at: number;
  readonly families: readonly NftFamilySync[];
}

/** Each sync's transactions over `states`, in order (one proxier per IP family of the node). */
export function syncSequence(
  states: readonly (SyncState | Cluster)[],
  opts: SyncSequenceOptions,
): NftSync[] {
  const syncers = opts.node.ipFamilies.map((f) => new FamilySyncer(f, opts));
  const interval = opts.intervalSeconds ?? DEFAULT_SYNC_INTERVAL_SECONDS;
  const out: NftSync[] = [];
  let at = 0;
  states.forEach((raw, i) => {
    const st: SyncState = "cluster" in raw ? raw : { cluster: raw };
    if (i > 0) at += st.elapsedSeconds ?? interval;
    out.push({
      index: i + 1,
      name: st.name ?? `state ${i + 1}`,
      at,
      families: syncers.map((s) => s.sync(st.cluster, at)),
    });
  });
  return out;
}

/**
 * The transaction of a first full sync of `cluster` on a node without a kube-proxy table
 * (`render nftables --format transaction`).
 */
export function firstSyncTransaction(
  cluster: Cluster,
  family: IPFamily,
  opts: NftablesOptions,
): string {
  return new FamilySyncer(family, opts).sync(cluster, 0).transaction;
}

/** What identifies a service's change: its service ports and their endpoints, per family. */
function serviceFingerprints(plans: readonly ServicePortPlan[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of plans) {
    const key = `${p.servicePort.namespace}/${p.servicePort.serviceName}`;
    const f = JSON.stringify([p.servicePort, p.endpoints]);
    out.set(key, (out.get(key) ?? "") + f);
  }
  return out;
}

const valueText = (e: SetElement): string => (e.value === undefined ? "" : mapValueText(e.value));

/** One element container's cache (`nftElementStorage`). */
class ElementStorage {
  /** Key → value text, in insertion order. */
  readonly elements = new Map<
    string,
    { readonly key: readonly string[]; readonly value: string }
  >();
  private leftover = new Set<string>();

  constructor(readonly name: string) {}

  /** `readOrReset`: the kernel's elements (none when the table does not exist yet). */
  read(kernel: LiveTable | undefined): void {
    this.elements.clear();
    for (const e of kernel?.elementsOf(this.name)?.values() ?? [])
      this.elements.set(elementKey(e.key), { key: e.key, value: valueText(e) });
    this.leftover = new Set(this.elements.keys());
  }

  ensure(ops: NftOperation[], element: SetElement): void {
    const k = elementKey(element.key);
    const v = valueText(element);
    const old = this.elements.get(k);
    if (old === undefined) ops.push({ kind: "add-element", set: this.name, element });
    else if (old.value !== v)
      ops.push(
        { kind: "delete-element", set: this.name, key: element.key },
        { kind: "add-element", set: this.name, element },
      );
    this.elements.set(k, { key: element.key, value: v });
    this.leftover.delete(k);
  }

  cleanup(ops: NftOperation[]): void {
    for (const k of this.leftover) {
      const e = this.elements.get(k);
      if (e !== undefined) ops.push({ kind: "delete-element", set: this.name, key: e.key });
      this.elements.delete(k);
    }
    this.leftover = new Set(this.elements.keys());
  }
}

const isServiceChainName = (name: string): boolean => name.includes("/");
const isAffinitySetName = (name: string): boolean => name.startsWith("affinity-");

/** One per-family proxier and the kernel table it writes to. */
class FamilySyncer {
  private kernel: LiveTable | undefined;
  private flushed = false;
  private needFullSync = true;
  private lastFullSync = Number.NEGATIVE_INFINITY;
  private readonly staleChains = new Map<string, number>();
  private readonly storages = new Map(CONTAINER_NAMES.map(([n]) => [n, new ElementStorage(n)]));
  private fingerprints = new Map<string, string>();

  constructor(
    readonly family: IPFamily,
    readonly opts: NftablesOptions,
  ) {}

  sync(cluster: Cluster, start: number): NftFamilySync {
    const s = nftSettings(cluster, this.family, this.opts);
    const ref: TableRef = { family: s.words.word, name: TABLE_NAME };
    const staleChainDeletion = this.deleteAgedStaleChains(start);

    const full = this.needFullSync || start - this.lastFullSync > FULL_SYNC_PERIOD_SECONDS;
    const ops: NftOperation[] = [];
    if (full) {
      ops.push(...setupOperations(s, !this.flushed));
      this.flushed = true;
      for (const st of this.storages.values()) st.read(this.kernel);
    }
    const plans = planFamily(cluster, s.common).servicePorts;
    const fingerprints = serviceFingerprints(plans);
    const existingChains = this.kernel?.chainNames();
    const existingAffinitySets = this.kernel?.setNames().filter(isAffinitySetName);
    const active = new Set<string>();
    const activeAffinitySets = new Set<string>();
    for (const plan of plans) {
      const svc = `${plan.servicePort.namespace}/${plan.servicePort.serviceName}`;
      const skip = !full && this.fingerprints.get(svc) === fingerprints.get(svc);
      this.syncServicePort(ops, plan, s, skip, active, activeAffinitySets);
    }
    this.fingerprints = fingerprints;

    for (const chain of existingChains ?? []) {
      if (!isServiceChainName(chain)) continue;
      if (active.has(chain)) this.staleChains.delete(chain);
      else {
        ops.push({ kind: "flush-chain", name: chain });
        this.staleChains.set(chain, start);
      }
    }
    for (const set of existingAffinitySets ?? [])
      if (!activeAffinitySets.has(set)) ops.push({ kind: "delete-set", setKind: "set", name: set });
    for (const st of this.storages.values()) st.cleanup(ops);

    this.kernel ??= new LiveTable(ref);
    this.kernel.applyAll(ops);
    this.needFullSync = false;
    if (full) this.lastFullSync = start;
    const state = this.kernel.table();
    return {
      family: this.family,
      table: ref,
      full,
      staleChainDeletion,
      operations: ops,
      staleChains: new Map(this.staleChains),
      state,
      staleChainDeletionText: transactionText(ref, staleChainDeletion),
      transaction: transactionText(ref, ops),
      dump: dumpTable(state),
    };
  }

  private deleteAgedStaleChains(start: number): NftOperation[] {
    const ops: NftOperation[] = [];
    for (const [chain, modtime] of this.staleChains)
      if (modtime < start - STALE_CHAIN_DELAY_SECONDS) {
        ops.push({ kind: "delete-chain", name: chain });
        this.staleChains.delete(chain);
      }
    this.kernel?.applyAll(ops);
    return ops;
  }

  private syncServicePort(
    ops: NftOperation[],
    plan: ServicePortPlan,
    s: NftSettings,
    skip: boolean,
    active: Set<string>,
    activeAffinitySets: Set<string>,
  ): void {
    const o = servicePortObjects(plan, s);
    const ensureChain = (name: string): void => {
      if (active.has(name)) return;
      active.add(name);
      if (!skip) ops.push({ kind: "add-chain", name }, { kind: "flush-chain", name });
    };
    const ensureElement = (e: ElementRef): void => {
      const st = this.storages.get(e.set);
      if (st === undefined) throw new Error(`no element storage for ${e.set}`);
      st.ensure(ops, e.element);
    };
    for (const c of o.chains) ensureChain(c);
    for (const set of o.affinitySets) activeAffinitySets.add(set.name);
    o.elementsBeforeFirewall.forEach(ensureElement);
    if (o.firewallChain !== undefined) ensureChain(o.firewallChain);
    o.elementsAfterFirewall.forEach(ensureElement);
    if (skip) return;
    for (const r of o.rulesBeforeAffinitySets) ops.push({ kind: "add-rule", ...r });
    for (const set of o.affinitySets) ops.push({ kind: "add-set", set });
    for (const r of o.rulesAfterAffinitySets) ops.push({ kind: "add-rule", ...r });
  }
}
