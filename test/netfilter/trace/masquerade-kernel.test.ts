/**
 * Issue 19 item 1 against the real kernel: the three reproductions set up in scratch
 * namespaces with kube-proxy's rules applied as kube-proxy does; a real TCP connection is made
 * and compared with the trace on what the masquerade changes: the source address and port the
 * server sees, and the reply tuple conntrack recorded (/proc/net/nf_conntrack of the node).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { describe, expect } from "@jest/globals";
import { fc } from "@fast-check/jest";
import { IpScript } from "../../../src/backends/ip-script.js";
import { withNetns, type Netns } from "../../../src/backends/netns.js";
import { buildNodeDataplane } from "../../../src/node/node-dataplane.js";
import { parseCluster } from "../../../src/model/index.js";
import { parseNodeEnvironment } from "../../../src/model/load-node-environment.js";
import { DEFAULT_PROXY_CONFIG } from "../../../src/model/proxy-config.js";
import { trace } from "../../../src/netfilter/trace/index.js";
import { ENSURED_JUMPS } from "../../../src/proxiers/iptables/builtin-jumps.js";
import { renderIptables } from "../../../src/proxiers/iptables/render-iptables.js";
import { kernelTest } from "../../helpers/kernel.js";
import { okOutput, runBatch, type BatchStep } from "../../helpers/netns-batch.js";

const CLUSTER = (endpoint: string, endpointNode: string) => `
apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {addresses: [{type: InternalIP, address: 192.168.0.10}]}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  type: NodePort
  clusterIP: 10.96.0.10
  ports: [{port: 80, targetPort: 8080, nodePort: 30080, protocol: TCP}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-1, namespace: default, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
ports: [{port: 8080, protocol: TCP}]
endpoints: [{addresses: [${endpoint}], nodeName: ${endpointNode}, conditions: {ready: true}}]
`;

const ENV = (addresses: string, routes: string) => `
apiVersion: kube-netsim.dev/v1alpha1
kind: NodeEnvironment
nodeName: node-a
nodeIPs: [192.168.0.10]
interfaces:
  - {name: lo, addresses: [127.0.0.1/8]}
  - {name: eth0, addresses: ${addresses}}
routes: ${routes}
kernel: {iptablesRandomFully: false}
`;

const PROXY_CONFIG = {
  ...DEFAULT_PROXY_CONFIG,
  clusterCIDR: "10.244.0.0/16",
  hostnameOverride: "node-a",
};

/** Answers each connection with the peer's `ip:port`. */
const SERVER = `
const net = require("net");
net.createServer((s) => s.end(s.remoteAddress + ":" + s.remotePort)).listen(8080, process.argv[1], () => console.log("ready"));
`;

/** One connection from `localAddress:localPort`; prints what the server saw. */
const CLIENT = `
const net = require("net");
const [host, port, localAddress, localPort] = process.argv.slice(1);
const c = net.connect({ host, port: Number(port), localAddress, localPort: Number(localPort) });
let data = "";
c.on("data", (d) => (data += d));
c.on("end", () => console.log(data));
c.on("error", (e) => console.log("error " + e.code));
c.setTimeout(3000, () => { c.destroy(); console.log("timeout"); });
`;

async function startServer(ns: Netns, ip: string): Promise<ChildProcess> {
  const child = spawn("ip", ["netns", "exec", ns.name, process.execPath, "-e", SERVER, ip], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`server in ${ns.name} exited with ${code}`)));
  });
  return child;
}

interface Tuple {
  readonly src: string;
  readonly dst: string;
  readonly sport: number;
  readonly dport: number;
}

/** The reply tuple of the node's TCP conntrack entry whose original tuple is `orig`. */
function replyTuple(node: Netns, orig: Tuple): Tuple | undefined {
  for (const line of node.exec("cat", ["/proc/net/nf_conntrack"]).split("\n")) {
    if (!/\btcp\b/.test(line)) continue;
    const v = (k: string) =>
      [...line.matchAll(new RegExp(`\\b${k}=(\\S+)`, "g"))].map((m) => m[1]!);
    const [src, dst, sport, dport] = [v("src"), v("dst"), v("sport"), v("dport")];
    if (src[0] !== orig.src || dst[0] !== orig.dst || Number(sport[0]) !== orig.sport) continue;
    if (Number(dport[0]) !== orig.dport) continue;
    return { src: src[1]!, dst: dst[1]!, sport: Number(sport[1]), dport: Number(dport[1]) };
  }
  return undefined;
}

/** kube-proxy's jumps, then the restore: each its own process, all from one (runBatch). */
function applyRules(node: Netns, restore: string): void {
  const steps: { step: BatchStep; mustSucceed: boolean }[] = ENSURED_JUMPS.flatMap((j) => [
    { step: { cmd: "iptables", args: ["-w", "-t", j.table, "-N", j.target] }, mustSucceed: false },
    {
      step: { cmd: "iptables", args: ["-w", "-t", j.table, "-I", j.chain, ...argv(j.rule)] },
      mustSucceed: true,
    },
  ]);
  steps.push({
    step: { cmd: "iptables-restore", args: ["-w", "--noflush"], input: restore },
    mustSucceed: true,
  });
  const [results] = runBatch(node, [steps.map((s) => s.step)]);
  steps.forEach(({ step, mustSucceed }, k) => {
    if (mustSucceed) okOutput(step, results?.[k]);
  });
}

