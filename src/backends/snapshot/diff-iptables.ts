/**
 * The iptables part of `snapshot diff`: kube-proxy's chains (iptables mode, or the iptables
 * rules of IPVS mode) as rendered for the manifests against the node's iptables-save, per
 * service port (see diff.ts for the kinds). Rules outside kube-proxy's chains are counted, not
 * judged; in the built-in chains only kube-proxy's jump rules are compared. Counters, the order
 * of tables and chains, and the spelling of mark values (0x4000 vs 0x00004000) are ignored.
 */
import type { Cluster } from "../../model/cluster.js";
import { formatRuleSave } from "../../netfilter/format/rule.js";
import { BUILTIN_CHAINS, type RuleSet, type TableName } from "../../netfilter/model.js";
import type { Drift, DriftPart } from "./diff.js";
import type { Snapshot } from "./read.js";

const TABLES: readonly TableName[] = ["filter", "nat"];
const PER_SERVICE = /^KUBE-(SVC|SVL|EXT|FW|SEP)-/;

/** Rule text with mark values in one spelling (kube-proxy pads them, iptables-save does not). */
function normalise(text: string): string {
  return text.replace(/0x0*([0-9a-fA-F]+)/g, (_, h: string) => `0x${h.toLowerCase()}`);
}

function servicePortOf(rule: string): string | undefined {
  const m = /--comment "?([^\s"/]+\/[^\s"]+)/.exec(rule);
  return m?.[1];
}

function dnatTarget(rule: string): string | undefined {
  return /--to-destination (\S+)/.exec(rule)?.[1];
}

interface ChainRules {
  readonly rules: readonly string[];
}

function chainsOf(rs: RuleSet | undefined, table: TableName): Map<string, ChainRules> {
  const out = new Map<string, ChainRules>();
  const t = rs?.tables.find((x) => x.name === table);
  for (const c of t?.chains ?? [])
    out.set(c.name, {
      rules: c.rules.map((r) => normalise(formatRuleSave(c.name, r, rs!.family))),
    });
  return out;
}

function multisetMinus(a: readonly string[], b: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const x of b) counts.set(x, (counts.get(x) ?? 0) + 1);
  const out: string[] = [];
  for (const x of a) {
    const n = counts.get(x) ?? 0;
    if (n > 0) counts.set(x, n - 1);
    else out.push(x);
  }
  return out;
}

function jumpOf(rule: string): string | undefined {
  return /\s-[jg] (\S+)/.exec(rule)?.[1];
}

/** Endpoint readiness in the API, `ip:port` → ready. */
export function apiEndpoints(cluster: Cluster): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const s of cluster.endpointSlices)
    for (const e of s.endpoints)
      for (const a of e.addresses)
        for (const p of s.ports ?? [])
          if (p.port !== undefined && p.port !== null) {
            const hp = a.includes(":") ? `[${a}]:${p.port}` : `${a}:${p.port}`;
            out.set(hp, (out.get(hp) ?? false) || e.conditions?.ready !== false);
          }
  return out;
}

export function diffIptablesPart(
  snapshot: Snapshot,
  expectedSets: readonly RuleSet[],
  cluster: Cluster,
): DriftPart {
  const drifts: Drift[] = [];
  const foreignChains = new Set<string>();
  let foreignRules = 0;
  const ports = new Set<string>();
  const api = apiEndpoints(cluster);
  for (const fam of expectedSets) {
    const actualRs = snapshot.rules.find((r) => r.family === fam.family)?.ruleSet;
    for (const table of TABLES) {
      const expected = chainsOf(fam, table);
      const actual = chainsOf(actualRs, table);
      const builtins = BUILTIN_CHAINS[table] as readonly string[];
      const owned = (name: string): boolean => expected.has(name) || PER_SERVICE.test(name);
      const portOfChain = (c: ChainRules | undefined): string | undefined =>
        c?.rules.map(servicePortOf).find((p) => p !== undefined);
      const add = (
        d: Omit<Drift, "family" | "table" | "servicePort"> & { servicePort?: string | undefined },
      ): void => {
        const { servicePort, ...rest } = d;
        drifts.push({
          ...rest,
          ...(servicePort !== undefined ? { servicePort } : {}),
          family: fam.family,
          table,
        });
      };
      for (const c of expected.values())
        for (const r of c.rules) {
          const sp = servicePortOf(r);
          if (sp !== undefined) ports.add(sp);
        }
      const names = [...new Set([...expected.keys(), ...actual.keys()])].sort();
      for (const name of names) {
        const e = expected.get(name);
        const a = actual.get(name);
        if (builtins.includes(name)) {
          // Built-in chains: kube-proxy owns only its jump rules; the rest is other software.
          const mine = (r: string): boolean => {
            const j = jumpOf(r);
            return j !== undefined && owned(j);
          };
          const want = (e?.rules ?? []).filter(mine);
          const have = (a?.rules ?? []).filter(mine);
          for (const r of multisetMinus(want, have))
            add({
              kind: "missing-rule",
              chain: name,
              rule: r,
              message: `${table}/${name}: missing rule: ${r}`,
            });
          for (const r of multisetMinus(have, want))
            add({
              kind: "unexpected-rule",
              chain: name,
              rule: r,
              message: `${table}/${name}: rule kube-proxy never writes: ${r}`,
            });
          const other = (a?.rules ?? []).filter((r) => !mine(r));
          foreignRules += other.length;
          if (other.length > 0) foreignChains.add(`${table}/${name}`);
          continue;
        }
        if (!owned(name)) {
          if (a !== undefined) {
            foreignRules += a.rules.length;
            foreignChains.add(`${table}/${name}`);
          }
          continue;
        }
        const sp = portOfChain(e) ?? portOfChain(a);
        const at = sp !== undefined ? { servicePort: sp } : {};
        if (a === undefined) {
          add({
            ...at,
            kind: "missing-chain",
            chain: name,
            message: `missing chain ${table}/${name}`,
          });
          continue;
        }
        if (e === undefined) {
          const target = name.startsWith("KUBE-SEP-")
            ? a.rules.map(dnatTarget).find((x) => x !== undefined)
            : undefined;
          if (target !== undefined) {
            const ready = api.get(target);
            add({
              ...at,
              kind: "stale-endpoint",
              chain: name,
              endpoint: target,
              message: `stale endpoint ${target} (${table}/${name}; ${ready === undefined ? "not in the API" : ready ? "not expected for this node" : "not ready in the API"})`,
            });
          } else
            add({
              ...at,
              kind: "extra-chain",
              chain: name,
              message: `chain kube-proxy would not write: ${table}/${name}`,
            });
          continue;
        }
        const missing = multisetMinus(e.rules, a.rules);
        const extra = multisetMinus(a.rules, e.rules);
        for (const r of missing)
          add({
            servicePort: servicePortOf(r) ?? sp,
            kind: "missing-rule",
            chain: name,
            rule: r,
            message: `${table}/${name}: missing rule: ${r}`,
          });
        for (const r of extra)
          add({
            servicePort: servicePortOf(r) ?? sp,
            kind: "unexpected-rule",
            chain: name,
            rule: r,
            message: `${table}/${name}: rule kube-proxy never writes: ${r}`,
          });
        if (missing.length === 0 && extra.length === 0 && e.rules.join("\n") !== a.rules.join("\n"))
          add({
            ...at,
            kind: "rule-order",
            chain: name,
            message: `${table}/${name}: the same rules in another order`,
          });
      }
    }
  }
  return { drifts, foreignRules, foreignChains: [...foreignChains], servicePorts: [...ports] };
}
