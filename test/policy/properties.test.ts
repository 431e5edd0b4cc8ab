/**
 * Property tests from shared/spec/netpol.md §7 "Property-test ideas" over random namespaces, pods
 * and policies (src/testing/arbitraries).
 */
import { describe, expect } from "@jest/globals";
import { fc, test } from "@fast-check/jest";
import type { NetworkPolicyPeer } from "kubernetes-types/networking/v1.js";
import {
  policyClusterObjects,
  withTwinPods,
  type PolicyClusterObjects,
} from "../../src/testing/arbitraries/policyCluster.js";
import { adminNetworkPolicy } from "../../src/testing/arbitraries/adminNetworkPolicy.js";
import { networkPolicy, networkPolicyPeer } from "../../src/testing/arbitraries/networkPolicy.js";
import { evaluatePolicy } from "../../src/policy/evaluate.js";
import { compilePolicies } from "../../src/policy/compile.js";
import { networkPolicySelects } from "../../src/policy/select.js";
import { DEFAULT_POLICY_OPTIONS } from "../../src/policy/options.js";
import { matrixRows } from "../../src/policy/matrix.js";
import { PROTOCOLS } from "../../src/net/port.js";
import type { NetworkPolicy } from "../../src/model/kinds.js";
import {
  clone,
  cluster,
  lost,
  naiveTable,
  permute,
  same,
  table,
  withExplicitTypes,
} from "./helpers.js";
import { reached } from "../helpers/reached.js";
import { soakRuns } from "../helpers/soak.js";

const RUNS = { numRuns: soakRuns(30, 60) };
const npOnly = policyClusterObjects({ maxAdminPolicies: 0, baseline: false });
const full = policyClusterObjects({});

type Rule = {
  from?: NetworkPolicyPeer[];
  to?: NetworkPolicyPeer[];
  ports?: { protocol?: string; port?: number | string; endPort?: number }[];
};

function mapRules(
  o: PolicyClusterObjects,
  f: (r: Rule, dir: "ingress" | "egress") => Rule,
): PolicyClusterObjects {
  const c = clone(o);
  for (const np of c.networkPolicies) {
    const spec = np.spec;
    if (spec === undefined) continue;
    if (spec.ingress !== undefined)
      spec.ingress = spec.ingress.map((r) => f(r as Rule, "ingress") as typeof r);
    if (spec.egress !== undefined)
      spec.egress = spec.egress.map((r) => f(r as Rule, "egress") as typeof r);
  }
  return c;
}

describe("protocol isolation", () => {
  const isolatedRows = new Map(
    PROTOCOLS.map((p) => [p, { ingress: reached(), egress: reached() }]),
  );
  for (const only of PROTOCOLS)
    for (const dir of ["ingress", "egress"] as const)
      test.prop([npOnly], RUNS)(
        `rules naming only ${only} (${dir}) never admit another protocol to an isolated pod`,
        (o) => {
          // Every rule of every policy names protocol `only`.
          const c = mapRules(o, (r) => ({
            ...r,
            ports:
              r.ports === undefined || r.ports.length === 0
                ? [{ protocol: only }]
                : r.ports.map((p) => ({ ...p, protocol: only })),
          }));
          const cl = cluster(c);
          const cp = compilePolicies(cl);
          const m = table(cl);
          for (const row of matrixRows(m)) {
            if (row.protocol === only || row.from === row.to) continue;
            const subjectId = dir === "ingress" ? row.to : row.from;
            const subject = cp.facts.podsById.get(subjectId);
            if (subject === undefined) throw new Error("pod missing");
            const isolated = cp.allNetworkPolicies.some(
              (p) =>
                networkPolicySelects(p, subject, DEFAULT_POLICY_OPTIONS) &&
                (dir === "ingress" ? p.ingress : p.egress) !== undefined,
            );
            if (!isolated) continue;
            expect(
              `${row.from} ${row.to} ${row.protocol}/${row.port} ${String(row.allowed)}`,
            ).toMatch(/ false$/);
            isolatedRows.get(only)?.[dir].hit();
          }
        },
      );
  for (const [only, byDir] of isolatedRows)
    for (const [dir, r] of Object.entries(byDir))
      r.testReached(`isolated pods probed with a protocol other than ${only} (${dir})`);
});

