/**
 * `snapshot diff` in IPVS mode: kube-proxy's iptables rules (diff-iptables.ts), its IPVS table
 * (`ipvsadm-save -n`: each virtual server with its scheduler and flags, each real server with
 * its forwarding method and weight; connection counters ignored) and its ipsets (`ipset save`:
 * the KUBE-* sets and their entries, in any order; other sets are not judged), per service port,
 * and the addresses on kube-ipvs0 (diff-ipvs-addresses.ts).
 * A real server on the node for an endpoint the API has not ready, or not at all, is a stale
 * endpoint.
 */
import type { Cluster } from "../../model/cluster.js";
import { formatIpsetElement } from "../../netfilter/ipset/format.js";
import { parseIpsetSave, type Ipset } from "../../netfilter/ipset/index.js";
import {
  formatAddrPort,
  formatRealServerRule,
  formatVirtualServerRule,
  parseIpvsadmSave,
  virtualServerKey,
  type IpvsService,
  type IpvsTable,
} from "../../netfilter/ipvs/index.js";
import { formatIP } from "../../net/index.js";
import { renderIpvs } from "../../proxiers/ipvs/index.js";
import type { DiffOptions, Drift, DriftPart } from "./diff.js";
import { apiEndpoints, diffIptablesPart } from "./diff-iptables.js";
import { diffIpvsAddresses } from "./diff-ipvs-addresses.js";
import type { Snapshot } from "./read.js";
import { servicePortIndex, type ServicePortIndex } from "./service-port-index.js";

function ipvsSpec(s: IpvsService): string {
  const vs = s.virtualServer;
  const sw = vs.protocol === "TCP" ? "-t" : vs.protocol === "UDP" ? "-u" : "--sctp-service";
  return `${sw} ${formatAddrPort(vs.address, vs.port)}`;
}

export function diffIpvsTable(
  expected: IpvsTable,
  actual: IpvsTable,
  cluster: Cluster,
  index: ServicePortIndex,
): DriftPart {
  const drifts: Drift[] = [];
  const api = apiEndpoints(cluster);
  const byKey = (t: IpvsTable): Map<string, IpvsService> =>
    new Map(t.services.map((s) => [virtualServerKey(s.virtualServer), s]));
  const want = byKey(expected);
  const have = byKey(actual);
  const portOf = (s: IpvsService): string | undefined => {
    const vs = s.virtualServer;
    return index.lookup(vs.protocol, formatIP(vs.address), vs.port);
  };
  const add = (s: IpvsService, d: Omit<Drift, "family" | "table" | "chain">): void => {
    const servicePort = portOf(s);
    drifts.push({
      ...(servicePort !== undefined ? { servicePort } : {}),
      ...d,
      family: s.virtualServer.address.family,
      table: "ipvs",
      chain: ipvsSpec(s),
    });
  };
  for (const key of [...new Set([...want.keys(), ...have.keys()])].sort()) {
    const e = want.get(key);
    const a = have.get(key);
    if (a === undefined && e !== undefined) {
      const rule = formatVirtualServerRule(e.virtualServer);
      add(e, { kind: "missing-virtual-server", rule, message: `missing virtual server: ${rule}` });
      continue;
    }
    if (e === undefined && a !== undefined) {
      const rule = formatVirtualServerRule(a.virtualServer);
      add(a, {
        kind: "extra-virtual-server",
        rule,
        message: `virtual server kube-proxy would not create: ${rule}`,
      });
      continue;
    }
    if (e === undefined || a === undefined) continue;
    const er = formatVirtualServerRule(e.virtualServer);
    const ar = formatVirtualServerRule(a.virtualServer);
    if (er !== ar)
      add(e, {
        kind: "virtual-server-differs",
        rule: ar,
        message: `virtual server differs: expected ${er}, node has ${ar}`,
      });
    const reals = (s: IpvsService): Map<string, string> =>
      new Map(
        s.realServers.map((r) => [
          formatAddrPort(r.address, r.port),
          formatRealServerRule(s.virtualServer, r),
        ]),
      );
    const ew = reals(e);
    const aw = reals(a);
    for (const [rs, rule] of ew)
      if (!aw.has(rs))
        add(e, {
          kind: "missing-real-server",
          element: rs,
          rule,
          message: `${ipvsSpec(e)}: missing real server ${rs}`,
        });
    for (const [rs, rule] of aw) {
      const expectedRule = ew.get(rs);
      if (expectedRule === undefined) {
        const ready = api.get(rs);
        add(e, {
          kind: ready === true ? "extra-real-server" : "stale-endpoint",
          element: rs,
          endpoint: rs,
          rule,
          message:
            ready === true
              ? `${ipvsSpec(e)}: real server kube-proxy would not add: ${rs}`
              : `stale endpoint ${rs} (${ipvsSpec(e)}; ${ready === undefined ? "not in the API" : "not ready in the API"})`,
        });
      } else if (expectedRule !== rule)
        add(e, {
          kind: "real-server-differs",
          element: rs,
          rule,
          message: `${ipvsSpec(e)}: real server differs: expected ${expectedRule}, node has ${rule}`,
        });
    }
  }
  return {
    drifts,
    foreignRules: 0,
    foreignChains: [],
    servicePorts: expected.services.flatMap((s) => portOf(s) ?? []),
  };
}

