/** Unit tests for the NetworkPolicy edge cases of shared/spec/netpol.md §1 and ANP/BANP §4. */
import { describe, expect, test } from "@jest/globals";
import { evaluatePolicy } from "../../src/policy/evaluate.js";
import { PolicyInputError } from "../../src/policy/endpoint.js";
import { computePolicyMatrix, naivePolicyMatrix } from "../../src/policy/matrix.js";
import { allowed, anp, banp, node, np, ns, pod, world } from "./fixtures.js";

const a = pod("x/a", { ips: ["10.0.1.1"], labels: { pod: "a" } });
const b = pod("x/b", { ips: ["10.0.1.2"], labels: { pod: "b", env: "prod" } });
const c = pod("y/c", { ips: ["10.0.2.3"], labels: { pod: "c" } });
const base = [ns("x"), ns("y")];

describe("label selectors (§1.6)", () => {
  test("NotIn matches pods that lack the key", () => {
    const w = world({
      namespaces: base,
      pods: [a, b, c],
      policies: [
        np("x/deny", {
          podSelector: { matchExpressions: [{ key: "env", operator: "NotIn", values: ["prod"] }] },
        }),
      ],
    });
    expect(allowed(w, "y/c", "x/a")).toBe(false); // x/a has no env label: selected, isolated
    expect(allowed(w, "y/c", "x/b")).toBe(true); // env=prod: not selected
  });

  test("matchLabels with an empty value needs the key present", () => {
    const e = pod("x/e", { ips: ["10.0.1.5"], labels: { app: "" } });
    const w = world({
      namespaces: base,
      pods: [a, e, c],
      policies: [np("x/deny", { podSelector: { matchLabels: { app: "" } } })],
    });
    expect(allowed(w, "y/c", "x/e")).toBe(false);
    expect(allowed(w, "y/c", "x/a")).toBe(true);
  });

  test("the namespace name label is synthesized", () => {
    const w = world({
      namespaces: [ns("x"), ns("y")], // no labels at all
      pods: [a, c],
      policies: [
        np("x/from-y", {
          ingress: [
            {
              from: [
                { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "y" } } },
              ],
            },
          ],
        }),
      ],
    });
    expect(allowed(w, "y/c", "x/a")).toBe(true);
    // undeclared namespaces exist implicitly with the label too
    const w2 = world({
      pods: [a, c],
      policies: [
        np("x/from-y", {
          ingress: [
            {
              from: [
                { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "y" } } },
              ],
            },
          ],
        }),
      ],
    });
    expect(allowed(w2, "y/c", "x/a")).toBe(true);
  });
});

describe("policyTypes defaulting and isolation (§1.2-1.3)", () => {
  test("egress: [] without policyTypes does not isolate egress", () => {
    const w = world({ namespaces: base, pods: [a, c], policies: [np("x/p", { egress: [] })] });
    expect(allowed(w, "x/a", "y/c")).toBe(true);
    expect(allowed(w, "y/c", "x/a")).toBe(false); // defaulted to [Ingress]
  });

  test("policyTypes [Egress] with egress: [] denies all egress, and ingress rules are ignored", () => {
    const w = world({
      namespaces: base,
      pods: [a, c],
      policies: [np("x/p", { policyTypes: ["Egress"], ingress: [{}], egress: [] })],
    });
    expect(allowed(w, "x/a", "y/c")).toBe(false);
    expect(allowed(w, "y/c", "x/a")).toBe(true);
  });

  test("both the source's egress and the destination's ingress must allow", () => {
    const w = world({
      namespaces: base,
      pods: [a, c],
      policies: [
        np("x/egress-none", { policyTypes: ["Egress"] }),
        np("y/ingress-all", { ingress: [{}] }),
      ],
    });
    const v = evaluatePolicy(w, { from: "x/a", to: "y/c", port: 80 });
    expect(v.allowed).toBe(false);
    expect(v.explanation.egress.decision).toEqual({
      kind: "networkpolicy-deny",
      policies: ["x/egress-none"],
    });
    expect(v.explanation.ingress.allowed).toBe(true);
  });

  test("ingress: [{}] allows everything; from: [] is everything, not nothing", () => {
    for (const rule of [{}, { from: [] }, { from: [], ports: [] }]) {
      const w = world({
        namespaces: base,
        pods: [a, c],
        policies: [np("x/p", { ingress: [rule] })],
      });
      expect(allowed(w, "y/c", "x/a", 1234, "SCTP")).toBe(true);
    }
  });

  test("a policy only selects pods in its own namespace", () => {
    const w = world({
      namespaces: base,
      pods: [a, c],
      policies: [np("y/deny", { podSelector: { matchLabels: { pod: "a" } } })],
    });
    expect(allowed(w, "y/c", "x/a")).toBe(true);
  });
});

