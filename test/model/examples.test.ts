import { describe, expect, test } from "@jest/globals";
import { loadCluster } from "../../src/model/load-files.js";
import { formatIssue, ValidationError } from "../../src/model/issue.js";
import { parseNodeEnvironment } from "../../src/model/load-node-environment.js";
import { parseProxyConfigWithWarnings } from "../../src/model/load-proxy-config.js";
import { readFileSync } from "node:fs";

function issues(path: string): string[] {
  try {
    return loadCluster(path).warnings.map(formatIssue);
  } catch (e) {
    if (e instanceof ValidationError) return e.issues.map(formatIssue);
    throw e;
  }
}

describe("examples validate without a single issue", () => {
  test.each([
    "examples/sctp-test-plan",
    "examples/multi-namespace-app",
    "examples/nodeport-loadbalancer",
  ])("%s", (dir) => {
    expect(issues(dir)).toEqual([]);
  });

  test("their node.yaml and proxy.yaml files parse", () => {
    for (const f of [
      "examples/sctp-test-plan/node.yaml",
      "examples/nodeport-loadbalancer/node.yaml",
    ])
      expect(parseNodeEnvironment(readFileSync(f, "utf8"), f).nodeName).toMatch(/^node-1$/);
    const p = parseProxyConfigWithWarnings(
      readFileSync("examples/nodeport-loadbalancer/proxy.yaml", "utf8"),
      "proxy.yaml",
    );
    expect(p.warnings).toEqual([]);
    expect(p.config.nodePortAddresses).toEqual(["primary"]);
  });

  test("the SCTP example is rejected with SCTPSupport off, once per SCTP protocol field", () => {
    let lines: string[] = [];
    try {
      loadCluster("examples/sctp-test-plan", { featureGates: { SCTPSupport: false } });
    } catch (e) {
      if (e instanceof ValidationError) lines = e.issues.map(formatIssue);
    }
    expect(lines.map((l) => l.replace(/^[^ ]+ /, ""))).toEqual([
      'Pod default/server: spec.containers[0].ports[0].protocol: Unsupported value: "SCTP": supported values: "TCP", "UDP"',
      'Pod default/hostport-server: spec.containers[0].ports[0].protocol: Unsupported value: "SCTP": supported values: "TCP", "UDP"',
      'Service default/sctp-svc: spec.ports[0].protocol: Unsupported value: "SCTP": supported values: "TCP", "UDP"',
      'EndpointSlice default/sctp-svc-abcde: ports[0].protocol: Unsupported value: "SCTP": supported values: "TCP", "UDP"',
      'NetworkPolicy default/allow-sctp-from-client: spec.ingress[0].ports[0].protocol: Unsupported value: "SCTP": supported values: "TCP", "UDP"',
    ]);
  });
});

describe("broken copies give the exact messages", () => {
  const F = "test/model/fixtures/broken";
  test("sctp-test-plan", () => {
    const f = `${F}/sctp-test-plan.yaml`;
    expect(issues(f)).toEqual([
      `${f}:15:11: Pod default/server: spec.containers[0].ports[0].containerPort: Invalid value: "five thousand": must be of type integer`,
      `${f}:15:11: Pod default/server: spec.containers[0].ports[0].containerPort: Required value`,
      `${f}:30:7: Service default/sctp-svc: spec.ports[0].protocol: Unsupported value: "SCTPX": supported values: "SCTP", "TCP", "UDP"`,
      `${f}:26:3: Service default/sctp-svc: spec.clusterIPs[0]: Invalid value: "fd00::50": expected an IPv4 value as indicated by \`ipFamilies[0]\``,
      `${f}:51:11: NetworkPolicy default/allow-sctp-from-client: spec.ingress[0].ports[0].endPort: Invalid value: 4000: must be greater than or equal to \`port\``,
      `${f}:56:3: Pod default/server: metadata.name: Duplicate value: Pod default/server is already defined at ${f}:2:1`,
    ]);
  });

  test("multi-namespace-app", () => {
    const f = `${F}/multi-namespace-app.yaml`;
    expect(issues(f)).toEqual([
      `${f}:14:11: NetworkPolicy backend/allow-web-to-api: spec.ingress[0].ports[0].port: Invalid value: "http_port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`,
      `${f}:10:11: NetworkPolicy backend/allow-web-to-api: spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer`,
      `${f}:20:3: AdminNetworkPolicy allow-monitoring-scrape: spec.priority: Invalid value: 1010: spec.priority in body should be less than or equal to 1000`,
      `${f}:25:7: AdminNetworkPolicy allow-monitoring-scrape: spec.ingress[0].action: Unsupported value: "Accept": supported values: "Allow", "Deny", "Pass"`,
      `${f}:32:13: BaselineAdminNetworkPolicy baseline: metadata.name: Invalid value: "baseline": Only one baseline admin network policy with metadata.name="default" can be created in the cluster`,
    ]);
  });

  test("nodeport-loadbalancer", () => {
    const f = `${F}/nodeport-loadbalancer.yaml`;
    expect(issues(f)).toEqual([
      `${f}:11:9: Service shop/web: spec.ports[1].name: Duplicate value: "http"`,
      // StrictIPCIDRValidation is off by default (alpha in 1.34): the API server's warning.
      `${f}:7:3: Service shop/web: spec.clusterIPs[0]: warning: spec.clusterIPs[0]: non-standard IP address "10.96.100.010" will be considered invalid in a future Kubernetes release: use "10.96.100.10"`,
      `${f}:11:49: Service shop/web: spec.ports[1].nodePort: Duplicate value: 30080`,
      `${f}:11:7: Service shop/web: spec.ports[1]: Duplicate value: {"protocol":"TCP","port":80}`,
      `${f}:20:3: Service shop/checkout: spec.LoadBalancerSourceRanges: Forbidden: may only be used when \`type\` is 'LoadBalancer'`,
      `${f}:19:3: Service shop/checkout: spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services`,
      `${f}:32:19: EndpointSlice shop/checkout-8c4wd: endpoints[0].addresses[0]: Invalid value: "fd00::6": must be a valid IPv4 address`,
    ]);
  });
});