describe("monotonicity", () => {
  const lostCells = reached();
  test.prop([npOnly, fc.nat(), networkPolicyPeer, fc.constantFrom("ingress", "egress")], RUNS)(
    "adding a rule to an existing policy never denies",
    (o, which, peer, dir) => {
      fc.pre(o.networkPolicies.length > 0);
      const before = clone(o);
      before.networkPolicies = before.networkPolicies.map(withExplicitTypes);
      const after = clone(before);
      const np = after.networkPolicies[which % after.networkPolicies.length] as NetworkPolicy;
      const spec = np.spec ?? { podSelector: {} };
      if (dir === "ingress") spec.ingress = [...(spec.ingress ?? []), { from: [peer] }];
      else spec.egress = [...(spec.egress ?? []), { to: [peer] }];
      expect(lost(table(before), table(after))).toEqual([]);
    },
  );

  test.prop(
    [
      full,
      fc.constantFrom("x", "y", "z").chain((ns) => networkPolicy({ namespace: ns, index: 99 })),
    ],
    RUNS,
  )("adding a NetworkPolicy only denies what it newly isolates", (o, extra) => {
    const after = clone(o);
    after.networkPolicies.push(extra);
    const cb = cluster(o);
    const ca = cluster(after);
    for (const cell of lost(table(cb), table(ca))) {
      const [from = "", to = "", probe = ""] = cell.split(" ");
      const [protocol = "", port = ""] = probe.split("/");
      const q = { from, to, port: Number(port), protocol };
      const eb = evaluatePolicy(cb, q).explanation;
      const ea = evaluatePolicy(ca, q).explanation;
      const newlyIsolated =
        (!eb.egress.isolated && ea.egress.isolated) ||
        (!eb.ingress.isolated && ea.ingress.isolated);
      expect({ cell, newlyIsolated }).toEqual({ cell, newlyIsolated: true });
      lostCells.hit();
    }
  });
  lostCells.testReached("connections the added NetworkPolicy denies");

  test.prop([full], RUNS)("removing the BANP can only allow more", (o) => {
    const without = clone(o);
    without.baselineAdminNetworkPolicies = [];
    expect(lost(table(o), table(without))).toEqual([]);
  });
});