describe("peers (§1.5)", () => {
  const b2 = pod("y/b", { ips: ["10.0.2.2"], labels: { pod: "b" } });
  test("namespaceSelector + podSelector in one entry is AND, two entries are OR", () => {
    const and = world({
      namespaces: base,
      pods: [a, b, c, b2],
      policies: [
        np("x/p", {
          podSelector: { matchLabels: { pod: "a" } },
          ingress: [
            {
              from: [
                {
                  namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "y" } },
                  podSelector: { matchLabels: { pod: "b" } },
                },
              ],
            },
          ],
        }),
      ],
    });
    expect(allowed(and, "y/b", "x/a")).toBe(true);
    expect(allowed(and, "y/c", "x/a")).toBe(false);
    expect(allowed(and, "x/b", "x/a")).toBe(false);
    const or = world({
      namespaces: base,
      pods: [a, b, c, b2],
      policies: [
        np("x/p", {
          podSelector: { matchLabels: { pod: "a" } },
          ingress: [
            {
              from: [
                { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "y" } } },
                { podSelector: { matchLabels: { pod: "b" } } },
              ],
            },
          ],
        }),
      ],
    });
    expect(allowed(or, "y/c", "x/a")).toBe(true);
    expect(allowed(or, "x/b", "x/a")).toBe(true); // podSelector alone: the policy's namespace
  });

  test("namespaceSelector {} means all namespaces; a lone podSelector means the policy namespace", () => {
    const all = world({
      namespaces: base,
      pods: [a, c],
      policies: [np("x/p", { ingress: [{ from: [{ namespaceSelector: {} }] }] })],
    });
    expect(allowed(all, "y/c", "x/a")).toBe(true);
    expect(allowed(all, "10.9.9.9", "x/a")).toBe(false); // selectors never match outside IPs
    const own = world({
      namespaces: base,
      pods: [a, b, c],
      policies: [
        np("x/p", {
          podSelector: { matchLabels: { pod: "a" } },
          ingress: [{ from: [{ podSelector: {} }] }],
        }),
      ],
    });
    expect(allowed(own, "x/b", "x/a")).toBe(true);
    expect(allowed(own, "y/c", "x/a")).toBe(false);
  });

  test("ipBlock matches pod IPs (e2e) and except removes addresses", () => {
    const w = world({
      namespaces: base,
      pods: [a, b, c],
      policies: [
        np("x/p", {
          policyTypes: ["Egress"],
          egress: [{ to: [{ ipBlock: { cidr: "10.0.0.0/16", except: ["10.0.1.2/32"] } }] }],
        }),
      ],
    });
    expect(allowed(w, "x/a", "y/c")).toBe(true);
    expect(allowed(w, "x/a", "x/b")).toBe(false);
    expect(allowed(w, "x/a", "10.0.9.9")).toBe(true);
    expect(allowed(w, "x/a", "8.8.8.8")).toBe(false);
    const v = evaluatePolicy(w, { from: "x/a", to: "y/c", port: 80 });
    expect(v.explanation.choices.map((x) => x.kind)).toContain("ip-block-pod-ip");
    // np-guard's reading as an option
    expect(allowed(w, "x/a", "y/c", 80, "TCP", { ipBlockMatchesPods: false })).toBe(false);
    expect(allowed(w, "x/a", "10.0.9.9", 80, "TCP", { ipBlockMatchesPods: false })).toBe(true);
  });

  test("IPv6 and mixed-family ipBlocks", () => {
    const v6 = pod("y/v6", { ips: ["fd00::2:1"] });
    const dual = pod("x/dual", { ips: ["10.0.1.9", "fd00::1:9"] });
    const v4only = pod("x/v4", { ips: ["10.0.1.8"] });
    const w = world({
      namespaces: base,
      pods: [dual, v4only, v6],
      policies: [np("y/p", { ingress: [{ from: [{ ipBlock: { cidr: "fd00::/64" } }] }] })],
    });
    expect(allowed(w, "x/dual", "y/v6")).toBe(true); // the connection uses IPv6
    expect(allowed(w, "x/v4", "y/v6")).toBe(false); // no common family: nothing address-based matches
    expect(allowed(w, "fd00::1:1", "y/v6")).toBe(true);
    expect(allowed(w, "10.0.1.8", "y/v6")).toBe(false); // an IPv4 address never matches an IPv6 CIDR
    const w4 = world({
      namespaces: base,
      pods: [dual, v6],
      policies: [np("y/p", { ingress: [{ from: [{ ipBlock: { cidr: "0.0.0.0/0" } }] }] })],
    });
    expect(allowed(w4, "x/dual", "y/v6")).toBe(false); // 0.0.0.0/0 does not cover IPv6
  });
});