function argv(rule: string): string[] {
  return [...rule.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? "");
}

interface Case {
  readonly name: string;
  readonly endpoint: string;
  readonly endpointNode: string;
  readonly addresses: string;
  readonly routes: string;
  /** Sets up the namespaces; returns where the client and the server run. */
  readonly topology: (s: IpScript, node: Netns, lan: Netns) => { client: Netns; server: Netns };
  readonly src: string;
  readonly dst: string;
  readonly dport: number;
  readonly sport: number;
}

function hostNetworkNode(s: IpScript, node: Netns, lan: Netns): void {
  s.ip(node, ["link", "set", "lo", "up"]);
  // (No dummy device on every kernel: a veth whose other end nobody uses.)
  s.veth(node, "eth0", lan, "eth0");
  s.ip(node, ["addr", "add", "192.168.0.10/24", "dev", "eth0"]);
  s.ip(node, ["link", "set", "eth0", "up"]);
  // A ClusterIP is routable (off-link here; the DNAT makes it local before it leaves).
  s.ip(node, ["route", "add", "default", "dev", "eth0"]);
  // kube-proxy sets it for NodePorts on localhost.
  s.sysctl(node, ["net.ipv4.conf.all.route_localnet=1"]);
}

const CASES: readonly Case[] = [
  {
    name: "node to its host-network endpoint through the ClusterIP",
    endpoint: "192.168.0.10",
    endpointNode: "node-a",
    addresses: "[192.168.0.10/24]",
    routes: "[]",
    topology: (s, node, lan) => (hostNetworkNode(s, node, lan), { client: node, server: node }),
    src: "192.168.0.10",
    dst: "10.96.0.10",
    dport: 80,
    sport: 40001,
  },
  {
    name: "127.0.0.1 to the NodePort on 127.0.0.1",
    endpoint: "192.168.0.10",
    endpointNode: "node-a",
    addresses: "[192.168.0.10/24]",
    routes: "[]",
    topology: (s, node, lan) => (hostNetworkNode(s, node, lan), { client: node, server: node }),
    src: "127.0.0.1",
    dst: "127.0.0.1",
    dport: 30080,
    sport: 40002,
  },
  {
    name: "two prefixes on eth0, default route via 192.168.0.1, endpoint on another node",
    endpoint: "10.244.1.5",
    endpointNode: "node-b",
    addresses: "[172.16.0.10/24, 192.168.0.10/24]",
    routes: "[{dst: default, gateway: 192.168.0.1}]",
    topology: (s, node, lan) => {
      // The LAN: client 192.168.0.20, the gateway 192.168.0.1 and the other node's pod
      // 10.244.1.5 all answer on one interface.
      s.ip(node, ["link", "set", "lo", "up"]);
      s.veth(node, "eth0", lan, "eth0");
      s.ip(node, ["addr", "add", "172.16.0.10/24", "dev", "eth0"]);
      s.ip(node, ["addr", "add", "192.168.0.10/24", "dev", "eth0"]);
      s.ip(node, ["link", "set", "eth0", "up"]);
      s.ip(node, ["route", "add", "default", "via", "192.168.0.1"]);
      s.sysctl(node, ["net.ipv4.ip_forward=1"]);
      s.ip(lan, ["link", "set", "lo", "up"]);
      for (const a of ["192.168.0.20/24", "192.168.0.1/24", "10.244.1.5/32"])
        s.ip(lan, ["addr", "add", a, "dev", "eth0"]);
      s.ip(lan, ["link", "set", "eth0", "up"]);
      return { client: lan, server: lan };
    },
    src: "192.168.0.20",
    dst: "192.168.0.10",
    dport: 30080,
    sport: 40003,
  },
];

