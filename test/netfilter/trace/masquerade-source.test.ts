/**
 * Issue 19 item 1: MASQUERADE's source address as the kernel picks it (inet_select_addr on
 * the outgoing device with the route's next hop): the primary address whose prefix holds the
 * next hop, else the device's first, else any interface's first; never a scope-host address.
 * The three reproductions of the issue (kernel answers recorded there), then the choice itself.
 */
import { describe, expect, test } from "@jest/globals";
import { buildNodeDataplane } from "../../../src/node/node-dataplane.js";
import { parseCluster } from "../../../src/model/index.js";
import { parseNodeEnvironment } from "../../../src/model/load-node-environment.js";
import { parseProxyConfig } from "../../../src/model/load-proxy-config.js";
import { parseIP, formatIP } from "../../../src/net/index.js";
import { masqueradeSource } from "../../../src/netfilter/trace/addressing.js";
import { buildDataplane, trace } from "../../../src/netfilter/trace/index.js";

const CLUSTER = `
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
endpoints: [{addresses: [ENDPOINT], nodeName: NODE, conditions: {ready: true}}]
`;

function node(endpoint: string, endpointNode: string, env: string) {
  const cluster = parseCluster([
    {
      file: "cluster.yaml",
      text: CLUSTER.replace("ENDPOINT", endpoint).replace("NODE", endpointNode),
    },
  ]);
  return buildNodeDataplane(cluster, {
    node: parseNodeEnvironment(env, "node.yaml"),
    proxyConfig: parseProxyConfig(
      "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: iptables\nclusterCIDR: 10.244.0.0/16\n",
      "proxy.yaml",
    ),
    hostports: false,
  });
}

const ENV = (addresses: string, routes = "") => `
apiVersion: kube-netsim.dev/v1alpha1
kind: NodeEnvironment
nodeName: node-a
nodeIPs: [192.168.0.10]
interfaces:
  - {name: lo, addresses: [127.0.0.1/8]}
  - {name: eth0, addresses: ${addresses}}
${routes}`;

const sources = (dp: ReturnType<typeof node>, src: string, dst: string, dport: number) =>
  trace(dp, { proto: "tcp", src, dst, dport }).outcomes.map((o) => [
    o.verdict,
    o.destination,
    o.masquerade,
    o.source?.replace(/:\d+$/, ""),
    o.conntrack?.reply.dst,
  ]);

describe("the issue's reproductions", () => {
  const hostNetwork = node("192.168.0.10", "node-a", ENV("[192.168.0.10/24]"));

  test("node to its own host-network endpoint through the ClusterIP: the source stays 192.168.0.10", () => {
    expect(sources(hostNetwork, "192.168.0.10", "10.96.0.10", 80)).toEqual([
      ["DNAT", "192.168.0.10:8080", true, "192.168.0.10", "192.168.0.10"],
    ]);
  });

  test("127.0.0.1 to a NodePort on 127.0.0.1: rewritten to 192.168.0.10", () => {
    expect(sources(hostNetwork, "127.0.0.1", "127.0.0.1", 30080)).toEqual([
      ["DNAT", "192.168.0.10:8080", true, "192.168.0.10", "192.168.0.10"],
    ]);
  });

  test("two prefixes on eth0, default route via 192.168.0.1: the address in the gateway's prefix", () => {
    const dp = node(
      "10.244.1.5",
      "node-b",
      ENV("[172.16.0.10/24, 192.168.0.10/24]", "routes: [{dst: default, gateway: 192.168.0.1}]"),
    );
    expect(sources(dp, "192.168.0.20", "192.168.0.10", 30080)).toEqual([
      ["DNAT", "10.244.1.5:8080", true, "192.168.0.10", "192.168.0.10"],
    ]);
  });

  test("without routes (the documented default) the next hop is the destination itself", () => {
    const dp = node("10.244.1.5", "node-b", ENV("[172.16.0.10/24, 192.168.0.10/24]"));
    // 10.244.1.5 is in neither prefix: eth0's first address.
    expect(sources(dp, "192.168.0.20", "192.168.0.10", 30080)).toEqual([
      ["DNAT", "10.244.1.5:8080", true, "172.16.0.10", "172.16.0.10"],
    ]);
  });
});