describe("ports (§1.9)", () => {
  const web = pod("x/web", {
    ips: ["10.0.1.10"],
    ports: [
      { name: "http", containerPort: 8080 },
      { name: "dns", containerPort: 53, protocol: "UDP" },
    ],
  });
  const alt = pod("x/alt", { ips: ["10.0.1.11"], ports: [{ name: "http", containerPort: 9090 }] });
  test("named ports resolve on the destination pod, per protocol", () => {
    const w = world({
      namespaces: base,
      pods: [web, alt, c],
      policies: [np("x/p", { ingress: [{ ports: [{ port: "http" }] }] })],
    });
    expect(allowed(w, "y/c", "x/web", 8080)).toBe(true);
    expect(allowed(w, "y/c", "x/web", 9090)).toBe(false);
    expect(allowed(w, "y/c", "x/alt", 9090)).toBe(true);
    expect(allowed(w, "y/c", "x/web", 8080, "UDP")).toBe(false);
  });

  test("a named port on the wrong protocol matches nothing", () => {
    const w = world({
      namespaces: base,
      pods: [web, c],
      policies: [np("x/p", { ingress: [{ ports: [{ port: "dns", protocol: "TCP" }] }] })],
    });
    expect(allowed(w, "y/c", "x/web", 53, "TCP")).toBe(false);
    expect(allowed(w, "y/c", "x/web", 53, "UDP")).toBe(false);
    const ok = world({
      namespaces: base,
      pods: [web, c],
      policies: [np("x/p", { ingress: [{ ports: [{ port: "dns", protocol: "UDP" }] }] })],
    });
    expect(allowed(ok, "y/c", "x/web", 53, "UDP")).toBe(true);
  });

  test("an egress named port never matches a bare IP destination", () => {
    const w = world({
      namespaces: base,
      pods: [a, web],
      policies: [
        np("x/p", {
          podSelector: { matchLabels: { pod: "a" } },
          policyTypes: ["Egress"],
          egress: [{ ports: [{ port: "http" }] }],
        }),
      ],
    });
    expect(allowed(w, "x/a", "x/web", 8080)).toBe(true);
    expect(allowed(w, "x/a", "1.2.3.4", 8080)).toBe(false);
  });

  test("endPort ranges are inclusive; port=endPort is the single port", () => {
    const w = world({
      namespaces: base,
      pods: [a, c],
      policies: [np("x/p", { ingress: [{ ports: [{ port: 80, endPort: 82 }] }] })],
    });
    expect([79, 80, 81, 82, 83].map((p) => allowed(w, "y/c", "x/a", p))).toEqual([
      false,
      true,
      true,
      true,
      false,
    ]);
    const one = world({
      namespaces: base,
      pods: [a, c],
      policies: [np("x/p", { ingress: [{ ports: [{ port: 80, endPort: 80 }] }] })],
    });
    expect([79, 80, 81].map((p) => allowed(one, "y/c", "x/a", p))).toEqual([false, true, false]);
  });

  test("protocol defaults to TCP; {protocol: UDP} alone means every UDP port; SCTP is distinct", () => {
    const tcp = world({
      namespaces: base,
      pods: [a, c],
      policies: [np("x/p", { ingress: [{ ports: [{ port: 80 }] }] })],
    });
    expect(allowed(tcp, "y/c", "x/a", 80, "TCP")).toBe(true);
    expect(allowed(tcp, "y/c", "x/a", 80, "UDP")).toBe(false);
    expect(allowed(tcp, "y/c", "x/a", 80, "SCTP")).toBe(false);
    const udp = world({
      namespaces: base,
      pods: [a, c],
      policies: [np("x/p", { ingress: [{ ports: [{ protocol: "UDP" }] }] })],
    });
    expect(allowed(udp, "y/c", "x/a", 5353, "UDP")).toBe(true);
    expect(allowed(udp, "y/c", "x/a", 5353, "TCP")).toBe(false);
  });
});

