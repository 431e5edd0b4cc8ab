/**
 * Properties with ClusterNetworkPolicies (spec cluster-network-policy.md §3, netpol.md §7 ideas
 * extended to v1alpha2) over random clusters from src/testing/arbitraries: SCTP-only rules never
 * touch TCP/UDP in any tier with any action, v1alpha1 -> v1alpha2 conversion keeps every verdict,
 * inert and pass-all policies, order independence, fast = naive = explaining path.
 */
import { describe, expect } from "@jest/globals";
import { fc, test } from "@fast-check/jest";
import { stringify } from "yaml";
import {
  policyClusterObjects,
  withTwinPods,
  type PolicyClusterObjects,
} from "../../src/testing/arbitraries/policyCluster.js";
import { arbClusterNetworkPolicy } from "../../src/testing/arbitraries/clusterNetworkPolicy.js";
import type { ClusterNetworkPolicy } from "../../src/model/kinds.js";
import { parseCluster } from "../../src/model/load.js";
import { convertToV1alpha2 } from "../../src/policy/convert.js";
import { evaluatePolicy } from "../../src/policy/evaluate.js";
import { matrixRows, type PolicyMatrix } from "../../src/policy/matrix.js";
import { clone, cluster, lost, naiveTable, permute, same, table } from "./helpers.js";
import { soakRuns } from "../helpers/soak.js";

type Objects = PolicyClusterObjects & { clusterNetworkPolicies: ClusterNetworkPolicy[] };

const SEED = 20261201;
const RUNS = { numRuns: soakRuns(25, 50), seed: SEED };

/** Up to `max` CNPs with distinct names, either tier. */
function cnps(max = 3): fc.Arbitrary<ClusterNetworkPolicy[]> {
  return fc
    .integer({ min: 0, max })
    .chain((n): fc.Arbitrary<readonly ClusterNetworkPolicy[]> =>
      n === 0
        ? fc.constant([])
        : fc.tuple(...Array.from({ length: n }, (_, i) => arbClusterNetworkPolicy({ index: i }))),
    )
    .map((l) => [...l]);
}

function withCnps(base: fc.Arbitrary<PolicyClusterObjects>, max = 3): fc.Arbitrary<Objects> {
  return fc
    .tuple(base, cnps(max))
    .map(([o, clusterNetworkPolicies]) => ({ ...o, clusterNetworkPolicies }));
}

const full = withCnps(policyClusterObjects({}));
const hostNet = withCnps(policyClusterObjects({ hostNetwork: true }));

/** Rows of the table for the given protocols, as comparable text. */
function rowsFor(m: PolicyMatrix, protocols: readonly string[]): string[] {
  const out: string[] = [];
  for (const r of matrixRows(m))
    if (protocols.includes(r.protocol))
      out.push(`${r.from} ${r.to} ${r.protocol}/${r.port} ${String(r.allowed)}`);
  return out;
}

describe("SCTP-only ClusterNetworkPolicy rules", () => {
  for (const tier of ["Admin", "Baseline"] as const)
    for (const action of ["Accept", "Deny", "Pass"] as const)
      test.prop(
        [
          full,
          arbClusterNetworkPolicy({ index: 99, tier, actions: [action] }),
          fc.constantFrom(...([[80], [80, 81], [1, 65535]] as const)),
        ],
        RUNS,
      )(
        `a ${tier} ${action} rule naming only SCTP never admits (or blocks) TCP or UDP`,
        (o, p, sctp) => {
          const rule = {
            protocols: [
              {
                sctp: {
                  destinationPort:
                    sctp.length === 1
                      ? { number: sctp[0] }
                      : { range: { start: sctp[0], end: sctp[1] } },
                },
              },
            ],
          };
          const only = clone(p);
          only.spec.ingress = (only.spec.ingress ?? []).map((r) => ({ ...r, ...rule }));
          only.spec.egress = (only.spec.egress ?? []).map((r) => ({ ...r, ...rule }));
          only.spec.ingress.push({ action, from: [{ namespaces: {} }], ...rule });
          only.spec.egress.push({ action, to: [{ networks: ["0.0.0.0/0", "::/0"] }], ...rule });
          const after = clone(o);
          after.clusterNetworkPolicies.push(only);
          const before = rowsFor(table(o), ["TCP", "UDP"]);
          expect(before.length).toBeGreaterThan(0);
          expect(rowsFor(table(after), ["TCP", "UDP"])).toEqual(before);
        },
      );
});

describe("v1alpha1 -> v1alpha2 conversion", () => {
  test.prop([policyClusterObjects({ hostNetwork: true })], { numRuns: 80, seed: SEED })(
    "ANPs and the BANP converted to CNPs give the same truth table",
    (o) => {
      const { policies, problems } = convertToV1alpha2(o);
      expect(problems).toEqual([]);
      expect(policies).toHaveLength(
        o.adminNetworkPolicies.length + o.baselineAdminNetworkPolicies.length,
      );
      const converted: Objects = {
        ...clone(o),
        adminNetworkPolicies: [],
        baselineAdminNetworkPolicies: [],
        clusterNetworkPolicies: policies,
      };
      expect(same(table(o), table(converted))).toBe(true);
    },
  );
});

