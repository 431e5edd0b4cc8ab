/** lintPolicies: each warning of the issue, and silence on a clean cluster. */
import { describe, expect, test } from "@jest/globals";
import { lintPolicies } from "../../src/policy/lint.js";
import { anp, np, ns, pod, world } from "./fixtures.js";

const web = pod("x/web", {
  ips: ["10.0.1.10"],
  ports: [
    { name: "http", containerPort: 8080 },
    { name: "dns", containerPort: 53, protocol: "UDP" },
  ],
});
const c = pod("y/c", { ips: ["10.0.2.3"] });
const base = { namespaces: [ns("x"), ns("y")], pods: [web, c] };
const toX = { namespaces: { matchLabels: { "kubernetes.io/metadata.name": "x" } } };
const codes = (w: ReturnType<typeof world>): string[] => lintPolicies(w).map((x) => x.code);

describe("lintPolicies", () => {
  test("a clean cluster has no warnings", () => {
    const w = world({
      ...base,
      policies: [
        np("x/p", { ingress: [{ from: [{ namespaceSelector: {} }], ports: [{ port: "http" }] }] }),
      ],
    });
    expect(lintPolicies(w)).toEqual([]);
  });

  test("named ports no destination pod declares (or declares for another protocol)", () => {
    const w = world({
      ...base,
      policies: [
        np("x/p", { ingress: [{ ports: [{ port: "nope" }, { port: "dns", protocol: "TCP" }] }] }),
      ],
    });
    const ws = lintPolicies(w);
    expect(ws.map((x) => [x.code, x.path.join(".")])).toEqual([
      ["unserved-named-port", "spec.ingress.0.ports.0"],
      ["unserved-named-port", "spec.ingress.0.ports.1"],
    ]);
    expect(ws[1]?.message).toContain("another protocol");
  });

  test("egress named ports are checked against the peer pods", () => {
    const w = world({
      ...base,
      policies: [
        np("y/p", {
          policyTypes: ["Egress"],
          egress: [
            { to: [{ namespaceSelector: {} }], ports: [{ port: "http" }] },
            { to: [{ podSelector: {} }], ports: [{ port: "http" }] },
          ],
        }),
      ],
    });
    expect(lintPolicies(w).map((x) => x.path.join("."))).toEqual(["spec.egress.1.ports.0"]);
  });

  test("policies and ANPs that select nothing", () => {
    const w = world({
      ...base,
      policies: [np("x/p", { podSelector: { matchLabels: { app: "none" } } })],
      anps: [
        anp("a", {
          priority: 1,
          subject: { namespaces: { matchLabels: { team: "none" } } },
          ingress: [{ action: "Deny", from: [{ namespaces: {} }] }],
        }),
      ],
    });
    expect(codes(w)).toEqual(["selects-nothing", "selects-nothing"]);
  });

  test("ipBlocks and ANP networks that cover pod IPs", () => {
    const w = world({
      ...base,
      policies: [
        np("x/p", {
          ingress: [
            {
              from: [{ ipBlock: { cidr: "10.0.0.0/16" } }, { ipBlock: { cidr: "203.0.113.0/24" } }],
            },
          ],
        }),
      ],
      anps: [
        anp("a", {
          priority: 1,
          subject: toX,
          egress: [{ action: "Deny", to: [{ networks: ["0.0.0.0/0"] }] }],
        }),
      ],
    });
    expect(codes(w)).toEqual(["ip-block-covers-pods", "ip-block-covers-pods"]);
  });

  test("equal ANP priorities", () => {
    const w = world({
      ...base,
      anps: [
        anp("a", {
          priority: 3,
          subject: toX,
          ingress: [{ action: "Deny", from: [{ namespaces: {} }] }],
        }),
        anp("b", {
          priority: 3,
          subject: { namespaces: {} },
          egress: [{ action: "Allow", to: [{ networks: ["8.8.8.8/32"] }] }],
        }),
      ],
    });
    expect(codes(w)).toEqual(["equal-anp-priority", "equal-anp-priority"]);
  });

  test("rules shadowed by earlier ANP rules (same ANP and across priorities)", () => {
    const w = world({
      ...base,
      anps: [
        anp("first", {
          priority: 1,
          subject: toX,
          ingress: [
            {
              action: "Pass",
              from: [{ namespaces: {} }],
              ports: [{ portRange: { protocol: "TCP", start: 1, end: 1000 } }],
            },
            {
              action: "Allow",
              from: [{ namespaces: toX.namespaces }],
              ports: [{ portNumber: { protocol: "TCP", port: 80 } }],
            },
            {
              action: "Allow",
              from: [{ namespaces: {} }],
              ports: [{ portNumber: { protocol: "UDP", port: 80 } }],
            },
          ],
        }),
        anp("second", {
          priority: 2,
          subject: { namespaces: {} },
          ingress: [
            {
              action: "Deny",
              from: [{ namespaces: {} }],
              ports: [{ portNumber: { protocol: "TCP", port: 443 } }],
            },
          ],
        }),
      ],
    });
    const ws = lintPolicies(w).filter((x) => x.code === "shadowed-anp-rule");
    // first.ingress[1] is covered by first.ingress[0]; second's subject (all namespaces) is wider
    // than first's, so it is not shadowed; the UDP rule is not covered by a TCP range.
    expect(ws.map((x) => `${x.object.name} ${x.path.join(".")}`)).toEqual(["first spec.ingress.1"]);
    expect(ws[0]?.message).toContain("first ingress[0] (Pass) matches first");
  });

  test("a rule of a later ANP can be shadowed by an earlier ANP's rule", () => {
    const w = world({
      ...base,
      anps: [
        anp("early", {
          priority: 1,
          subject: { namespaces: {} },
          egress: [{ action: "Deny", to: [{ networks: ["10.0.0.0/8"] }] }],
        }),
        anp("late", {
          priority: 2,
          subject: toX,
          egress: [
            {
              action: "Allow",
              to: [{ networks: ["10.0.2.0/24"] }],
              ports: [{ portNumber: { protocol: "SCTP", port: 9 } }],
            },
            { action: "Allow", to: [{ networks: ["192.0.2.0/24"] }] },
          ],
        }),
      ],
    });
    const ws = lintPolicies(w).filter((x) => x.code === "shadowed-anp-rule");
    expect(ws.map((x) => `${x.object.name} ${x.path.join(".")}`)).toEqual(["late spec.egress.0"]);
  });

  test("rules for a direction that policyTypes leaves out", () => {
    const w = world({
      ...base,
      policies: [np("x/p", { policyTypes: ["Egress"], ingress: [{}], egress: [{}] })],
    });
    expect(codes(w)).toEqual(["ignored-direction"]);
  });
});
