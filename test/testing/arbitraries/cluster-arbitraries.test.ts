/**
 * The kit's composite arbitraries (issue 13 §3): the loader — the `cluster()` builder over
 * parseCluster, and parseNodeEnvironment — accepts every generated value, probes name pods
 * and addresses of the cluster they were drawn from, and dual-stack clusters have Services of
 * every stack with per-family EndpointSlices that kube-proxy renders per family.
 */
import { describe, expect, test } from "@jest/globals";
import fc from "fast-check";
import {
  NODE_ENVIRONMENT_API_VERSION,
  parseNodeEnvironment,
} from "../../../src/model/load-node-environment.js";
import { parseIP } from "../../../src/net/index.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { renderIptables } from "../../../src/proxiers/iptables/render-iptables.js";
import { renderNftables } from "../../../src/proxiers/nftables/render-nftables.js";
import { cluster, nodeEnv, proxyConfig } from "../../../src/testing/builders/index.js";
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

describe("dual stack (issue 13 §3)", () => {
  const DUAL = ["IPv4", "IPv6"] as const;

  test("Services draw every stack; one EndpointSlice per family; the loader keeps them as drawn", () => {
    const stacks = new Set<string>();
    let slices = 0;
    fc.assert(
      fc.property(arbClusterObjects({ families: DUAL, services: 4 }), (o) => {
        const c = cluster(clusterObjectList(o));
        for (const s of c.services) {
          const drawn = o.services.find((x) => x.metadata?.name === s.metadata?.name);
          expect(s.spec?.ipFamilies).toEqual(drawn?.spec?.ipFamilies);
          expect(s.spec?.clusterIPs).toEqual(drawn?.spec?.clusterIPs);
          const fams = s.spec?.ipFamilies ?? [];
          expect(fams.length).toBe(s.spec?.clusterIPs?.length);
          fams.forEach((f, i) => expect(parseIP(s.spec?.clusterIPs?.[i] ?? "")?.family).toBe(f));
          stacks.add(`${s.spec?.ipFamilyPolicy} ${fams.join(",")}`);
          const mine = c.endpointSlices.filter(
            (e) => e.metadata?.labels?.["kubernetes.io/service-name"] === s.metadata?.name,
          );
          if (mine.length === 0) continue;
          slices += mine.length;
          expect(mine.map((e) => e.addressType)).toEqual(fams);
          for (const e of mine)
            for (const ep of e.endpoints)
              for (const a of ep.addresses) expect(parseIP(a)?.family).toBe(e.addressType);
        }
        for (const p of c.pods)
          expect((p.status?.podIPs ?? []).map((a) => parseIP(a.ip ?? "")?.family)).toEqual([
            "IPv4",
            "IPv6",
          ]);
      }),
      { seed: 13, numRuns: 40 },
    );
    expect([...stacks].sort()).toEqual([
      "PreferDualStack IPv4,IPv6",
      "PreferDualStack IPv6,IPv4",
      "RequireDualStack IPv4,IPv6",
      "RequireDualStack IPv6,IPv4",
      "SingleStack IPv4",
      "SingleStack IPv6",
    ]);
    expect(slices).toBeGreaterThan(0);
  });

  test("IPv6-only clusters: SingleStack or PreferDualStack IPv6 Services", () => {
    const policies = new Set<string>();
    fc.assert(
      fc.property(arbCluster({ families: ["IPv6"], services: 3 }), (c) => {
        for (const s of c.services) {
          expect(s.spec?.ipFamilies).toEqual(["IPv6"]);
          expect(parseIP(s.spec?.clusterIP ?? "")?.family).toBe("IPv6");
          policies.add(s.spec?.ipFamilyPolicy ?? "");
        }
        for (const e of c.endpointSlices) expect(e.addressType).toBe("IPv6");
      }),
      { seed: 13, numRuns: 25 },
    );
    expect([...policies].sort()).toEqual(["PreferDualStack", "SingleStack"]);
  });

  test.each(["iptables", "nftables"] as const)(
    "kube-proxy (%s) on a dual-stack node writes every Service's cluster IP into its family's rules",
    (mode) => {
      const node = nodeEnv({ name: "node-1", ips: ["192.168.0.2", "fd00:192:168::2"] });
      let checked = 0;
      fc.assert(
        fc.property(arbCluster({ families: DUAL, services: 3, policies: 0 }), (c) => {
          const text = (family: "IPv4" | "IPv6"): string =>
            mode === "iptables"
              ? (renderIptables(c, { node, proxyConfig: proxyConfig({ mode }) }).families.find(
                  (f) => f.family === family,
                )?.restore ?? "")
              : (renderNftables(c, { node, proxyConfig: proxyConfig({ mode }) }).families.find(
                  (f) => f.family === family,
                )?.list ?? "");
          const byFamily = { IPv4: text("IPv4"), IPv6: text("IPv6") };
          for (const s of c.services)
            for (const ip of s.spec?.clusterIPs ?? []) {
              const fam = parseIP(ip)?.family ?? "IPv4";
              checked++;
              expect(byFamily[fam]).toContain(ip);
              expect(byFamily[fam === "IPv4" ? "IPv6" : "IPv4"]).not.toContain(ip);
            }
        }),
        { seed: 13, numRuns: 20 },
      );
      expect(checked).toBeGreaterThan(10);
    },
  );
});
