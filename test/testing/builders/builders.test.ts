/**
 * The builders go through the loader: API-server defaulting (Service type, port protocol,
 * targetPort, NetworkPolicy policyTypes, the namespace name label), validation with the
 * loader's positioned-by-path errors, and the same Cluster as loadCluster of the same objects
 * written as YAML (examples/sctp-policy, rebuilt in code).
 */
import { describe, expect, test } from "@jest/globals";
import { buildNodeDataplane } from "../../../src/node/node-dataplane.js";
import { loadCluster } from "../../../src/model/load-files.js";
import { DEFAULT_PROXY_CONFIG } from "../../../src/model/proxy-config.js";
import { policyMatrix } from "../../../src/policy/matrix.js";
import {
  cluster,
  clusterWith,
  endpoints,
  namespace,
  networkPolicy,
  nodeEnv,
  pod,
  proxyConfig,
  service,
} from "../../../src/testing/builders/index.js";

function thrown(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return "(nothing thrown)";
}

describe("cluster() and the object builders", () => {
  test("objects are defaulted as the API server does", () => {
    const c = cluster(
      namespace("team-a", { labels: { team: "a" } }),
      service("team-a/web", { selector: { app: "web" }, ports: [{ port: 80 }] }),
      networkPolicy("team-a/deny-all"),
      pod("team-a/web-1", { ip: "10.244.1.5", labels: { app: "web" }, node: "node-1" }),
    );
    const svc = c.services[0];
    expect(svc?.spec?.type).toBe("ClusterIP");
    expect(svc?.spec?.ports?.[0]).toMatchObject({ port: 80, protocol: "TCP", targetPort: 80 });
    expect(svc?.spec?.clusterIP).toMatch(/^10\.96\.\d+\.\d+$/);
    expect(service("team-a/web", { ports: [{ port: 80 }] }).spec?.clusterIP).toBe(
      svc?.spec?.clusterIP,
    );
    expect(c.networkPolicies[0]?.spec?.policyTypes).toEqual(["Ingress"]);
    expect(c.namespaces[0]?.metadata?.labels).toEqual({
      team: "a",
      "kubernetes.io/metadata.name": "team-a",
    });
    expect(c.pods[0]?.status?.podIPs).toEqual([{ ip: "10.244.1.5" }]);
  });

  test("an invalid object throws the loader's error, with the field path", () => {
    const message = thrown(() =>
      cluster(pod("default/bad", { ports: [{ containerPort: 70000 }] })),
    );
    expect(message).toMatch(
      /^<cluster\(\)>:\d+:\d+: Pod default\/bad: spec\.containers\[0\]\.ports\[0\]\.containerPort: Invalid value: 70000: must be between 1 and 65535/m,
    );
    expect(
      thrown(() => cluster(service("default/two", { ports: [{ port: 80 }, { port: 81 }] }))),
    ).toMatch(/Service default\/two: spec\.ports\[0\]\.name: Required value/);
    // warn mode: loaded, the problem kept as a warning
    const warned = clusterWith(
      { validation: "warn" },
      pod("default/bad", { ports: [{ containerPort: 70000 }] }),
    );
    expect(warned.pods).toHaveLength(1);
    expect(warned.warnings.some((w) => w.message.includes("65535"))).toBe(true);
  });

  test("the same verdicts as loadCluster of examples/sctp-policy", () => {
    const built = cluster(
      namespace("default"),
      pod("default/client", { ip: "10.244.1.10", labels: { app: "client" }, node: "node-1" }),
      pod("default/server", {
        ip: "10.244.1.20",
        labels: { app: "server" },
        node: "node-1",
        ports: [
          { name: "sctp", containerPort: 5000, protocol: "SCTP" },
          { name: "tcp", containerPort: 5000, protocol: "TCP" },
          { name: "udp", containerPort: 5000, protocol: "UDP" },
        ],
      }),
      networkPolicy("default/allow-sctp-5000", {
        podSelector: { matchLabels: { app: "server" } },
        policyTypes: ["Ingress"],
        ingress: [{ ports: [{ protocol: "SCTP", port: 5000 }] }],
      }),
    );
    const loaded = loadCluster("examples/sctp-policy/cluster.yaml");
    expect(built.networkPolicies).toEqual(loaded.networkPolicies);
    expect(built.namespaces).toEqual(loaded.namespaces);
    const rows = policyMatrix(built);
    expect(rows.length).toBe(12);
    expect(rows).toEqual(policyMatrix(loaded));
  });

  test("endpoints() makes the Service's EndpointSlice", () => {
    const c = cluster(
      service("default/dns", {
        clusterIP: "10.96.0.10",
        ports: [{ name: "dns", port: 53, protocol: "UDP" }],
      }),
      endpoints("default/dns", {
        ports: [{ name: "dns", port: 53, protocol: "UDP" }],
        endpoints: [
          { ip: "10.244.1.7", node: "node-1" },
          { ip: "10.244.2.7", ready: false },
        ],
      }),
    );
    const slice = c.endpointSlices[0];
    expect(slice?.metadata?.labels).toEqual({ "kubernetes.io/service-name": "dns" });
    expect(slice?.addressType).toBe("IPv4");
    expect(slice?.endpoints.map((e) => e.conditions)).toEqual([
      { ready: true, serving: true, terminating: false },
      { ready: false, serving: false, terminating: false },
    ]);
  });
});

describe("nodeEnv() and proxyConfig()", () => {
  test("every option is defaulted; buildNodeDataplane works with nothing given", () => {
    expect(proxyConfig()).toEqual(DEFAULT_PROXY_CONFIG);
    const n = nodeEnv();
    expect(n.nodeName).toBe("node-1");
    expect(n.ipFamilies).toEqual(["IPv4"]);
    expect(n.interfaces.map((i) => i.name)).toEqual(["lo"]);
    const dp = buildNodeDataplane(cluster(), { proxyConfig: proxyConfig(), node: nodeEnv() });
    expect(dp.ruleSets.IPv4).toBeDefined();
  });

  test("node IPs go on eth0; families follow them", () => {
    const n = nodeEnv({ name: "n2", ips: ["192.168.0.2", "fd00::2"] });
    expect(n.nodeIPs).toEqual(["192.168.0.2", "fd00::2"]);
    expect(n.ipFamilies).toEqual(["IPv4", "IPv6"]);
    // a bare address is a host address (interfaces.md)
    expect(n.interfaces.find((i) => i.name === "eth0")?.addresses).toEqual([
      "192.168.0.2/32",
      "fd00::2/128",
    ]);
  });

  test("options are validated like the files, by field path", () => {
    expect(proxyConfig({ mode: "ipvs", ipvs: { scheduler: "wrr" } }).mode).toBe("ipvs");
    expect(thrown(() => proxyConfig({ mode: "userspace" }))).toMatch(
      /<proxyConfig\(\)>:\d+:\d+: .*mode/,
    );
    expect(thrown(() => nodeEnv({ ips: ["10.0.0.300"] }))).toMatch(
      /<nodeEnv\(\)>:\d+:\d+: .*nodeIPs\[0\]: Invalid value/,
    );
  });
});
