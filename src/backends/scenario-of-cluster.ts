/**
 * The scenario for a node, rendered from manifests: kube-proxy's rules for the node (iptables,
 * IPVS or nftables mode, with the kubenet hostport rules, exactly what the simulator traces), the pods on
 * this node, the endpoints elsewhere, every port a workload may be reached on, and the sysctls
 * kube-proxy sets. Addresses of both families become workloads (a dual-stack pod holds one of
 * each).
 */
import { withScenarioData, type ScenarioData } from "./scenario-data.js";
import type { Cluster } from "../model/cluster.js";
import type { NodeEnvironment } from "../model/node-environment.js";
import type { KubeProxyConfiguration } from "../model/proxy-config.js";
import { cidrContains, formatIP, parseCIDROrHost, parseIP } from "../net/index.js";
import { formatIptablesSave } from "../netfilter/format/save.js";
import { isLoopbackInterface } from "../netfilter/trace/dataplane.js";
import { renderIptables } from "../proxiers/iptables/render-iptables.js";
import { DUMMY_DEVICE } from "../proxiers/ipvs/index.js";
import { renderNftables } from "../proxiers/nftables/render-nftables.js";
import type { AttachedPod, Scenario } from "./backend.js";
import { ipvsDataplaneInput } from "../node/ipvs-dataplane.js";
import { withNodeHostports } from "../node/node-dataplane.js";

export interface ScenarioOptions {
  readonly proxyConfig: KubeProxyConfiguration;
  readonly node: NodeEnvironment;
}

/** A stable node-side veth name for a pod (`veth` + 8 hex digits, as CNI plugins name theirs). */
export function vethNameFor(pod: string): string {
  let h = 0x811c9dc5;
  for (const ch of pod) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return `veth${h.toString(16).padStart(8, "0")}`;
}

function canonical(s: string | undefined | null): string | undefined {
  if (s === undefined || s === null) return undefined;
  const a = parseIP(s, "lenient");
  return a === undefined ? undefined : formatIP(a);
}

/** status.podIPs (status.podIP first), canonical, without duplicates. */
function podIPsOf(pod: Cluster["pods"][number]): string[] {
  const all = [pod.status?.podIP, ...(pod.status?.podIPs ?? []).map((p) => p.ip)];
  return [...new Set(all.map(canonical).filter((a): a is string => a !== undefined))];
}

function rulesAndState(
  cluster: Cluster,
  opts: ScenarioOptions,
): Pick<Scenario, "rules" | "ipsets" | "ipvs" | "node" | "nftables"> & { data: ScenarioData } {
  switch (opts.proxyConfig.mode) {
    case "iptables": {
      const rendered = renderIptables(cluster, opts);
      const ruleSets = withNodeHostports(
        rendered.families.map((f) => f.ruleSet),
        cluster,
        opts,
      );
      return {
        node: opts.node,
        rules: ruleSets.map((r) => ({ family: r.family, text: formatIptablesSave(r) })),
        data: { ruleSets },
      };
    }
    case "ipvs": {
      const { render, input } = ipvsDataplaneInput(cluster, opts);
      const ruleSets = withNodeHostports(input.ruleSets, cluster, opts);
      return {
        node: { ...opts.node, interfaces: input.interfaces },
        rules: ruleSets.map((r) => ({ family: r.family, text: formatIptablesSave(r) })),
        ipsets: render.ipset,
        ipvs: render.ipvs,
        data: { ruleSets, ipsets: render.ipsets, ipvs: render.state.table },
      };
    }
    case "nftables": {
      // kube-proxy's tables as `nft -f` loads them (the Dump), and the node's hostPort rules
      // through iptables as kubenet writes them (a node with both, as the simulator traces it).
      const rendered = renderNftables(cluster, opts);
      const printed = withNodeHostports([], cluster, opts)
        .map((ruleSet) => ({ ruleSet, text: formatIptablesSave(ruleSet) }))
        .filter((r) => r.text.trim() !== "");
      return {
        node: opts.node,
        rules: printed.map((r) => ({ family: r.ruleSet.family, text: r.text })),
        nftables: rendered.dump,
        data: { ruleSets: printed.map((r) => r.ruleSet), nftables: rendered.ruleSet.tables },
      };
    }
  }
}

