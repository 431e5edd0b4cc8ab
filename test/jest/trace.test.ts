/**
 * The trace matchers. Facts: examples/sctp-service (two ready endpoints behind 10.96.0.50:9999,
 * each drawn with probability 1/2, as kube-proxy's statistic rules make them); a Service with
 * no endpoints is REJECTed by kube-proxy's filter rules; masqueradeAll masquerades every
 * Service packet; a filter INPUT chain with policy DROP drops a packet to the node.
 */
import { describe, expect, test } from "@jest/globals";
import { readFileSync } from "node:fs";
import "../../src/jest/index.js";
import { buildNodeDataplane } from "../../src/node/node-dataplane.js";
import { loadCluster } from "../../src/model/load-files.js";
import { parseNodeEnvironment } from "../../src/model/load-node-environment.js";
import { parseProxyConfig } from "../../src/model/load-proxy-config.js";
import { buildDataplane } from "../../src/netfilter/trace/dataplane.js";
import { trace } from "../../src/netfilter/trace/tracer.js";
import { parseIptables } from "../../src/netfilter/parse/iptables.js";
import { cluster, nodeEnv, pod, proxyConfig, service } from "../../src/testing/builders/index.js";

const dir = "examples/sctp-service";
const node = parseNodeEnvironment(readFileSync(`${dir}/node.yaml`, "utf8"), "node.yaml");
const config = parseProxyConfig(readFileSync(`${dir}/proxy.yaml`, "utf8"), "proxy.yaml");
const sctp = trace(
  buildNodeDataplane(loadCluster(`${dir}/cluster.yaml`), { proxyConfig: config, node }),
  {
    proto: "sctp",
    src: "10.244.1.9",
    dst: "10.96.0.50",
    dport: 9999,
  },
);

describe("toReach / toReachOnly", () => {
  test("pass for the endpoints, fail for anything else", () => {
    expect(sctp).toReach("10.244.1.5:9999");
    expect(sctp).toReach("10.244.2.7:9999");
    expect(sctp).not.toReach("10.244.1.5:80");
    expect(sctp).toReachOnly(["10.244.2.7:9999", "10.244.1.5:9999"]);
    expect(sctp).not.toReachOnly(["10.244.1.5:9999"]);
    expect(sctp).not.toBeDropped();
    expect(sctp).not.toBeRejected();
  });

  test("a failure prints every outcome with its probability and rule path", () => {
    expect(() => expect(sctp).toReach("10.244.9.9:9999")).toThrow(
      /expected the packet to reach 10\.244\.9\.9:9999\n\npacket: sctp 10\.244\.1\.9:\d+ -> 10\.96\.0\.50:9999[\s\S]*DNAT, to 10\.244\.1\.5:9999, probability 50[^\n]*\n\s+path: nat\/PREROUTING#1 nat\/KUBE-SERVICES#\d+ [\s\S]*DNAT, to 10\.244\.2\.7:9999, probability 50/,
    );
  });
});

describe("toBeRejected / toBeMasqueraded / toBeDropped", () => {
  const n = nodeEnv({ name: "node-1", ips: ["192.168.0.2"] });
  const noEndpoints = cluster(
    service("default/empty", {
      clusterIP: "10.96.0.60",
      selector: { app: "none" },
      ports: [{ port: 80 }],
    }),
    pod("default/client", { ip: "10.244.1.9", node: "node-1" }),
  );
  const packet = { proto: "tcp", src: "10.244.1.9", dst: "10.96.0.60", dport: 80 } as const;

  test("a Service without endpoints rejects", () => {
    const r = trace(
      buildNodeDataplane(noEndpoints, { proxyConfig: proxyConfig(), node: n }),
      packet,
    );
    expect(r).toBeRejected();
    expect(r).not.toReach("10.96.0.60:80");
    expect(() => expect(r).toReachOnly(["10.96.0.60:80"])).toThrow(/REJECT/);
  });

  test("masqueradeAll masquerades Service traffic", () => {
    const c = cluster(service("default/web", { clusterIP: "10.96.0.61", ports: [{ port: 80 }] }), {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: {
        name: "web-1",
        namespace: "default",
        labels: { "kubernetes.io/service-name": "web" },
      },
      addressType: "IPv4",
      ports: [{ name: "", port: 80, protocol: "TCP" }],
      endpoints: [{ addresses: ["10.244.2.5"], conditions: { ready: true } }],
    });
    const masq = proxyConfig({ iptables: { masqueradeAll: true } });
    const r = trace(buildNodeDataplane(c, { proxyConfig: masq, node: n }), {
      ...packet,
      dst: "10.96.0.61",
    });
    expect(r).toReach("10.244.2.5:80");
    expect(r).toBeMasqueraded();
    const plain = trace(buildNodeDataplane(c, { proxyConfig: proxyConfig(), node: n }), {
      ...packet,
      dst: "10.96.0.61",
    });
    expect(plain).not.toBeMasqueraded();
    expect(() => expect(plain).toBeMasqueraded()).toThrow(
      /to be masqueraded in every outcome[\s\S]*path:/,
    );
  });

  test("a filter INPUT policy of DROP drops a packet to the node", () => {
    const rules = parseIptables("*filter\n:INPUT DROP [0:0]\nCOMMIT\n");
    const dp = buildDataplane({
      ruleSets: [rules],
      interfaces: [{ name: "eth0", addresses: ["192.168.0.2/24"] }],
    });
    const r = trace(dp, { proto: "udp", src: "192.168.0.9", dst: "192.168.0.2", dport: 53 });
    expect(r).toBeDropped();
    expect(() => expect(r).toReach("192.168.0.2:53")).toThrow(/DROP/);
  });

  test("a value that is not a TraceResult fails clearly", () => {
    expect(() => expect("10.0.0.1").toReach("10.0.0.1:80")).toThrow(/must be a TraceResult/);
  });
});