describe("order independence and equivalent spellings", () => {
  const unselected = reached();
  test.prop([full, fc.integer()], RUNS)(
    "shuffling NetworkPolicies, rules, peers and ports never changes a verdict",
    (o, seed) => {
      const c = mapRules(o, (r) => ({
        ...r,
        ...(r.from !== undefined ? { from: permute(r.from, seed) } : {}),
        ...(r.to !== undefined ? { to: permute(r.to, seed + 1) } : {}),
        ...(r.ports !== undefined ? { ports: permute(r.ports, seed + 2) } : {}),
      }));
      c.networkPolicies = permute(c.networkPolicies, seed + 3).map((np) => ({
        ...np,
        spec: {
          ...(np.spec ?? { podSelector: {} }),
          ...(np.spec?.ingress !== undefined
            ? { ingress: permute(np.spec.ingress, seed + 4) }
            : {}),
          // egress order can change whether `egress` is empty only if the list changes: it does not
          ...(np.spec?.egress !== undefined ? { egress: permute(np.spec.egress, seed + 5) } : {}),
        },
      }));
      c.adminNetworkPolicies = permute(c.adminNetworkPolicies, seed + 6);
      expect(same(table(o), table(c))).toBe(true);
    },
  );

  test.prop([full], RUNS)(
    "`from: []` == missing `from`, `ports: []` == missing `ports`, podSelector null == {}",
    (o) => {
      const flip = <T>(xs: T[] | undefined): T[] | undefined =>
        xs === undefined ? [] : xs.length === 0 ? undefined : xs;
      const c = mapRules(o, (r, dir) => {
        const out: Rule = {};
        const peers = flip(dir === "ingress" ? r.from : r.to);
        if (peers !== undefined) out[dir === "ingress" ? "from" : "to"] = peers;
        const ports = flip(r.ports);
        if (ports !== undefined) out.ports = ports;
        return out;
      });
      for (const np of c.networkPolicies) {
        const spec = np.spec;
        if (spec !== undefined && Object.keys(spec.podSelector).length === 0)
          (spec as { podSelector: unknown }).podSelector = null;
      }
      expect(same(table(o), table(c))).toBe(true);
    },
  );

  test.prop(
    [
      full,
      fc.constantFrom("x", "y", "z").chain((ns) => networkPolicy({ namespace: ns, index: 99 })),
    ],
    RUNS,
  )(
    "a policyTypes [Ingress] policy never changes verdicts into pods it does not select",
    (o, extra) => {
      const spec = extra.spec ?? { podSelector: {} };
      const after = clone(o);
      after.networkPolicies.push({ ...extra, spec: { ...spec, policyTypes: ["Ingress"] } });
      const ca = cluster(after);
      const cp = compilePolicies(ca);
      const added = cp.allNetworkPolicies[cp.allNetworkPolicies.length - 1];
      const mb = table(o);
      const ma = table(ca);
      const n = mb.pods.length;
      const P = mb.probes.length;
      for (let j = 0; j < n; j++) {
        const dst = cp.facts.pods[j];
        if (
          added === undefined ||
          dst === undefined ||
          networkPolicySelects(added, dst, DEFAULT_POLICY_OPTIONS)
        )
          continue;
        for (let i = 0; i < n; i++)
          for (let k = 0; k < P; k++)
            expect(ma.verdicts[(i * n + j) * P + k]).toBe(mb.verdicts[(i * n + j) * P + k]);
        unselected.hit();
      }
    },
  );
  unselected.testReached("pods the added policy does not select");
});

describe("peers and ports", () => {
  test.prop([npOnly], RUNS)(
    "a combined namespace+pod peer allows a subset of the two split peers",
    (o) => {
      let found = false;
      const split = mapRules(o, (r, dir) => {
        const key = dir === "ingress" ? "from" : "to";
        const peers = r[key];
        if (peers === undefined) return r;
        return {
          ...r,
          [key]: peers.flatMap((p) => {
            if (p.podSelector == null || p.namespaceSelector == null) return [p];
            found = true;
            return [{ podSelector: p.podSelector }, { namespaceSelector: p.namespaceSelector }];
          }),
        };
      });
      fc.pre(found);
      expect(lost(table(o), table(split))).toEqual([]);
    },
  );

  test.prop([npOnly], RUNS)("adding an `except` never allows more", (o) => {
    let found = false;
    const narrowed = mapRules(o, (r, dir) => {
      const key = dir === "ingress" ? "from" : "to";
      const peers = r[key];
      if (peers === undefined) return r;
      return {
        ...r,
        [key]: peers.map((p) => {
          const cidr = p.ipBlock?.cidr;
          if (cidr !== "10.0.0.0/16" && cidr !== "0.0.0.0/0") return p;
          found = true;
          const extra = cidr === "0.0.0.0/0" ? ["10.0.2.0/24"] : ["10.0.1.2/32", "10.0.3.0/24"];
          return { ipBlock: { cidr, except: [...(p.ipBlock?.except ?? []), ...extra] } };
        }),
      };
    });
    fc.pre(found);
    expect(lost(table(narrowed), table(o))).toEqual([]);
  });

  test.prop([full], RUNS)(
    "{port: p, endPort: p} behaves as {port: p}; ranges are inclusive",
    (o) => {
      const single = mapRules(o, (r) =>
        r.ports === undefined
          ? r
          : {
              ...r,
              ports: r.ports.map((p) =>
                typeof p.port === "number" ? { ...p, endPort: p.port } : p,
              ),
            },
      );
      const withoutEnd = mapRules(single, (r) =>
        r.ports === undefined
          ? r
          : {
              ...r,
              ports: r.ports.map((p) => {
                const q = { ...p };
                delete q.endPort;
                return q;
              }),
            },
      );
      // single has endPort == port on every numeric entry; dropping it gives the same table
      expect(same(table(single), table(withoutEnd))).toBe(true);
    },
  );
});

