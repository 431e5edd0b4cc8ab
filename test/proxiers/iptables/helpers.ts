/** Shared fixtures: acceptance cases on disk, and the upstream fake proxier's node as data. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Cluster } from "../../../src/model/cluster.js";
import { loadCluster } from "../../../src/model/load-files.js";
import { parseNodeEnvironment } from "../../../src/model/load-node-environment.js";
import { parseProxyConfig } from "../../../src/model/load-proxy-config.js";
import type { NodeEnvironment } from "../../../src/model/node-environment.js";
import {
  DEFAULT_PROXY_CONFIG,
  type KubeProxyConfiguration,
} from "../../../src/model/proxy-config.js";

export const ACCEPTANCE = "/work/shared/acceptance/iptables";
export const UPSTREAM = join(__dirname, "upstream");

export interface Case {
  readonly cluster: Cluster;
  readonly node: NodeEnvironment;
  readonly proxyConfig: KubeProxyConfiguration;
}

export function loadCase(dir: string, settingsDir = dir): Case {
  return {
    cluster: loadCluster([join(dir, "cluster.yaml")], { validation: "warn" }),
    node: parseNodeEnvironment(
      readFileSync(join(settingsDir, "node.yaml"), "utf8"),
      join(settingsDir, "node.yaml"),
    ),
    proxyConfig: parseProxyConfig(
      readFileSync(join(settingsDir, "proxy.yaml"), "utf8"),
      join(settingsDir, "proxy.yaml"),
    ),
  };
}

export interface Flow {
  readonly name: string;
  readonly protocol: string;
  readonly sourceIP: string;
  readonly destIP: string;
  readonly destPort: number;
  readonly output: string;
  readonly masq: boolean;
}

export function readFlows(file: string): Flow[] {
  const lines = readFileSync(file, "utf8").split("\n").filter((l) => l !== "");
  return lines.slice(1).map((l) => {
    const [name, protocol, sourceIP, destIP, destPort, output, masq] = l.split("\t");
    return {
      name: name ?? "",
      protocol: protocol ?? "",
      sourceIP: sourceIP ?? "",
      destIP: destIP ?? "",
      destPort: Number(destPort),
      output: output ?? "",
      masq: masq === "true",
    };
  });
}

/** The node of upstream's NewFakeProxier (clusterip-sctp/node.yaml), as data. */
export const FAKE_NODE: NodeEnvironment = {
  nodeName: "test-node",
  ipFamilies: ["IPv4"],
  nodeIPs: ["192.168.0.2"],
  interfaces: [
    { name: "lo", addresses: ["127.0.0.1/8", "::1/128"] },
    {
      name: "eth0",
      addresses: [
        "192.168.0.2/24",
        "192.168.1.2/24",
        "192.168.99.11/24",
        "2001:db8::1/64",
        "2001:db8:1::2/64",
      ],
    },
  ],
  kernel: {
    iptablesRandomFully: false,
    nfacct: ["ct_state_invalid_dropped_pkts", "localhost_nps_accepted_pkts"],
    conntrackTCPBeLiberal: false,
    ipvs: true,
    sctp: true,
  },
};

export const FAKE_NODE_V6: NodeEnvironment = { ...FAKE_NODE, ipFamilies: ["IPv6"] };

/** NewFakeProxier's settings (clusterip-sctp/proxy.yaml). */
export const FAKE_CONFIG: KubeProxyConfiguration = {
  ...DEFAULT_PROXY_CONFIG,
  hostnameOverride: "test-node",
  clusterCIDR: "10.0.0.0/8,fd00:10::/64",
  detectLocalMode: "ClusterCIDR",
};

/** Local addresses upstream's tracer is given (testNodeIPs). */
export const FAKE_LOCAL_IPS = [
  "192.168.0.2",
  "192.168.1.2",
  "192.168.99.11",
  "2001:db8::1",
  "2001:db8:1::2",
];

/** The `-A CHAIN` lines of one table of a restore text, in order. */
export function chainLines(restore: string, table: string, chain: string): string[] {
  const out: string[] = [];
  let current = "";
  for (const line of restore.split("\n")) {
    if (line.startsWith("*")) current = line.slice(1);
    else if (current === table && line.startsWith(`-A ${chain} `)) out.push(line);
  }
  return out;
}
