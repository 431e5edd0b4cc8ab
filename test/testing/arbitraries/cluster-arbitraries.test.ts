/**
 * The kit's composite arbitraries (issue 13 §3): the loader — the `cluster()` builder over
 * parseCluster, and parseNodeEnvironment — accepts every generated value, and probes name pods
 * and addresses of the cluster they were drawn from.
 */
import { describe, expect, test } from "@jest/globals";
import fc from "fast-check";
import {
  NODE_ENVIRONMENT_API_VERSION,
  parseNodeEnvironment,
} from "../../../src/model/load-node-environment.js";
import { parseIP } from "../../../src/net/index.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { cluster } from "../../../src/testing/builders/index.js";
import {
  arbCluster,
  arbClusterObjects,
  arbNamespace,
  arbNodeEnvironment,
  arbPacket,
  arbPod,
  arbProbe,
} from "../../../src/testing/index.js";
import { clusterObjectList } from "../../../src/testing/arbitraries/cluster.js";

const PARAMS = { seed: 13, numRuns: 30 };
const FAMILY_SETS: readonly (readonly ("IPv4" | "IPv6")[])[] = [
  ["IPv4"],
  ["IPv6"],
  ["IPv4", "IPv6"],
];
const FAMILIES = FAMILY_SETS.map((f) => [f.join("+"), f] as const);

describe("arbitraries the loader accepts", () => {
  test("arbNamespace", () => {
    fc.assert(
      fc.property(arbNamespace(), (ns) => {
        const c = cluster(ns);
        expect(c.namespaces.map((n) => n.metadata?.name)).toEqual([ns.metadata?.name]);
      }),
      PARAMS,
    );
  });

  test.each(FAMILIES)("arbPod (%s)", (_name, families) => {
    fc.assert(
      fc.property(arbPod({ namespace: "y", namespaceIndex: 1, index: 260, families }), (p) => {
        const c = cluster({ apiVersion: "v1", kind: "Namespace", metadata: { name: "y" } }, p);
        expect(c.pods).toHaveLength(1);
        expect(c.pods[0]?.status?.podIPs?.length).toBe(families.length);
      }),
      PARAMS,
    );
  });

  test.each(FAMILIES)("arbNodeEnvironment (%s)", (_name, families) => {
    fc.assert(
      fc.property(arbNodeEnvironment({ families }), (env) => {
        const again = parseNodeEnvironment(
          JSON.stringify({
            apiVersion: NODE_ENVIRONMENT_API_VERSION,
            kind: "NodeEnvironment",
            ...env,
          }),
          "<env>",
        );
        expect(again.nodeName).toBe(env.nodeName);
        expect(again.nodeIPs).toEqual(env.nodeIPs);
      }),
      PARAMS,
    );
  });

  test.each(["IPv4", "IPv6"] as const)("arbPacket (%s): valid addresses and ports", (family) => {
    fc.assert(
      fc.property(arbPacket({ family }), (p) => {
        const src = parseIP(p.src);
        const dst = parseIP(p.dst);
        expect(src?.family).toBe(family);
        expect(dst?.family).toBe(family);
        for (const port of [p.sport ?? 1, p.dport]) {
          expect(port).toBeGreaterThanOrEqual(1);
          expect(port).toBeLessThanOrEqual(65535);
        }
      }),
      PARAMS,
    );
  });

  test.each(FAMILIES)("arbCluster objects (%s)", (_name, families) => {
    fc.assert(
      fc.property(arbClusterObjects({ families }), (o) => {
        const c = cluster(clusterObjectList(o));
        expect(c.pods).toHaveLength(o.pods.length);
        expect(c.services).toHaveLength(o.services.length);
        expect(c.networkPolicies).toHaveLength(o.networkPolicies.length);
      }),
      { ...PARAMS, numRuns: 20 },
    );
  });

  test.each(FAMILIES)(
    "arbProbe (%s): pod to an address of the cluster in its family; evaluatePolicy takes it",
    (_name, families) => {
      let probes = 0;
      let sctp = 0;
      fc.assert(
        fc.property(
          arbCluster({ families }).chain((c) => arbProbe(c).map((p) => ({ c, p }))),
          ({ c, p }) => {
            if (p === undefined) {
              expect(c.pods.filter((q) => (q.status?.podIPs ?? []).length > 0)).toHaveLength(0);
              return;
            }
            probes++;
            if (p.protocol === "sctp") sctp++;
            const refs = c.pods.map((q) => `${q.metadata?.namespace}/${q.metadata?.name}`);
            expect(refs).toContain(p.from);
            const addresses = [
              ...c.pods.flatMap((q) => (q.status?.podIPs ?? []).map((a) => a.ip)),
              ...c.services.flatMap((s) => s.spec?.clusterIPs ?? []),
            ];
            expect(addresses).toContain(p.to);
            const source = c.pods.find(
              (q) => `${q.metadata?.namespace}/${q.metadata?.name}` === p.from,
            );
            const sourceFamilies = (source?.status?.podIPs ?? []).map((a) => a.ip?.includes(":"));
            expect(sourceFamilies).toContain(p.to.includes(":"));
            expect(p.port).toBeGreaterThanOrEqual(1);
            expect(p.port).toBeLessThanOrEqual(65535);
            const verdict = evaluatePolicy(c, {
              from: p.from,
              to: p.to,
              port: p.port,
              protocol: p.protocol,
            });
            expect(typeof verdict.allowed).toBe("boolean");
          },
        ),
        { ...PARAMS, numRuns: 25 },
      );
      // Guards against a vacuous run, and checks the SCTP bias shows.
      expect(probes).toBeGreaterThan(5);
      expect(sctp).toBeGreaterThan(0);
    },
  );
});
