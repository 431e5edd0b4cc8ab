/**
 * A node's scenario rendered from manifests, and where its parts sit: pods on this node,
 * endpoints elsewhere, the external client on the default interface's subnet, the probe sources.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { layoutOf, resolveSource, ScenarioError } from "../../src/backends/layout.js";
import { scenarioOfCluster, vethNameFor } from "../../src/backends/scenario-of-cluster.js";
import { loadCluster } from "../../src/model/load-files.js";
import { parseNodeEnvironment } from "../../src/model/load-node-environment.js";
import { parseProxyConfig } from "../../src/model/load-proxy-config.js";

const DIR = new URL("../../examples/nodeport-loadbalancer/", import.meta.url).pathname;
const cluster = loadCluster([join(DIR, "cluster.yaml")]);
const node = parseNodeEnvironment(readFileSync(join(DIR, "node.yaml"), "utf8"), "node.yaml");
const proxyConfig = parseProxyConfig(readFileSync(join(DIR, "proxy.yaml"), "utf8"), "proxy.yaml");
const scenario = scenarioOfCluster(cluster, { node, proxyConfig });

describe("scenarioOfCluster", () => {
  it("pods on this node, endpoints elsewhere, every port, kube-proxy's sysctls", () => {
    expect(scenario.pods).toEqual([
      { name: "shop/web-1", ip: "10.244.1.5", interface: vethNameFor("shop/web-1") },
    ]);
    expect([...scenario.remoteEndpoints].sort()).toEqual(["10.244.2.5", "10.244.2.6"]);
    expect(scenario.ports).toEqual([80, 443, 8080, 8443, 30080, 30443]);
    expect(scenario.sysctls).toEqual({
      "net.netfilter.nf_conntrack_tcp_be_liberal": "0",
      "net.ipv4.conf.all.route_localnet": "1",
    });
    expect(scenario.rules.map((r) => r.family)).toEqual(["IPv4"]);
    expect(scenario.rules[0]!.text).toContain("-A KUBE-SERVICES");
  });

  it("veth names fit the kernel's 15 characters and differ per pod", () => {
    expect(vethNameFor("shop/web-1")).toMatch(/^veth[0-9a-f]{8}$/);
    expect(vethNameFor("shop/web-1")).not.toBe(vethNameFor("shop/web-2"));
  });
});

describe("layoutOf / resolveSource", () => {
  const layout = layoutOf(scenario);
  it("the external client is the highest free address of eth0's subnet", () => {
    expect(layout).toMatchObject({
      defaultInterface: "eth0",
      external: "192.168.10.254",
      nodeSource: "192.168.10.11",
    });
  });

  it.each([
    ["shop/web-1", { where: "pod", pod: "shop/web-1", ip: "10.244.1.5" }],
    ["node", { where: "node", ip: "192.168.10.11" }],
    ["external", { where: "external", ip: "192.168.10.254" }],
    ["10.244.1.5", { where: "pod", pod: "shop/web-1", ip: "10.244.1.5" }],
    ["127.0.0.1", { where: "node", ip: "127.0.0.1" }],
    ["203.0.113.7", { where: "external", ip: "203.0.113.7" }],
  ])("from %s", (from, expected) => {
    expect(
      resolveSource(scenario, layout, { protocol: "tcp", from, to: "10.96.100.10", port: 80 }),
    ).toEqual(expected);
  });

  it("an unknown source is an error naming it", () => {
    expect(() =>
      resolveSource(scenario, layout, {
        protocol: "tcp",
        from: "nonsense",
        to: "10.96.100.10",
        port: 80,
      }),
    ).toThrow(
      new ScenarioError('probe from "nonsense": expected ns/pod, node, external or an IP address'),
    );
  });

  it("a node without a subnet on its default interface cannot host an external client", () => {
    const bad = {
      ...scenario,
      node: {
        ...scenario.node,
        interfaces: [
          { name: "lo", addresses: ["127.0.0.1/8"] },
          { name: "eth0", addresses: ["192.168.10.11/32"] },
        ],
      },
    };
    expect(() => layoutOf(bad)).toThrow(
      "interface eth0 (the node's default interface) has no IPv4 or IPv6 subnet to attach the external client to",
    );
  });
});

describe("a dual-stack scenario (examples/dual-stack)", () => {
  const D = new URL("../../examples/dual-stack/", import.meta.url).pathname;
  const c = loadCluster([join(D, "cluster.yaml")]);
  const n = parseNodeEnvironment(readFileSync(join(D, "node.yaml"), "utf8"), "node.yaml");
  const pc = parseProxyConfig(readFileSync(join(D, "proxy.yaml"), "utf8"), "proxy.yaml");
  const s = scenarioOfCluster(c, { node: n, proxyConfig: pc });
  const layout = layoutOf(s);

  it("pods hold an address of each family; remote endpoints of both families; rules per family", () => {
    expect(s.pods).toEqual([
      {
        name: "shop/web-1",
        ip: "10.244.1.5",
        ips: ["10.244.1.5", "fd00:10:244:1::5"],
        interface: vethNameFor("shop/web-1"),
      },
    ]);
    expect([...s.remoteEndpoints].sort()).toEqual([
      "10.244.2.5",
      "10.244.2.6",
      "10.244.2.7",
      "fd00:10:244:2::5",
      "fd00:10:244:2::6",
      "fd00:10:244:2::7",
    ]);
    expect(s.rules.map((r) => r.family)).toEqual(["IPv4", "IPv6"]);
  });

  it("one side per family: the external client at the top of each subnet", () => {
    expect(layout.sides.map((x) => [x.family, x.external, x.nodeSource])).toEqual([
      ["IPv4", "192.168.10.254", "192.168.10.11"],
      ["IPv6", "fd00:10::ffff:ffff:ffff:fffe", "fd00:10::11"],
    ]);
  });

  it.each([
    ["shop/web-1", "fd00:10:96::10", { where: "pod", pod: "shop/web-1", ip: "fd00:10:244:1::5" }],
    ["shop/web-1", "10.96.100.10", { where: "pod", pod: "shop/web-1", ip: "10.244.1.5" }],
    ["node", "fd00:10:96::10", { where: "node", ip: "fd00:10::11" }],
    ["external", "fd00:10:96::10", { where: "external", ip: "fd00:10::ffff:ffff:ffff:fffe" }],
    [
      "fd00:10:244:1::5",
      "fd00:10:96::10",
      { where: "pod", pod: "shop/web-1", ip: "fd00:10:244:1::5" },
    ],
    ["::1", "::1", { where: "node", ip: "::1" }],
    ["2001:db8::7", "fd00:10:96::10", { where: "external", ip: "2001:db8::7" }],
  ])("from %s to %s: a source of the destination's family", (from, to, expected) => {
    expect(resolveSource(s, layout, { protocol: "tcp", from, to, port: 80 })).toEqual(expected);
  });

  it("a source without an address of the destination's family is an error", () => {
    const v4only = { ...s, pods: [{ name: "shop/a", ip: "10.244.1.9", interface: "veth1" }] };
    expect(() =>
      resolveSource(v4only, layoutOf(v4only), {
        protocol: "tcp",
        from: "shop/a",
        to: "fd00:10:96::10",
        port: 80,
      }),
    ).toThrow("probe from shop/a to fd00:10:96::10: the pod has no IPv6 address");
  });
});
