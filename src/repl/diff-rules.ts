/**
 * `diff`, rules part: the node's rendered state (kube-proxy's iptables or IPVS output, and the
 * hostport rules) as lines grouped by where they live (table and chain, IPVS virtual server,
 * ipset), and per group the lines added and removed.
 */
import { renderNftables } from "../proxiers/nftables/index.js";
import type { Cluster } from "../model/cluster.js";
import type { NodeEnvironment } from "../model/node-environment.js";
import type { KubeProxyConfiguration } from "../model/proxy-config.js";
import { hostportRulesForNode } from "../hostports/index.js";
import { renderIptables } from "../proxiers/iptables/render-iptables.js";
import { renderIpvs } from "../proxiers/ipvs/index.js";
import { assertNever } from "../util/assert-never.js";

export interface NodeSettings {
  readonly node: NodeEnvironment;
  readonly proxyConfig: KubeProxyConfiguration;
}

/** Group name → its lines, in order. */
export type RenderedLines = ReadonlyMap<string, readonly string[]>;

function add(groups: Map<string, string[]>, group: string, line: string): void {
  const list = groups.get(group);
  if (list === undefined) groups.set(group, [line]);
  else list.push(line);
}

/** iptables-restore text: `-A CHAIN` lines grouped by table and chain. */
function restoreLines(groups: Map<string, string[]>, prefix: string, text: string): void {
  let table = "";
  for (const line of text.split("\n")) {
    if (line.startsWith("*")) table = line.slice(1);
    const m = /^-A (\S+)/.exec(line);
    if (m !== null) add(groups, `${prefix} ${table} ${m[1]}`, line);
  }
}

/** `ipvsadm-save -n`: a virtual server and its real servers together. */
function ipvsLines(groups: Map<string, string[]>, text: string): void {
  for (const line of text.split("\n")) {
    const m = /^-[Aa] (-[tuf] \S+|--sctp-service \S+)/.exec(line);
    if (m !== null) add(groups, `ipvs ${m[1]}`, line);
  }
}

function ipsetLines(groups: Map<string, string[]>, text: string): void {
  for (const line of text.split("\n")) {
    const m = /^(?:create|add) (\S+)/.exec(line);
    if (m !== null) add(groups, `ipset ${m[1]}`, line);
  }
}

/** Everything the node's rules consist of for this snapshot (errors become a group). */
export function renderedLines(cluster: Cluster, s: NodeSettings): RenderedLines {
  const groups = new Map<string, string[]>();
  const mode = s.proxyConfig.mode;
  try {
    switch (mode) {
      case "iptables":
        for (const f of renderIptables(cluster, s).families)
          restoreLines(groups, `iptables ${f.family}`, f.restore);
        break;
      case "ipvs": {
        const r = renderIpvs(cluster, s);
        ipvsLines(groups, r.ipvs);
        ipsetLines(groups, r.ipset);
        restoreLines(groups, "iptables", r.iptables);
        break;
      }
      case "nftables":
        for (const f of renderNftables(cluster, s).families)
          for (const line of f.dump.split("\n")) {
            // knftables Dump lines: `add rule ip kube-proxy CHAIN ...` grouped per chain.
            const m = /^add rule (\S+) (\S+) (\S+) /.exec(line);
            if (m !== null) add(groups, `nftables ${m[1]} ${m[2]} ${m[3]}`, line);
            else if (/^add element /.test(line)) add(groups, "nftables elements", line);
          }
        break;
      default:
        assertNever(mode);
    }
  } catch (e) {
    add(groups, `${mode} error`, e instanceof Error ? e.message : String(e));
  }
  try {
    for (const f of hostportRulesForNode(cluster, s.node, { impl: "kubenet" }).families)
      restoreLines(groups, `hostports ${f.family}`, f.restore);
  } catch (e) {
    add(groups, "hostports error", e instanceof Error ? e.message : String(e));
  }
  return groups;
}

export interface GroupChange {
  readonly group: string;
  readonly removed: readonly string[];
  readonly added: readonly string[];
}

/** Per group, the lines only in `before` and only in `after` (as multisets). */
export function ruleChanges(before: RenderedLines, after: RenderedLines): GroupChange[] {
  const out: GroupChange[] = [];
  const names = [...new Set([...before.keys(), ...after.keys()])];
  for (const group of names) {
    const a = before.get(group) ?? [];
    const b = after.get(group) ?? [];
    const removed = minus(a, b);
    const added = minus(b, a);
    if (removed.length > 0 || added.length > 0) out.push({ group, removed, added });
  }
  return out;
}

function minus(a: readonly string[], b: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const x of b) left.set(x, (left.get(x) ?? 0) + 1);
  const out: string[] = [];
  for (const x of a) {
    const n = left.get(x) ?? 0;
    if (n > 0) left.set(x, n - 1);
    else out.push(x);
  }
  return out;
}

export function formatRuleChanges(changes: readonly GroupChange[]): string[] {
  const lines: string[] = [];
  for (const c of changes) {
    lines.push(`  ${c.group}:`);
    for (const l of c.removed) lines.push(`    - ${l}`);
    for (const l of c.added) lines.push(`    + ${l}`);
  }
  return lines;
}
