/**
 * ClusterNetworkPolicy evaluation beyond the spec's worked examples: unresolved domainNames
 * ("unknown", --dns-map), ties between and inside the APIs, BANP beside Baseline CNPs,
 * host-network pods, the own-IP exemption, fail-closed entries, host bits, named ports.
 */
import { describe, expect, test } from "@jest/globals";
import { parseCluster } from "../../src/model/load.js";
import type { Cluster } from "../../src/model/cluster.js";
import { evaluatePolicy } from "../../src/policy/evaluate.js";
import { computePolicyMatrix, matrixVerdict, naivePolicyMatrix } from "../../src/policy/matrix.js";
import { formatMatrixGrid } from "../../src/policy/matrix-format.js";
import { formatExplanation } from "../../src/policy/explanation-text.js";
import { lintPolicies } from "../../src/policy/lint.js";
import { parseDnsMap, domainNameMatches } from "../../src/policy/dns-map.js";
import { convertToV1alpha2 } from "../../src/policy/convert.js";

const WORKLOADS = `
apiVersion: v1
kind: Namespace
metadata: {name: a, labels: {team: a}}
---
apiVersion: v1
kind: Namespace
metadata: {name: b, labels: {team: b}}
---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {role: worker}}
status: {addresses: [{type: InternalIP, address: 192.168.0.1}, {type: ExternalIP, address: 198.51.100.1}]}
---
apiVersion: v1
kind: Pod
metadata: {name: x, namespace: a, labels: {app: x}}
spec: {nodeName: n1, containers: [{name: c, image: i, ports: [{name: web, containerPort: 80}, {name: dns, containerPort: 53, protocol: UDP}]}]}
status: {podIP: 10.0.0.1, podIPs: [{ip: 10.0.0.1}]}
---
apiVersion: v1
kind: Pod
metadata: {name: y, namespace: b, labels: {app: y}}
spec: {nodeName: n1, containers: [{name: c, image: i, ports: [{name: web, containerPort: 8080}]}]}
status: {podIP: 10.0.0.2, podIPs: [{ip: 10.0.0.2}]}
---
apiVersion: v1
kind: Pod
metadata: {name: h, namespace: b, labels: {app: h}}
spec: {nodeName: n1, hostNetwork: true, containers: [{name: c, image: i, ports: [{name: web, containerPort: 80}]}]}
status: {podIP: 192.168.0.1, podIPs: [{ip: 192.168.0.1}]}
`;

function cnp(name: string, tier: string, priority: number, body: string): string {
  return `---
apiVersion: policy.networking.k8s.io/v1alpha2
kind: ClusterNetworkPolicy
metadata: {name: ${name}}
spec: {tier: ${tier}, priority: ${priority}, ${body}}
`;
}

function world(policies: string, validation: "strict" | "warn" = "strict"): Cluster {
  return parseCluster([{ file: "t.yaml", text: WORKLOADS + policies }], { validation });
}

const v = (
  c: Cluster,
  from: string,
  to: string,
  port: number,
  protocol = "TCP",
  opts = {},
): string => evaluatePolicy(c, { from, to, port, protocol }, opts).verdict;

const GUARD = cnp(
  "guard",
  "Admin",
  10,
  `subject: {namespaces: {}}, egress: [
    {name: pods, action: Pass, to: [{networks: [10.0.0.0/16]}]},
    {name: saas, action: Accept, to: [{domainNames: ["*.example.com", api.example.org]}]},
    {name: rest, action: Deny, to: [{networks: [0.0.0.0/0]}]}]`,
);