describe("masqueradeSource", () => {
  const pick = (
    interfaces: { name: string; addresses: string[] }[],
    iface: string,
    dst: string,
    routes: { dst: string; gateway?: string; dev?: string }[] = [],
  ) => {
    const dp = buildDataplane({ ruleSets: [], interfaces, routes });
    const ip = masqueradeSource(dp, iface, parseIP(dst)!);
    return ip === undefined ? undefined : formatIP(ip);
  };
  const lo = { name: "lo", addresses: ["127.0.0.1/8", "::1/128"] };

  test("the primary address whose prefix holds the next hop, else the device's first", () => {
    const eth0 = { name: "eth0", addresses: ["172.16.0.10/24", "192.168.0.10/24"] };
    expect(pick([lo, eth0], "eth0", "192.168.0.77")).toBe("192.168.0.10");
    expect(pick([lo, eth0], "eth0", "8.8.8.8")).toBe("172.16.0.10");
    expect(pick([lo, eth0], "eth0", "8.8.8.8", [{ dst: "default", gateway: "192.168.0.1" }])).toBe(
      "192.168.0.10",
    );
    // A more specific route wins over the default one.
    expect(
      pick([lo, eth0], "eth0", "8.8.8.8", [
        { dst: "default", gateway: "192.168.0.1" },
        { dst: "8.8.0.0/16", gateway: "172.16.0.1" },
      ]),
    ).toBe("172.16.0.10");
  });

  test("secondary addresses (same prefix as an earlier one) are never chosen", () => {
    const eth0 = { name: "eth0", addresses: ["10.0.0.5/24", "10.0.0.6/24", "10.1.0.5/16"] };
    expect(pick([lo, eth0], "eth0", "10.1.2.3")).toBe("10.1.0.5");
    expect(pick([lo, eth0], "eth0", "10.0.0.99")).toBe("10.0.0.5");
  });

  test("scope-host addresses never qualify: lo falls back to another interface's address", () => {
    const eth0 = { name: "eth0", addresses: ["192.168.0.10/24"] };
    expect(pick([lo, eth0], "lo", "127.0.0.1")).toBe("192.168.0.10");
    // A global address on lo is lo's own (a VIP on the loopback).
    expect(
      pick([{ name: "lo", addresses: ["127.0.0.1/8", "10.9.9.9/32"] }, eth0], "lo", "10.9.9.9"),
    ).toBe("10.9.9.9");
  });

  test("no address anywhere: none, and the packet is dropped", () => {
    expect(pick([lo], "lo", "127.0.0.1")).toBeUndefined();
  });

  test("IPv6: the outgoing interface's address sharing the longest prefix with the destination", () => {
    const eth0 = {
      name: "eth0",
      addresses: ["fe80::1/64", "2001:db8::10/64", "2001:db8:1::10/64"],
    };
    const eth1 = { name: "eth1", addresses: ["2001:db8:2::10/64"] };
    expect(pick([lo, eth0, eth1], "eth0", "2001:db8:1::99")).toBe("2001:db8:1::10");
    expect(pick([lo, eth0, eth1], "eth0", "2001:db8:2::99")).toBe("2001:db8::10");
    expect(pick([lo, eth1], "lo", "::1")).toBe("2001:db8:2::10");
  });
});

describe("NodeEnvironment routes", () => {
  const env = (routes: string) =>
    `apiVersion: kube-netsim.dev/v1alpha1\nkind: NodeEnvironment\nnodeName: n\nroutes: ${routes}\n`;

  test("ip -j route's fields, canonical; left out: none", () => {
    expect(
      parseNodeEnvironment(env("[{dst: default, gateway: 192.168.000.1}]"), "n.yaml").routes,
    ).toEqual([{ dst: "default", gateway: "192.168.0.1" }]);
    expect(
      parseNodeEnvironment(env("[{dst: 10.244.1.0/24, dev: cali1}]"), "n.yaml").routes,
    ).toEqual([{ dst: "10.244.1.0/24", dev: "cali1" }]);
    expect(parseNodeEnvironment(env("[]"), "n.yaml").routes).toBeUndefined();
  });

  test.each([
    ["[{dst: default}]", /routes\[0\]: Required value: gateway or dev/],
    ["[{dst: nowhere, dev: eth0}]", /routes\[0\]\.dst: Invalid value: "nowhere"/],
    ["[{dst: 10.0.0.0/8, gateway: 'fe80::1'}]", /routes\[0\]\.gateway: .*family of dst \(IPv4\)/],
    ["[{dst: default, via: 10.0.0.1}]", /routes\[0\]\.via/],
  ])("%s is refused", (routes, message) => {
    expect(() => parseNodeEnvironment(env(routes), "n.yaml")).toThrow(message);
  });
});
