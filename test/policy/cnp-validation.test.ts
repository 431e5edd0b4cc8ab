/**
 * ClusterNetworkPolicy validation as the API server applies the v0.2.0 CRD (spec
 * cluster-network-policy.md §2): OpenAPI bounds and enums, "exactly one of", list-type sets,
 * the CEL rules (isCIDR, port range, named ports in the experimental channel), no defaulting, and
 * every problem at once with its position.
 */
import { describe, expect, test } from "@jest/globals";
import { issueLines, load, messages } from "../model/helpers.js";

const cnp = (spec: string, name = "c") => `apiVersion: policy.networking.k8s.io/v1alpha2
kind: ClusterNetworkPolicy
metadata: {name: ${name}}
spec: ${spec}
`;
const C = "ClusterNetworkPolicy c: ";
const STANDARD = { featureGates: { ClusterNetworkPolicyExperimental: false } };
const base = "tier: Admin, priority: 10, subject: {namespaces: {}}";
const egress = (rule: string): string => cnp(`{${base}, egress: [${rule}]}`);

describe("ClusterNetworkPolicy validation", () => {
  test("a valid policy loads, cluster-scoped, with nothing defaulted", () => {
    const c = load(
      egress(
        "{action: Accept, to: [{namespaces: {}}], protocols: [{sctp: {destinationPort: {number: 3868}}}]}",
      ),
    );
    expect(c.clusterNetworkPolicies).toHaveLength(1);
    const p = c.clusterNetworkPolicies[0];
    expect(p?.metadata?.namespace).toBeUndefined();
    expect(p?.spec.egress?.[0]?.protocols).toEqual([
      { sctp: { destinationPort: { number: 3868 } } },
    ]);
    expect(p?.spec.ingress).toBeUndefined();
  });

  test.each<[string, string, string[]]>([
    [
      "tier is a capitalised enum; priority 0..1000",
      cnp("{tier: admin, priority: 1001, subject: {namespaces: {}}}"),
      [
        `${C}spec.tier: Unsupported value: "admin": supported values: "Admin", "Baseline"`,
        `${C}spec.priority: Invalid value: 1001: spec.priority in body should be less than or equal to 1000`,
      ],
    ],
    [
      "tier, priority and subject are required",
      cnp("{}"),
      [
        `${C}spec.tier: Required value`,
        `${C}spec.priority: Required value`,
        `${C}spec.subject: Required value`,
      ],
    ],
    [
      "subject: exactly one of namespaces, pods; pods needs podSelector",
      cnp(
        "{tier: Baseline, priority: 0, subject: {namespaces: {}, pods: {namespaceSelector: {}}}}",
      ),
      [
        `${C}spec.subject: Too many: 2: must have at most 1 items`,
        `${C}spec.subject.pods.podSelector: Required value`,
      ],
    ],
    [
      "tcp: {} is rejected (minProperties 1; no default port)",
      egress("{action: Deny, to: [{namespaces: {}}], protocols: [{tcp: {}}]}"),
      [
        `${C}spec.egress[0].protocols[0].tcp: Invalid value: 0: spec.egress[0].protocols[0].tcp in body should have at least 1 properties`,
      ],
    ],
    [
      "a one-port range is rejected (CEL start < end); port numbers 1..65535",
      egress(
        "{action: Deny, to: [{namespaces: {}}], protocols: [{udp: {destinationPort: {range: {start: 53, end: 53}}}}, {sctp: {destinationPort: {number: 0}}}]}",
      ),
      [
        `${C}spec.egress[0].protocols[0].udp.destinationPort.range: Invalid value: "object": Start port must be less than End port`,
        `${C}spec.egress[0].protocols[1].sctp.destinationPort.number: Invalid value: 0: spec.egress[0].protocols[1].sctp.destinationPort.number in body should be greater than or equal to 1`,
      ],
    ],
    [
      "a protocols entry holds exactly one field",
      egress(
        "{action: Deny, to: [{namespaces: {}}], protocols: [{tcp: {destinationPort: {number: 80}}, udp: {destinationPort: {number: 80}}}]}",
      ),
      [`${C}spec.egress[0].protocols[0]: Too many: 2: must have at most 1 items`],
    ],
    [
      "networks: isCIDR (host bits accepted; leading zeros and v4-mapped rejected), a set",
      egress(
        "{action: Deny, to: [{networks: [10.1.2.3/8, 010.0.0.0/8, '::ffff:10.0.0.0/104', 10.1.2.3/8, 10.0.0.0]}]}",
      ),
      [
        `${C}spec.egress[0].to[0].networks[3]: Duplicate value: "10.1.2.3/8"`,
        `${C}spec.egress[0].to[0].networks[1]: Invalid value: "010.0.0.0/8": Invalid CIDR format provided`,
        `${C}spec.egress[0].to[0].networks[2]: Invalid value: "::ffff:10.0.0.0/104": Invalid CIDR format provided`,
        `${C}spec.egress[0].to[0].networks[4]: Invalid value: "10.0.0.0": Invalid CIDR format provided`,
      ],
    ],
    [
      "actions are Accept, Deny, Pass (v1alpha1's Allow is gone)",
      egress("{action: Allow, to: [{namespaces: {}}]}"),
      [
        `${C}spec.egress[0].action: Unsupported value: "Allow": supported values: "Accept", "Deny", "Pass"`,
      ],
    ],
    [
      "experimental channel: named ports cannot go with networks/nodes/domainNames peers",
      egress(
        "{action: Accept, to: [{networks: [10.0.0.0/8]}], protocols: [{destinationNamedPort: web}]}",
      ),
      [
        `${C}spec.egress[0]: Invalid value: "object": networks/nodes/domainNames peer cannot be set with namedPorts since there are no namedPorts for networks/nodes/domainNames`,
      ],
    ],
    [
      "domainNames: the DomainName pattern, at least two labels",
      egress("{action: Accept, to: [{domainNames: [localhost, '*.example.com', 'a.*.com']}]}"),
      [
        `${C}spec.egress[0].to[0].domainNames[0]: Invalid value: "localhost": spec.egress[0].to[0].domainNames[0] in body should match '^(\\*\\.)?([a-zA-z0-9]([-a-zA-Z0-9_]*[a-zA-Z0-9])?\\.)+[a-zA-z0-9]([-a-zA-Z0-9_]*[a-zA-Z0-9])?\\.?$'`,
        `${C}spec.egress[0].to[0].domainNames[2]: Invalid value: "a.*.com": spec.egress[0].to[0].domainNames[2] in body should match '^(\\*\\.)?([a-zA-z0-9]([-a-zA-Z0-9_]*[a-zA-Z0-9])?\\.)+[a-zA-z0-9]([-a-zA-Z0-9_]*[a-zA-Z0-9])?\\.?$'`,
      ],
    ],
  ])("%s", (_what, text, expected) => {
    expect(messages(text)).toEqual(expected);
  });

  test("caps of 25: rules, peers, protocols", () => {
    const many = (n: number, s: string): string => Array.from({ length: n }, () => s).join(", ");
    const rule = `{action: Deny, to: [${many(26, "{namespaces: {}}")}], protocols: [${many(26, "{tcp: {destinationPort: {number: 1}}}")}]}`;
    const text = cnp(`{${base}, egress: [${many(26, rule)}]}`);
    const m = messages(text);
    expect(m).toContain(`${C}spec.egress: Too many: 26: must have at most 25 items`);
    expect(m).toContain(`${C}spec.egress[0].to: Too many: 26: must have at most 25 items`);
    expect(m).toContain(`${C}spec.egress[25].protocols: Too many: 26: must have at most 25 items`);
  });

  test("standard channel: nodes and domainNames are errors that name the channel", () => {
    const text = egress("{action: Accept, to: [{nodes: {}}, {domainNames: [example.com]}]}");
    expect(messages(text)).toEqual([]);
    const m = messages(text, STANDARD);
    expect(m).toHaveLength(2);
    expect(m[0]).toMatch(
      /^ClusterNetworkPolicy c: spec\.egress\[0\]\.to\[0\]\.nodes: Forbidden: .*experimental channel/,
    );
    expect(m[1]).toMatch(
      /spec\.egress\[0\]\.to\[1\]\.domainNames: Forbidden: .*standard channel is selected/,
    );
    // the standard CRD has no named-port CEL rule
    expect(
      messages(
        egress(
          "{action: Accept, to: [{networks: [10.0.0.0/8]}], protocols: [{destinationNamedPort: web}]}",
        ),
        STANDARD,
      ),
    ).toEqual([]);
  });

  test("ingress peers have no networks/nodes (unknown field, then no peer field at all)", () => {
    const m = messages(
      cnp(`{${base}, ingress: [{action: Deny, from: [{networks: [10.0.0.0/8]}]}]}`),
    );
    expect(
      m.some((l) => l.includes("spec.ingress[0].from[0]") && l.includes("at least 1 properties")),
    ).toBe(true);
  });

  test("every error at once, each with FILE:LINE:COL (of the field's key, as for every kind)", () => {
    const text = `apiVersion: policy.networking.k8s.io/v1alpha2
kind: ClusterNetworkPolicy
metadata: {name: c}
spec:
  tier: admin
  priority: -1
  subject: {namespaces: {}}
  egress:
  - action: Accept
    to: [{networks: [10.0.0.0/33]}]
    protocols:
    - tcp: {}
`;
    expect(issueLines(text)).toEqual([
      `t.yaml:5:3: ${C}spec.tier: Unsupported value: "admin": supported values: "Admin", "Baseline"`,
      `t.yaml:6:3: ${C}spec.priority: Invalid value: -1: spec.priority in body should be greater than or equal to 0`,
      `t.yaml:10:22: ${C}spec.egress[0].to[0].networks[0]: Invalid value: "10.0.0.0/33": Invalid CIDR format provided`,
      `t.yaml:12:7: ${C}spec.egress[0].protocols[0].tcp: Invalid value: 0: spec.egress[0].protocols[0].tcp in body should have at least 1 properties`,
    ]);
  });
});