describe("AdminNetworkPolicy", () => {
  test.prop([full, adminNetworkPolicy({ index: 9 }), fc.boolean()], RUNS)(
    "an ANP that matches nothing changes nothing",
    (o, anp, bySubject) => {
      const never = { matchLabels: { "never-set": "x" } };
      const inert = clone(anp);
      if (bySubject) inert.spec.subject = { namespaces: never };
      else {
        inert.spec.ingress = (inert.spec.ingress ?? []).map((r) => ({
          ...r,
          from: [{ namespaces: never }],
        }));
        inert.spec.egress = (inert.spec.egress ?? []).map((r) => ({
          ...r,
          to: [{ pods: { namespaceSelector: {}, podSelector: never } }],
        }));
      }
      const after = clone(o);
      after.adminNetworkPolicies.push(inert);
      expect(same(table(o), table(after))).toBe(true);
    },
  );

  test.prop([full], RUNS)(
    "a first ANP passing all pod traffic gives the NetworkPolicy+BANP verdicts",
    (o) => {
      const pass = clone(o);
      pass.adminNetworkPolicies = pass.adminNetworkPolicies.map((a) => ({
        ...a,
        spec: { ...a.spec, priority: a.spec.priority + 1 },
      }));
      pass.adminNetworkPolicies.push({
        metadata: { name: "pass-all" },
        spec: {
          priority: 0,
          subject: { namespaces: {} },
          ingress: [{ action: "Pass", from: [{ namespaces: {} }] }],
          egress: [{ action: "Pass", to: [{ namespaces: {} }] }],
        },
      });
      const none = clone(o);
      none.adminNetworkPolicies = [];
      expect(same(table(pass), table(none))).toBe(true);
    },
  );
});

describe("equivalence classes and explanations", () => {
  const options = fc.record({
    selfTraffic: fc.constantFrom("allow" as const, "evaluate" as const),
    hostNetwork: fc.constantFrom("as-node" as const, "as-pod" as const),
    localNodeIngress: fc.constantFrom("allow" as const, "evaluate" as const),
    ipBlockMatchesPods: fc.boolean(),
  });
  // Twins (same labels, other ports/IPs) are what equivalence classes can get wrong; they are rare
  // enough that this property needs more runs than the others.
  test.prop([withTwinPods(policyClusterObjects({ hostNetwork: true })), options], { numRuns: 300 })(
    "the class-based matrix equals the naive evaluation",
    (o, opts) => {
      expect(same(table(o, opts), naiveTable(o, opts))).toBe(true);
    },
  );

  test.prop([policyClusterObjects({ hostNetwork: true }), options], { numRuns: soakRuns(12, 25) })(
    "evaluatePolicy (explaining path) agrees with the matrix",
    (o, opts) => {
      const c = cluster(o);
      const rows = [...matrixRows(table(c, opts))];
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        const v = evaluatePolicy(
          c,
          { from: row.from, to: row.to, port: row.port, protocol: row.protocol },
          opts,
        );
        expect({ ...row, allowed: v.allowed }).toEqual(row);
        expect(v.allowed).toBe(v.explanation.egress.allowed && v.explanation.ingress.allowed);
      }
    },
  );

  test.prop([full], { numRuns: 30 })(
    "self traffic is reported as loopback, not silently allowed",
    (o) => {
      const c = cluster(o);
      const p = c.pods[0];
      const id = `${p?.metadata?.namespace ?? ""}/${p?.metadata?.name ?? ""}`;
      const v = evaluatePolicy(c, { from: id, to: id, port: 80, protocol: "TCP" });
      expect(v.allowed).toBe(true);
      expect(v.explanation.ingress.decision.kind).toBe("loopback");
      expect(v.explanation.choices.map((x) => x.kind)).toContain("loopback");
    },
  );
});
