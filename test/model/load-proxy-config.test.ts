import { describe, expect, test } from "@jest/globals";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import {
  parseProxyConfig,
  parseProxyConfigWithWarnings,
} from "../../src/model/load-proxy-config.js";
import { DEFAULT_PROXY_CONFIG } from "../../src/model/proxy-config.js";
import { ValidationError, formatIssue } from "../../src/model/issue.js";
import { ACCEPTANCE_DIR } from "../helpers/shared.js";

const HEAD = "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n";

function errors(text: string): string[] {
  try {
    parseProxyConfig(text, "proxy.yaml");
  } catch (e) {
    if (e instanceof ValidationError) return e.issues.map(formatIssue);
    throw e;
  }
  throw new Error("expected a ValidationError");
}

describe("parseProxyConfig", () => {
  test("an empty configuration is kube-proxy's defaults", () => {
    expect(parseProxyConfig(HEAD, "p")).toEqual(DEFAULT_PROXY_CONFIG);
  });

  test("every modelled field is read", () => {
    expect(
      parseProxyConfig(
        `${HEAD}mode: ipvs
hostnameOverride: node-a
clusterCIDR: 10.0.0.0/8,fd00::/48
detectLocalMode: InterfaceNamePrefix
detectLocal: {bridgeInterface: br0, interfaceNamePrefix: veth}
nodePortAddresses: [192.168.0.0/24]
iptables: {masqueradeAll: true, masqueradeBit: 15, localhostNodePorts: false, syncPeriod: 30s}
ipvs: {scheduler: wrr, strictARP: true, excludeCIDRs: [10.1.0.0/16]}
featureGates: {ServiceTrafficDistribution: true}
conntrack: {maxPerCore: 0}
`,
        "p",
      ),
    ).toEqual({
      mode: "ipvs",
      hostnameOverride: "node-a",
      clusterCIDR: "10.0.0.0/8,fd00::/48",
      detectLocalMode: "InterfaceNamePrefix",
      detectLocal: { bridgeInterface: "br0", interfaceNamePrefix: "veth" },
      nodePortAddresses: ["192.168.0.0/24"],
      iptables: { masqueradeAll: true, masqueradeBit: 15, localhostNodePorts: false },
      ipvs: { scheduler: "wrr", strictARP: true, excludeCIDRs: ["10.1.0.0/16"] },
      featureGates: { ServiceTrafficDistribution: true },
      nftables: { masqueradeAll: false, masqueradeBit: 14 },
    });
  });

  test("fields kube-proxy does not know are warnings", () => {
    const r = parseProxyConfigWithWarnings(
      `${HEAD}iptables: {masqueradeBits: 14}\nmodee: ipvs\n`,
      "proxy.yaml",
    );
    expect(r.warnings.map(formatIssue)).toEqual([
      'proxy.yaml:3:12: iptables.masqueradeBits: warning: unknown field "iptables.masqueradeBits"',
      'proxy.yaml:4:1: modee: warning: unknown field "modee"',
    ]);
    expect(r.config.iptables.masqueradeBit).toBe(14);
  });

  test("bad values are positioned errors", () => {
    expect(
      errors(`${HEAD}mode: userspace
clusterCIDR: 10.0.0.0/33
detectLocalMode: Node
nodePortAddresses: [primary, 10.0.0.0/8, nope]
iptables: {masqueradeBit: 32, masqueradeAll: "no"}
`),
    ).toEqual([
      'proxy.yaml:3:1: mode: Unsupported value: "userspace": supported values: "iptables", "ipvs", "nftables"',
      'proxy.yaml:5:1: detectLocalMode: Unsupported value: "Node": supported values: "ClusterCIDR", "NodeCIDR", "BridgeInterface", "InterfaceNamePrefix"',
      'proxy.yaml:4:1: clusterCIDR: Invalid value: "10.0.0.0/33": must be a valid CIDR block or a comma-separated list of CIDR blocks',
      'proxy.yaml:6:42: nodePortAddresses[2]: Invalid value: "nope": must be a valid CIDR',
      'proxy.yaml:6:1: nodePortAddresses: Invalid value: ["primary","10.0.0.0/8","nope"]: can\'t use "primary" with other CIDRs',
      "proxy.yaml:7:12: iptables.masqueradeBit: Invalid value: 32: must be within the range [0, 31]",
      'proxy.yaml:7:31: iptables.masqueradeAll: Invalid value: "no": must be a boolean',
    ]);
  });

  test("every acceptance proxy.yaml that is a KubeProxyConfiguration parses (# harness comments are comments)", () => {
    const files: string[] = [];
    const walk = (d: string): void => {
      for (const e of readdirSync(d, { withFileTypes: true }))
        if (e.isDirectory()) walk(join(d, e.name));
        else if (e.name === "proxy.yaml") files.push(join(d, e.name));
    };
    walk(ACCEPTANCE_DIR);
    const configs = files.filter((f) =>
      readFileSync(f, "utf8").includes("kind: KubeProxyConfiguration"),
    );
    expect(configs.length).toBeGreaterThan(5);
    for (const f of configs) {
      const r = parseProxyConfigWithWarnings(readFileSync(f, "utf8"), f);
      expect(r.warnings).toEqual([]);
      expect(r.config.hostnameOverride).toBe("test-node");
    }
  });
});

describe("featureGates in the KubeProxyConfiguration", () => {
  test("a gate locked at the modelled version is refused as kube-proxy refuses it", () => {
    expect(
      errors(`${HEAD}featureGates: {LoadBalancerIPMode: false, NFTablesProxyMode: true}\n`),
    ).toEqual([
      "proxy.yaml:3:16: featureGates.LoadBalancerIPMode: cannot set feature gate LoadBalancerIPMode to false, feature is locked to true",
    ]);
  });
});