describe("random ClusterNetworkPolicies", () => {
  test.prop([cnps(3)], { numRuns: 40, seed: SEED })(
    "are valid against the experimental CRD",
    (list) => {
      const text = list.map((p) => stringify(p)).join("---\n");
      const c = parseCluster([{ file: "r.yaml", text }]);
      expect(c.clusterNetworkPolicies).toHaveLength(list.length);
    },
  );

  const options = fc.record({
    selfTraffic: fc.constantFrom("allow" as const, "evaluate" as const),
    hostNetwork: fc.constantFrom("as-node" as const, "as-pod" as const),
    localNodeIngress: fc.constantFrom("allow" as const, "evaluate" as const),
    ipBlockMatchesPods: fc.boolean(),
  });

  test.prop([withCnps(withTwinPods(policyClusterObjects({ hostNetwork: true }))), options], {
    numRuns: soakRuns(80, 150),
    seed: SEED,
  })("the class-based matrix equals the naive (three-valued) evaluation", (o, opts) => {
    expect(same(table(o, opts), naiveTable(o, opts))).toBe(true);
  });

  test.prop([hostNet, options], { numRuns: soakRuns(8, 15), seed: SEED })(
    "evaluatePolicy (explaining path) agrees with the matrix",
    (o, opts) => {
      const c = cluster(o);
      const rows = [...matrixRows(table(c, opts))];
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        const v = evaluatePolicy(
          c,
          {
            from: row.from,
            to: row.to,
            port: row.port,
            protocol: row.protocol,
          },
          opts,
        );
        expect({ ...row, allowed: v.allowed }).toEqual(row);
      }
    },
  );

  test.prop([full, arbClusterNetworkPolicy({ index: 9 }), fc.boolean()], RUNS)(
    "a CNP that matches nothing changes nothing",
    (o, p, bySubject) => {
      const never = { matchLabels: { "never-set": "x" } };
      const inert = clone(p);
      if (bySubject) inert.spec.subject = { namespaces: never };
      else {
        inert.spec.ingress = (inert.spec.ingress ?? []).map((r) => ({
          ...r,
          from: [{ namespaces: never }],
        }));
        inert.spec.egress = (inert.spec.egress ?? []).map((r) => ({
          ...r,
          to: [{ pods: { podSelector: never } }],
        }));
      }
      const after = clone(o);
      after.clusterNetworkPolicies.push(inert);
      expect(same(table(o), table(after))).toBe(true);
    },
  );

  test.prop([full], RUNS)("removing Deny-only CNPs can only allow more (either tier)", (o) => {
    const denyOnly = (p: ClusterNetworkPolicy): boolean =>
      [...(p.spec.ingress ?? []), ...(p.spec.egress ?? [])].every((r) => r.action === "Deny");
    const after = clone(o);
    after.clusterNetworkPolicies = after.clusterNetworkPolicies.filter((p) => !denyOnly(p));
    expect(lost(table(o), table(after))).toEqual([]);
  });

  test.prop([full], RUNS)("the order of the CNP objects does not matter", (o) => {
    const shuffled = clone(o);
    shuffled.clusterNetworkPolicies = permute(shuffled.clusterNetworkPolicies, 7).reverse();
    expect(same(table(o), table(shuffled))).toBe(true);
  });

  for (const tier of ["Admin", "Baseline"] as const)
    test.prop([full], RUNS)(
      `a first ${tier} CNP passing all pod traffic equals no ${tier} tier`,
      (o) => {
        // Policies of the tier move one priority down; the pass-all one takes priority 0.
        const pass = clone(o);
        pass.clusterNetworkPolicies = pass.clusterNetworkPolicies.map((p) =>
          p.spec.tier === tier ? { ...p, spec: { ...p.spec, priority: p.spec.priority + 1 } } : p,
        );
        pass.clusterNetworkPolicies.push({
          metadata: { name: "pass-all" },
          spec: {
            tier,
            priority: 0,
            subject: { namespaces: {} },
            ingress: [{ action: "Pass", from: [{ namespaces: {} }] }],
            egress: [{ action: "Pass", to: [{ namespaces: {} }] }],
          },
        });
        const none = clone(o);
        none.clusterNetworkPolicies = none.clusterNetworkPolicies.filter(
          (p) => p.spec.tier !== tier,
        );
        if (tier === "Admin") none.adminNetworkPolicies = [];
        else none.baselineAdminNetworkPolicies = [];
        // ANPs (or the BANP) of the tier stay behind the pass-all CNP only at priority 0 ties:
        // shift them too.
        pass.adminNetworkPolicies = pass.adminNetworkPolicies.map((a) => ({
          ...a,
          spec: { ...a.spec, priority: a.spec.priority + 1 },
        }));
        expect(same(table(pass), table(none))).toBe(true);
      },
    );
});