describe("implementation-defined choices (§1.8)", () => {
  test("loopback is allowed by default and can be evaluated", () => {
    const w = world({ namespaces: base, pods: [a], policies: [np("x/deny", {})] });
    expect(allowed(w, "x/a", "x/a")).toBe(true);
    expect(allowed(w, "x/a", "x/a", 80, "TCP", { selfTraffic: "evaluate" })).toBe(false);
    expect(
      computePolicyMatrix(w, { ports: [80], protocols: ["TCP"], selfTraffic: "evaluate" })
        .verdicts[0],
    ).toBe(0);
  });

  test("ingress from the pod's own node is allowed by default", () => {
    const onNode = pod("x/a", { ips: ["10.0.1.1"], nodeName: "n1" });
    const w = world({
      namespaces: base,
      pods: [onNode],
      nodes: [node("n1", "192.168.0.1"), node("n2", "192.168.0.2")],
      policies: [np("x/deny", {})],
    });
    const v = evaluatePolicy(w, { from: "192.168.0.1", to: "x/a", port: 80 });
    expect(v.allowed).toBe(true);
    expect(v.explanation.ingress.decision).toEqual({ kind: "local-node", node: "n1" });
    expect(allowed(w, "192.168.0.2", "x/a")).toBe(false);
    expect(allowed(w, "192.168.0.1", "x/a", 80, "TCP", { localNodeIngress: "evaluate" })).toBe(
      false,
    );
  });

  test("hostNetwork pods: node traffic by default, pods on option", () => {
    const host = pod("y/host", {
      ips: ["192.168.0.2"],
      hostNetwork: true,
      nodeName: "n2",
      labels: { pod: "host" },
    });
    const w = world({
      namespaces: base,
      pods: [a, host],
      policies: [np("x/p", { ingress: [{ from: [{ namespaceSelector: {} }] }] }), np("y/deny", {})],
    });
    expect(allowed(w, "y/host", "x/a")).toBe(false); // selectors do not match it
    expect(allowed(w, "x/a", "y/host")).toBe(true); // not a subject: y/deny does not apply
    expect(allowed(w, "y/host", "x/a", 80, "TCP", { hostNetwork: "as-pod" })).toBe(true);
    expect(allowed(w, "x/a", "y/host", 80, "TCP", { hostNetwork: "as-pod" })).toBe(false);
    const m = computePolicyMatrix(w, { ports: [80], protocols: ["TCP"] });
    expect(m.verdicts).toEqual(naivePolicyMatrix(w, { ports: [80], protocols: ["TCP"] }).verdicts);
  });

  test("traffic from outside IPs is judged by the destination's ingress only", () => {
    const w = world({
      namespaces: base,
      pods: [a],
      policies: [np("x/p", { ingress: [{ from: [{ ipBlock: { cidr: "203.0.113.0/24" } }] }] })],
    });
    expect(allowed(w, "203.0.113.5", "x/a")).toBe(true);
    expect(allowed(w, "198.51.100.1", "x/a")).toBe(false);
    expect(allowed(w, "x/a", "198.51.100.1")).toBe(true);
  });

  test("an IP that belongs to a pod is evaluated as that pod", () => {
    const w = world({
      namespaces: base,
      pods: [a, c],
      policies: [np("x/p", { ingress: [{ from: [{ namespaceSelector: {} }] }] })],
    });
    const v = evaluatePolicy(w, { from: { ip: "10.0.2.3" }, to: { pod: "x/a" }, port: 80 });
    expect(v.allowed).toBe(true);
    expect(v.explanation.from).toBe("y/c");
    expect(v.explanation.choices[0]?.kind).toBe("ip-is-pod");
  });
});