describe("domainNames: unknown without a DNS map", () => {
  test("a verdict that hinges on an unresolved name is unknown, with the reason", () => {
    const c = world(GUARD);
    const r = evaluatePolicy(c, { from: "a/x", to: "203.0.113.9", port: 443 });
    expect(r.verdict).toBe("unknown");
    expect(r.allowed).toBe(false);
    expect(r.explanation.egress.decision).toMatchObject({
      kind: "undecidable",
      rules: [
        { policy: "guard", rule: 1, ruleName: "saas", names: ["*.example.com", "api.example.org"] },
      ],
    });
    const text = formatExplanation(r.explanation);
    expect(text.split("\n")[0]).toBe("a/x -> 203.0.113.9 TCP/443: unknown");
    expect(text).toContain("--dns-map");
  });

  test("a verdict that does not depend on the name stays decided (Pass before it)", () => {
    const c = world(GUARD);
    expect(v(c, "a/x", "b/y", 8080)).toBe("allowed");
    const m = computePolicyMatrix(c, { ports: [8080], protocols: ["TCP"] });
    expect(matrixVerdict(m, "a/x", "b/y", 8080, "TCP")).toBe(true);
    // the host-network pod is its node's address, outside 10.0.0.0/16: the name could be it
    expect(matrixVerdict(m, "a/x", "b/h", 8080, "TCP")).toBe("unknown");
  });

  test("with a DNS map the name decides; names missing from it stay unknown", () => {
    const c = world(GUARD);
    const { map, problems } = parseDnsMap({
      "www.example.com": ["203.0.113.9"],
      "api.example.org.": "203.0.113.10",
    });
    expect(problems).toEqual([]);
    expect(v(c, "a/x", "203.0.113.9", 443, "TCP", { dnsMap: map })).toBe("allowed");
    expect(v(c, "a/x", "203.0.113.10", 443, "TCP", { dnsMap: map })).toBe("allowed");
    expect(v(c, "a/x", "203.0.113.11", 443, "TCP", { dnsMap: map })).toBe("denied");
    const partial = parseDnsMap({ "www.example.com": "203.0.113.9" }).map;
    expect(v(c, "a/x", "203.0.113.11", 443, "TCP", { dnsMap: partial })).toBe("unknown");
  });

  test("the wildcard matches one or more labels in front, not the name itself", () => {
    expect(domainNameMatches("*.example.com", "a.example.com")).toBe(true);
    expect(domainNameMatches("*.example.com", "a.b.example.com")).toBe(true);
    expect(domainNameMatches("*.example.com", "example.com")).toBe(false);
    expect(domainNameMatches("kubernetes.io", "www.kubernetes.io")).toBe(false);
    expect(domainNameMatches("Kubernetes.IO.", "kubernetes.io")).toBe(true);
  });

  test("bad DNS map entries are reported, not guessed", () => {
    expect(parseDnsMap({ "a.example.com": ["10.0.0.1", "nope"] }).problems).toEqual([
      'a.example.com[1]: not an IP address: "nope"',
    ]);
    expect(parseDnsMap(["x"]).problems).toHaveLength(1);
  });

  test("matrix: a third value where pod traffic hinges on a name", () => {
    const c = world(
      cnp(
        "only-saas",
        "Admin",
        1,
        `subject: {namespaces: {matchLabels: {team: a}}}, egress: [
          {action: Accept, to: [{domainNames: [db.example.com]}]},
          {action: Deny, to: [{networks: [0.0.0.0/0]}]}]`,
      ),
    );
    const m = computePolicyMatrix(c, { ports: [8080], protocols: ["TCP"] });
    expect(matrixVerdict(m, "a/x", "b/y", 8080, "TCP")).toBe("unknown");
    expect(matrixVerdict(m, "b/y", "a/x", 8080, "TCP")).toBe(true);
    expect(matrixVerdict(m, "a/x", "a/x", 8080, "TCP")).toBe(true); // own IP: exempt
    const grid = formatMatrixGrid(m);
    expect(grid).toContain("a/x\t.\t?\t");
  });
});