describe("kernel: MASQUERADE's source address", () => {
  for (const c of CASES)
    kernelTest(`kns-masq: ${c.name}`, ["root", "ip", "iptables"], async () => {
      const cluster = parseCluster([{ file: "c.yaml", text: CLUSTER(c.endpoint, c.endpointNode) }]);
      const node = parseNodeEnvironment(ENV(c.addresses, c.routes), "n.yaml");
      const rendered = renderIptables(cluster, { node, proxyConfig: PROXY_CONFIG });
      const dp = buildNodeDataplane(cluster, { node, proxyConfig: PROXY_CONFIG, hostports: false });
      const [predicted, ...others] = trace(dp, {
        proto: "tcp",
        src: c.src,
        sport: c.sport,
        dst: c.dst,
        dport: c.dport,
      }).outcomes;
      expect(others).toEqual([]);
      await withNetns(
        2,
        async ([nodeNs, lan]) => {
          // The set-up from one script (one spawn; see src/backends/ip-script.ts).
          const setup = new IpScript();
          const { client, server } = c.topology(setup, nodeNs!, lan!);
          setup.run();
          applyRules(nodeNs!, rendered.restore);
          const child = await startServer(server, c.endpoint);
          try {
            const seen = client
              .exec(process.execPath, [
                "-e",
                CLIENT,
                c.dst,
                String(c.dport),
                c.src,
                String(c.sport),
              ])
              .trim();
            const reply = replyTuple(nodeNs!, {
              src: c.src,
              dst: c.dst,
              sport: c.sport,
              dport: c.dport,
            });
            expect({ seen, reply }).toEqual({
              seen: predicted!.source ?? `${c.src}:${c.sport}`,
              reply: {
                src: predicted!.conntrack!.reply.src,
                dst: predicted!.conntrack!.reply.dst,
                sport: predicted!.conntrack!.reply.sport,
                dport: predicted!.conntrack!.reply.dport,
              },
            });
            // And the tracer's answer is the kernel answer.
            expect(seen.replace(/:\d+$/, "")).toBe("192.168.0.10");
          } finally {
            child.kill();
          }
        },
        "kns-masq",
      );
    });
});

/** The node's eth0 addresses and route drawn at random; a client on the LAN reaches a NodePort. */
const POOL = ["172.16.0.10/24", "192.168.0.10/24", "192.168.0.11/24", "10.1.0.10/16"];
const GATEWAYS: Readonly<Record<string, string>> = {
  "172.16.0.10/24": "172.16.0.1",
  "192.168.0.10/24": "192.168.0.1",
  "192.168.0.11/24": "192.168.0.1",
  "10.1.0.10/16": "10.1.0.1",
};

const layoutArb = fc.shuffledSubarray(POOL, { minLength: 1 }).chain((addresses) =>
  fc.record({
    addresses: fc.constant(addresses),
    gateway: fc.option(fc.constantFrom(...addresses.map((a) => GATEWAYS[a]!)), { nil: undefined }),
  }),
);

describe("kernel: MASQUERADE's source over random address layouts (property)", () => {
  kernelTest(
    "kns-masq: the source the server sees and conntrack's reply tuple are the trace's",
    ["root", "ip", "iptables"],
    async () => {
      const cluster = parseCluster([{ file: "c.yaml", text: CLUSTER("10.244.1.5", "node-b") }]);
      await fc.assert(
        fc.asyncProperty(layoutArb, async ({ addresses, gateway }) => {
          const routes = gateway === undefined ? "[]" : `[{dst: default, gateway: ${gateway}}]`;
          const node = parseNodeEnvironment(ENV(`[${addresses.join(", ")}]`, routes), "n.yaml");
          const rendered = renderIptables(cluster, { node, proxyConfig: PROXY_CONFIG });
          const dp = buildNodeDataplane(cluster, {
            node,
            proxyConfig: PROXY_CONFIG,
            hostports: false,
          });
          const dst = addresses[0]!.split("/")[0]!;
          const c = { src: "192.168.0.20", sport: 40010, dst, dport: 30080 };
          const [predicted] = trace(dp, { proto: "tcp", ...c }).outcomes;
          await withNetns(
            2,
            async ([nodeNs, lan]) => {
              const n = nodeNs!;
              const s = new IpScript();
              s.ip(n, ["link", "set", "lo", "up"]);
              s.veth(n, "eth0", lan!, "eth0");
              for (const a of addresses) s.ip(n, ["addr", "add", a, "dev", "eth0"]);
              s.ip(n, ["link", "set", "eth0", "up"]);
              if (gateway !== undefined) s.ip(n, ["route", "add", "default", "via", gateway]);
              else s.ip(n, ["route", "add", "default", "dev", "eth0"]);
              s.sysctl(n, ["net.ipv4.ip_forward=1"]);
              // The LAN answers for the client, every gateway and the other node's pod.
              s.ip(lan!, ["link", "set", "lo", "up"]);
              for (const a of [
                "192.168.0.20/24",
                "192.168.0.1/24",
                "172.16.0.1/24",
                "10.1.0.1/16",
                "10.244.1.5/32",
              ])
                s.ip(lan!, ["addr", "add", a, "dev", "eth0"]);
              s.ip(lan!, ["link", "set", "eth0", "up"]);
              s.run();
              applyRules(n, rendered.restore);
              const child = await startServer(lan!, "10.244.1.5");
              try {
                const seen = lan!
                  .exec(process.execPath, [
                    "-e",
                    CLIENT,
                    c.dst,
                    String(c.dport),
                    c.src,
                    String(c.sport),
                  ])
                  .trim();
                const reply = replyTuple(n, c);
                expect({ addresses, gateway, seen, reply }).toEqual({
                  addresses,
                  gateway,
                  seen: predicted!.source,
                  reply: { ...predicted!.conntrack!.reply },
                });
              } finally {
                child.kill();
              }
            },
            "kns-masq",
          );
        }),
        { numRuns: 4, seed: 19 },
      );
    },
  );
});