describe("AdminNetworkPolicy and BaselineAdminNetworkPolicy (§4)", () => {
  const pods = [a, b, c];
  const toX = { namespaces: { matchLabels: { "kubernetes.io/metadata.name": "x" } } };
  const fromY = [{ namespaces: { matchLabels: { "kubernetes.io/metadata.name": "y" } } }];

  test("ANP Deny beats a NetworkPolicy allow; ANP Allow beats a NetworkPolicy deny", () => {
    const deny = world({
      namespaces: base,
      pods,
      policies: [np("x/all", { ingress: [{}] })],
      anps: [anp("d", { priority: 1, subject: toX, ingress: [{ action: "Deny", from: fromY }] })],
    });
    expect(allowed(deny, "y/c", "x/a")).toBe(false);
    const allow = world({
      namespaces: base,
      pods,
      policies: [np("x/none", {})],
      anps: [anp("d", { priority: 1, subject: toX, ingress: [{ action: "Allow", from: fromY }] })],
    });
    expect(allowed(allow, "y/c", "x/a")).toBe(true);
    expect(allowed(allow, "x/b", "x/a")).toBe(false);
  });

  test("lower priority value first; rule order within one ANP", () => {
    const w = world({
      namespaces: base,
      pods,
      anps: [
        anp("later", { priority: 5, subject: toX, ingress: [{ action: "Allow", from: fromY }] }),
        anp("first", {
          priority: 2,
          subject: toX,
          ingress: [
            { action: "Deny", from: fromY, ports: [{ portNumber: { port: 80, protocol: "TCP" } }] },
            { action: "Allow", from: fromY },
          ],
        }),
      ],
    });
    expect(allowed(w, "y/c", "x/a", 80)).toBe(false);
    expect(allowed(w, "y/c", "x/a", 81)).toBe(true);
    const v = evaluatePolicy(w, { from: "y/c", to: "x/a", port: 81 });
    expect(v.explanation.ingress.decision).toMatchObject({
      kind: "admin-rule",
      policy: "first",
      rule: 1,
      action: "Allow",
    });
  });

  test("Pass skips every remaining ANP rule and goes to NetworkPolicy, then BANP", () => {
    const anps = [
      anp("pass", { priority: 1, subject: toX, ingress: [{ action: "Pass", from: fromY }] }),
      anp("deny", { priority: 2, subject: toX, ingress: [{ action: "Deny", from: fromY }] }),
    ];
    const noNp = world({ namespaces: base, pods, anps });
    expect(allowed(noNp, "y/c", "x/a")).toBe(true); // nothing after Pass denies
    const withBanp = world({
      namespaces: base,
      pods,
      anps,
      banps: [banp({ subject: toX, ingress: [{ action: "Deny", from: fromY }] })],
    });
    expect(allowed(withBanp, "y/c", "x/a")).toBe(false);
    const v = evaluatePolicy(withBanp, { from: "y/c", to: "x/a", port: 80 });
    expect(v.explanation.ingress.passed?.policy).toBe("pass");
    expect(v.explanation.ingress.decision).toMatchObject({
      kind: "admin-rule",
      tier: "BaselineAdminNetworkPolicy",
      action: "Deny",
    });
    const withNp = world({
      namespaces: base,
      pods,
      anps,
      policies: [np("x/all", { ingress: [{}] })],
      banps: [banp({ subject: toX, ingress: [{ action: "Deny", from: fromY }] })],
    });
    expect(allowed(withNp, "y/c", "x/a")).toBe(true); // BANP not consulted: a NetworkPolicy selects x/a
  });

  test("BANP Allow does not override NetworkPolicy isolation", () => {
    const w = world({
      namespaces: base,
      pods,
      policies: [np("x/none", {})],
      banps: [banp({ subject: toX, ingress: [{ action: "Allow", from: fromY }] })],
    });
    expect(allowed(w, "y/c", "x/a")).toBe(false);
  });

  test("networks peers match pod IPs; nodes peers match node addresses", () => {
    const w = world({
      namespaces: base,
      pods: [a, c],
      nodes: [node("n1", "192.168.0.1", { role: "infra" })],
      anps: [
        anp("e", {
          priority: 1,
          subject: toX,
          egress: [
            { action: "Deny", to: [{ networks: ["10.0.2.0/24"] }] },
            { action: "Deny", to: [{ nodes: { matchLabels: { role: "infra" } } }] },
          ],
        }),
      ],
    });
    expect(allowed(w, "x/a", "y/c")).toBe(false);
    expect(allowed(w, "x/a", "192.168.0.1")).toBe(false);
    expect(allowed(w, "x/a", "192.168.0.9")).toBe(true);
  });

  test("equal priorities are flagged; a peer with no known field fails closed", () => {
    const w = world({
      namespaces: base,
      pods,
      anps: [
        anp("b-second", { priority: 3, subject: toX, ingress: [{ action: "Allow", from: fromY }] }),
        anp("a-first", { priority: 3, subject: toX, ingress: [{ action: "Deny", from: fromY }] }),
      ],
    });
    const v = evaluatePolicy(w, { from: "y/c", to: "x/a", port: 80 });
    expect(v.allowed).toBe(false); // ties broken by name
    expect(v.explanation.choices.map((x) => x.kind)).toContain("equal-anp-priority");
    const closed = world({
      namespaces: base,
      pods,
      anps: [anp("f", { priority: 1, subject: toX, ingress: [{ action: "Deny", from: [{}] }] })],
    });
    expect(allowed(closed, "y/c", "x/a")).toBe(false);
    const open = world({
      namespaces: base,
      pods,
      policies: [np("x/none", {})],
      anps: [anp("f", { priority: 1, subject: toX, ingress: [{ action: "Allow", from: [{}] }] })],
    });
    expect(allowed(open, "y/c", "x/a")).toBe(false);
  });

  test("host-networked pods are never ANP subjects", () => {
    const host = pod("x/host", { ips: ["192.168.0.3"], hostNetwork: true });
    const w = world({
      namespaces: base,
      pods: [host, c],
      anps: [anp("d", { priority: 1, subject: toX, ingress: [{ action: "Deny", from: fromY }] })],
    });
    expect(allowed(w, "y/c", "x/host", 80, "TCP", { hostNetwork: "as-pod" })).toBe(true);
  });
});

describe("bad input", () => {
  const w = world({ namespaces: base, pods: [a] });
  test.each([
    [{ from: "x/nope", to: "x/a", port: 80 }, "pod x/nope not found"],
    [{ from: "1.2.3", to: "x/a", port: 80 }, "not a valid IP address"],
    [{ from: "x/a", to: "x/a", port: 0 }, "port 0"],
    [{ from: "x/a", to: "x/a", port: 80, protocol: "ICMP" }, "protocol"],
    [{ from: "a/b/c", to: "x/a", port: 80 }, "expected NAMESPACE/POD"],
  ])("%j", (q, msg) => {
    expect(() => evaluatePolicy(w, q)).toThrow(PolicyInputError);
    expect(() => evaluatePolicy(w, q)).toThrow(msg);
  });
});