describe("tiers and ties", () => {
  const anp = (name: string, priority: number, action: string): string => `---
apiVersion: policy.networking.k8s.io/v1alpha1
kind: AdminNetworkPolicy
metadata: {name: ${name}}
spec: {priority: ${priority}, subject: {namespaces: {}}, ingress: [{action: ${action}, from: [{namespaces: {}}]}]}
`;
  test("ANP and Admin CNP share the Admin tier by priority; at a tie the CNP goes first", () => {
    const lower = world(
      anp("a-anp", 5, "Deny") +
        cnp(
          "z-cnp",
          "Admin",
          6,
          `subject: {namespaces: {}}, ingress: [{action: Accept, from: [{namespaces: {}}]}]`,
        ),
    );
    expect(v(lower, "a/x", "b/y", 8080)).toBe("denied");
    const tie = world(
      anp("a-anp", 5, "Deny") +
        cnp(
          "z-cnp",
          "Admin",
          5,
          `subject: {namespaces: {}}, ingress: [{action: Accept, from: [{namespaces: {}}]}]`,
        ),
    );
    const r = evaluatePolicy(tie, { from: "a/x", to: "b/y", port: 8080 });
    expect(r.verdict).toBe("allowed");
    expect(r.explanation.choices.map((ch) => ch.kind)).toContain("api-tie");
    expect(lintPolicies(tie).map((w) => w.code)).toEqual(expect.arrayContaining(["api-tie"]));
  });

  test("equal CNP priorities: by name, flagged in explanation and lint", () => {
    const c = world(
      cnp(
        "b-deny",
        "Baseline",
        3,
        `subject: {namespaces: {}}, ingress: [{action: Deny, from: [{namespaces: {}}]}]`,
      ) +
        cnp(
          "a-accept",
          "Baseline",
          3,
          `subject: {namespaces: {}}, ingress: [{action: Accept, from: [{namespaces: {}}]}]`,
        ),
    );
    const r = evaluatePolicy(c, { from: "a/x", to: "b/y", port: 8080 });
    expect(r.verdict).toBe("allowed");
    expect(r.explanation.choices.some((ch) => ch.message.includes("a-accept, b-deny"))).toBe(true);
    expect(lintPolicies(c).filter((w) => w.code === "equal-cnp-priority")).toHaveLength(2);
  });

  test("the BANP comes after every Baseline CNP; lint says so", () => {
    const c = world(
      `---
apiVersion: policy.networking.k8s.io/v1alpha1
kind: BaselineAdminNetworkPolicy
metadata: {name: default}
spec: {subject: {namespaces: {}}, ingress: [{action: Deny, from: [{namespaces: {}}]}]}
` +
        cnp(
          "late",
          "Baseline",
          1000,
          `subject: {namespaces: {}}, ingress: [{action: Accept, from: [{namespaces: {}}]}]`,
        ),
    );
    expect(v(c, "a/x", "b/y", 8080)).toBe("allowed");
    expect(lintPolicies(c).map((w) => w.code)).toContain("banp-after-baseline-cnps");
  });

  test("Admin priority 1000 still beats Baseline priority 0", () => {
    const c = world(
      cnp(
        "admin",
        "Admin",
        1000,
        `subject: {namespaces: {}}, ingress: [{action: Deny, from: [{namespaces: {}}]}]`,
      ) +
        cnp(
          "base",
          "Baseline",
          0,
          `subject: {namespaces: {}}, ingress: [{action: Accept, from: [{namespaces: {}}]}]`,
        ),
    );
    expect(v(c, "a/x", "b/y", 8080)).toBe("denied");
  });
});