/** The service port an ipset entry stands for (address,proto:port entries and NodePort sets). */
function entryPort(set: Ipset, element: string, index: ServicePortIndex): string | undefined {
  const m = /^([^,]+),(tcp|udp|sctp):(\d+)/.exec(element);
  if (m !== null) return index.lookup(m[2]!, m[1], Number(m[3]));
  const nodePort = /^KUBE-NODE-PORT-(?:LOCAL-)?(TCP|UDP|SCTP)$/.exec(set.name);
  if (nodePort !== null && /^\d+$/.test(element))
    return index.lookup(nodePort[1]!, undefined, Number(element));
  return undefined;
}

export function diffIpsets(
  expected: readonly Ipset[],
  actual: readonly Ipset[],
  index: ServicePortIndex,
): DriftPart {
  const drifts: Drift[] = [];
  const foreign: string[] = [];
  const want = new Map(expected.map((s) => [s.name, s]));
  const have = new Map(actual.map((s) => [s.name, s]));
  const add = (set: Ipset, d: Omit<Drift, "family" | "table" | "chain">): void => {
    drifts.push({ ...d, family: set.family, table: "ipset", chain: set.name });
  };
  for (const name of [...new Set([...want.keys(), ...have.keys()])].sort()) {
    const e = want.get(name);
    const a = have.get(name);
    if (e === undefined) {
      if (a === undefined) continue;
      if (name.startsWith("KUBE-"))
        add(a, { kind: "extra-set", message: `ipset kube-proxy would not create: ${name}` });
      else foreign.push(`ipset/${name}`);
      continue;
    }
    if (a === undefined) {
      add(e, { kind: "missing-set", message: `missing ipset ${name}` });
      continue;
    }
    const elements = (s: Ipset): Set<string> => new Set(s.entries.map(formatIpsetElement));
    const ew = elements(e);
    const aw = elements(a);
    const at = (element: string): { servicePort?: string } => {
      const sp = entryPort(e, element, index);
      return sp !== undefined ? { servicePort: sp } : {};
    };
    for (const x of ew)
      if (!aw.has(x))
        add(e, {
          ...at(x),
          kind: "missing-element",
          element: x,
          message: `ipset ${name}: missing entry ${x}`,
        });
    for (const x of aw)
      if (!ew.has(x))
        add(e, {
          ...at(x),
          kind: "extra-element",
          element: x,
          message: `ipset ${name}: entry kube-proxy would not add: ${x}`,
        });
  }
  return { drifts, foreignRules: 0, foreignChains: foreign, servicePorts: [] };
}

export function diffIpvsMode(snapshot: Snapshot, cluster: Cluster, opts: DiffOptions): DriftPart[] {
  // What kube-proxy should have written in IPVS mode, whatever modules the snapshot lists.
  const node = { ...opts.node, kernel: { ...opts.node.kernel, ipvs: true } };
  const render = renderIpvs(cluster, { proxyConfig: opts.proxyConfig, node });
  // The node's tables as built (the iptables mode passes its rule sets the same way).
  const expectedRules = render.state.families.map((f) => f.ruleSet);
  const index = servicePortIndex(cluster);
  const actualIpvs =
    snapshot.ipvs.trim() === ""
      ? { services: [] }
      : parseIpvsadmSave(snapshot.ipvs, `${snapshot.dir}/ipvsadm-save.txt`);
  const actualSets =
    snapshot.ipsets.trim() === ""
      ? []
      : parseIpsetSave(snapshot.ipsets, `${snapshot.dir}/ipset-save.txt`);
  return [
    diffIptablesPart(snapshot, expectedRules, cluster),
    diffIpvsTable(render.state.table, actualIpvs, cluster, index),
    diffIpsets(render.ipsets, actualSets, index),
    diffIpvsAddresses(render.addresses, snapshot, opts.node.ipFamilies, index),
  ];
}