export function scenarioOfCluster(cluster: Cluster, opts: ScenarioOptions): Scenario {
  const node = opts.node;
  const nodeAddresses = new Set(
    node.interfaces.flatMap((i) =>
      i.addresses.flatMap((a) => {
        const c = parseCIDROrHost(a);
        return c === undefined ? [] : [formatIP(c.address)];
      }),
    ),
  );
  // Subnets of the node's non-default interfaces (pod bridges): addresses there are local pods.
  const nonLo = node.interfaces.filter(
    (i) => !isLoopbackInterface(i.name) && i.name !== DUMMY_DEVICE,
  );
  const podSubnets = nonLo.slice(1).flatMap((i) =>
    i.addresses.flatMap((a) => {
      const c = parseCIDROrHost(a);
      return c !== undefined && c.prefix < (c.family === "IPv4" ? 31 : 127) ? [c] : [];
    }),
  );
  const inPodSubnet = (ip: string): boolean => {
    const a = parseIP(ip, "lenient");
    return a !== undefined && podSubnets.some((c) => cidrContains(c, a));
  };
  const pods = new Map<string, AttachedPod>();
  const remote = new Set<string>();
  const ports = new Set<number>();
  const localIPs = new Set<string>();
  const addLocal = (name: string, ips: readonly string[]): void => {
    const own = ips.filter((ip) => !nodeAddresses.has(ip) && !localIPs.has(ip));
    if (own.length === 0) return;
    for (const ip of own) localIPs.add(ip);
    pods.set(name, {
      name,
      ip: own[0]!,
      ...(own.length > 1 ? { ips: own } : {}),
      interface: vethNameFor(name),
    });
  };
  for (const pod of cluster.pods) {
    const ips = podIPsOf(pod);
    if (ips.length === 0 || pod.spec?.hostNetwork === true) continue;
    for (const c of pod.spec?.containers ?? [])
      for (const p of c.ports ?? []) ports.add(p.containerPort);
    const name = `${pod.metadata?.namespace ?? "default"}/${pod.metadata?.name ?? ""}`;
    if (pod.spec?.nodeName === node.nodeName) addLocal(name, ips);
    else for (const ip of ips) if (!nodeAddresses.has(ip)) remote.add(ip);
  }
  for (const slice of cluster.endpointSlices) {
    if (slice.addressType !== "IPv4" && slice.addressType !== "IPv6") continue;
    for (const p of slice.ports ?? [])
      if (p.port !== undefined && p.port !== null) ports.add(p.port);
    for (const e of slice.endpoints) {
      for (const address of e.addresses) {
        const ip = canonical(address);
        if (ip === undefined || nodeAddresses.has(ip)) continue;
        if (localIPs.has(ip) || remote.has(ip)) continue;
        const local = e.nodeName === node.nodeName || (e.nodeName === undefined && inPodSubnet(ip));
        if (local) addLocal(`endpoint/${ip}`, [ip]);
        else remote.add(ip);
      }
    }
  }
  for (const svc of cluster.services)
    for (const p of svc.spec?.ports ?? []) {
      ports.add(p.port);
      if (p.nodePort !== undefined && p.nodePort !== null) ports.add(p.nodePort);
      if (typeof p.targetPort === "number") ports.add(p.targetPort);
    }
  const sysctls: Record<string, string> = {
    "net.netfilter.nf_conntrack_tcp_be_liberal": node.kernel.conntrackTCPBeLiberal ? "1" : "0",
  };
  // kube-proxy's iptables mode sets route_localnet so that 127.0.0.1:NodePort works.
  if (opts.proxyConfig.mode === "iptables" && opts.proxyConfig.iptables.localhostNodePorts)
    sysctls["net.ipv4.conf.all.route_localnet"] = "1";
  const { data, ...state } = rulesAndState(cluster, opts);
  return withScenarioData(
    {
      ...state,
      pods: [...pods.values()],
      remoteEndpoints: [...remote],
      ports: [...ports].filter((p) => p > 0).sort((a, b) => a - b),
      sysctls,
    },
    data,
  );
}