describe("peers, ports and special traffic", () => {
  test("host-network pods are neither subjects nor pod peers; nodes and networks match their IP", () => {
    const c = world(
      cnp(
        "deny-all",
        "Admin",
        1,
        `subject: {namespaces: {}}, ingress: [{action: Deny, from: [{namespaces: {}}]}], egress: [
        {action: Accept, to: [{nodes: {matchLabels: {role: worker}}}], protocols: [{tcp: {destinationPort: {number: 10250}}}]},
        {action: Deny, to: [{namespaces: {}}]}]`,
      ),
    );
    expect(v(c, "b/h", "a/x", 80)).toBe("allowed"); // node traffic: no pod peer matches it
    expect(v(c, "a/x", "b/h", 10250)).toBe("allowed"); // nodes peer: the node's IP
    expect(v(c, "a/x", "198.51.100.1", 10250)).toBe("allowed"); // every address of the node
    expect(v(c, "a/x", "b/h", 22)).toBe("allowed"); // `namespaces` never matches a host-network pod
    expect(v(c, "a/x", "b/y", 8080)).toBe("denied");
  });

  test("a pod reaching its own IP is exempt", () => {
    const c = world(
      cnp(
        "deny",
        "Admin",
        1,
        `subject: {namespaces: {}}, egress: [{action: Deny, to: [{networks: [0.0.0.0/0]}]}]`,
      ),
    );
    expect(v(c, "a/x", "10.0.0.1", 80)).toBe("allowed");
    expect(v(c, "a/x", "b/y", 80)).toBe("denied");
    // also when self traffic is evaluated (NetworkPolicy and v1alpha1 ANP still see it)
    expect(v(c, "a/x", "a/x", 80, "TCP", { selfTraffic: "evaluate" })).toBe("allowed");
    const m = computePolicyMatrix(c, { ports: [80], protocols: ["TCP"], selfTraffic: "evaluate" });
    expect(matrixVerdict(m, "a/x", "a/x", 80, "TCP")).toBe(true);
    expect(matrixVerdict(m, "a/x", "b/y", 80, "TCP")).toBe(false);
    const anp = world(`---
apiVersion: policy.networking.k8s.io/v1alpha1
kind: AdminNetworkPolicy
metadata: {name: deny}
spec: {priority: 1, subject: {namespaces: {}}, egress: [{action: Deny, to: [{networks: [0.0.0.0/0]}]}]}
`);
    expect(v(anp, "a/x", "a/x", 80, "TCP", { selfTraffic: "evaluate" })).toBe("denied");
  });

  test("networks: host bits are masked", () => {
    const c = world(
      cnp(
        "deny",
        "Admin",
        1,
        `subject: {namespaces: {}}, egress: [{action: Deny, to: [{networks: [203.0.113.77/24]}]}]`,
      ),
    );
    expect(v(c, "a/x", "203.0.113.1", 80)).toBe("denied");
    expect(v(c, "a/x", "203.0.114.1", 80)).toBe("allowed");
  });

  test("named ports resolve on the destination pod, with their protocol", () => {
    const c = world(
      cnp(
        "np",
        "Admin",
        1,
        `subject: {namespaces: {}}, egress: [
        {action: Accept, to: [{namespaces: {}}], protocols: [{destinationNamedPort: web}]},
        {action: Deny, to: [{namespaces: {}}]}]`,
      ),
    );
    expect(v(c, "a/x", "b/y", 8080)).toBe("allowed"); // y's web = 8080
    expect(v(c, "a/x", "b/y", 80)).toBe("denied"); // x's web = 80, but x is the source
    expect(v(c, "b/y", "a/x", 80)).toBe("allowed");
    expect(v(c, "b/y", "a/x", 80, "UDP")).toBe("denied"); // web is TCP
  });

  test("fail closed: a peer or protocol entry with no known field (loaded with --validation warn)", () => {
    const body = (action: string): string =>
      `subject: {namespaces: {}}, egress: [{action: ${action}, to: [{namespaces: {}}], protocols: [{quic: {destinationPort: {number: 443}}}]}]`;
    expect(
      v(
        world(
          cnp("p", "Admin", 1, body("Accept")) +
            cnp(
              "q",
              "Admin",
              2,
              `subject: {namespaces: {}}, egress: [{action: Deny, to: [{namespaces: {}}]}]`,
            ),
          "warn",
        ),
        "a/x",
        "b/y",
        8080,
      ),
    ).toBe("denied");
    expect(v(world(cnp("p", "Admin", 1, body("Deny")), "warn"), "a/x", "b/y", 8080)).toBe("denied");
    expect(v(world(cnp("p", "Admin", 1, body("Pass")), "warn"), "a/x", "b/y", 8080)).toBe(
      "allowed",
    );
    const peer = world(
      cnp("p", "Admin", 1, `subject: {namespaces: {}}, egress: [{action: Deny, to: [{fqdn: x}]}]`),
      "warn",
    );
    expect(v(peer, "a/x", "b/y", 8080)).toBe("denied");
  });

  test("the fast matrix and the naive three-valued path agree", () => {
    const c = world(
      GUARD.replace(
        "saas, action: Accept, to: [{domainNames",
        "saas, action: Accept, to: [{networks: [203.0.113.0/24]}, {namespaces",
      ).replace('["*.example.com", api.example.org]', "{matchLabels: {team: b}}"),
    );
    expect(c.clusterNetworkPolicies).toHaveLength(1);
    const m = computePolicyMatrix(c, { ports: [80, 8080, 53], protocols: ["TCP", "UDP", "SCTP"] });
    const n = naivePolicyMatrix(c, { ports: [80, 8080, 53], protocols: ["TCP", "UDP", "SCTP"] });
    expect(Buffer.from(m.verdicts).equals(Buffer.from(n.verdicts))).toBe(true);
  });
});

