/**
 * The node environment a snapshot describes, for rendering what kube-proxy should have written
 * there: interfaces and addresses from `ip -j addr`, node IPs from the Node object (when the
 * manifests have it) else the addresses of the first non-loopback interface, and the kernel
 * facts kube-proxy's output depends on read from the node itself (--random-fully and nfacct
 * counters as its rules use them, conntrack liberal from the sysctl, IPVS and SCTP modules).
 */
import type { Cluster } from "../../model/cluster.js";
import type { NodeEnvironment } from "../../model/node-environment.js";
import { formatIP, parseCIDROrHost, parseIP, type IPFamily } from "../../net/index.js";
import { formatIptablesSave } from "../../netfilter/format/save.js";
import { isLoopbackInterface } from "../../netfilter/trace/dataplane.js";
import type { Snapshot } from "./read.js";

export function nodeOfSnapshot(
  snapshot: Snapshot,
  cluster: Cluster,
  nodeName: string,
): NodeEnvironment {
  const interfaces = snapshot.interfaces.map((i) => ({
    name: i.name,
    addresses: i.addresses.filter((a) => !a.toLowerCase().startsWith("fe80:")),
  }));
  const node = cluster.nodes.find((n) => n.metadata?.name === nodeName);
  const fromNode = (node?.status?.addresses ?? [])
    .filter((a) => a.type === "InternalIP" || a.type === "ExternalIP")
    .flatMap((a) => {
      const ip = parseIP(a.address ?? "", "lenient");
      return ip === undefined ? [] : [formatIP(ip)];
    });
  const firstIface = interfaces.find((i) => !isLoopbackInterface(i.name));
  const nodeIPs =
    fromNode.length > 0
      ? fromNode
      : (firstIface?.addresses ?? []).flatMap((a) => {
          const c = parseCIDROrHost(a);
          return c === undefined ? [] : [formatIP(c.address)];
        });
  const families: IPFamily[] = snapshot.rules.map((r) => r.family);
  const text = snapshot.rules.map((r) => formatIptablesSave(r.ruleSet)).join("\n");
  const nfacct = [...new Set([...text.matchAll(/--nfacct-name (\S+)/g)].map((m) => m[1]!))];
  return {
    nodeName,
    ipFamilies: families.length > 0 ? families : ["IPv4"],
    nodeIPs,
    interfaces,
    kernel: {
      iptablesRandomFully: text.includes("--random-fully"),
      nfacct,
      conntrackTCPBeLiberal: snapshot.sysctls["net.netfilter.nf_conntrack_tcp_be_liberal"] === "1",
      ipvs: snapshot.modules.some((m) => m.startsWith("ip_vs")),
      sctp: snapshot.modules.includes("sctp"),
    },
  };
}