describe("convertToV1alpha2", () => {
  test("names stay unique beside existing CNPs; one-port ranges become numbers; Allow is Accept", () => {
    const c = world(
      `---
apiVersion: policy.networking.k8s.io/v1alpha1
kind: AdminNetworkPolicy
metadata: {name: keep}
spec:
  priority: 3
  subject: {namespaces: {}}
  egress:
  - action: Allow
    to: [{namespaces: {}}]
    ports: [{portRange: {protocol: SCTP, start: 9000, end: 9000}}, {portNumber: {port: 80}}, {namedPort: web}]
---
apiVersion: policy.networking.k8s.io/v1alpha1
kind: BaselineAdminNetworkPolicy
metadata: {name: default}
spec: {subject: {namespaces: {}}, ingress: [{action: Deny, from: [{namespaces: {}}]}]}
` + cnp("keep", "Admin", 1, "subject: {namespaces: {}}"),
      "warn", // this loader's ANP check also rejects the one-port range
    );
    const { policies, problems } = convertToV1alpha2(c, { baselinePriority: 999 });
    expect(problems).toEqual([]);
    expect(policies.map((p) => [p.metadata?.name, p.spec.tier, p.spec.priority])).toEqual([
      ["admin-keep", "Admin", 3],
      ["default", "Baseline", 999],
    ]);
    expect(policies[0]?.spec.egress?.[0]).toEqual({
      action: "Accept",
      to: [{ namespaces: {} }],
      protocols: [
        { sctp: { destinationPort: { number: 9000 } } },
        { tcp: { destinationPort: { number: 80 } } },
        { destinationNamedPort: "web" },
      ],
    });
  });

  test("more than 25 peers split into consecutive rules; more than 25 rules is a problem", () => {
    const peers = Array.from({ length: 30 }, (_, i) => ({ networks: [`10.9.${i}.0/24`] }));
    const rule = { action: "Deny" as const, to: peers };
    const { policies } = convertToV1alpha2({
      adminNetworkPolicies: [
        {
          metadata: { name: "big" },
          spec: { priority: 1, subject: { namespaces: {} }, egress: [rule] },
        },
      ],
      baselineAdminNetworkPolicies: [],
    });
    expect(policies[0]?.spec.egress?.map((r) => r.to.length)).toEqual([25, 5]);
    const many = convertToV1alpha2({
      adminNetworkPolicies: [
        {
          metadata: { name: "many" },
          spec: {
            priority: 1,
            subject: { namespaces: {} },
            egress: Array.from({ length: 26 }, () => rule),
          },
        },
      ],
      baselineAdminNetworkPolicies: [],
    });
    expect(many.problems).toHaveLength(1);
    expect(many.problems[0]).toContain("more than the v1alpha2 limit of 25");
  });
});
