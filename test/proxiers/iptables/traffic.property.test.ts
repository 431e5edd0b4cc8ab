/**
 * Invariants over random clusters, traced with the real tracer through the rendered node.
 * Expectations are computed from the generated objects directly (not from the proxier's plan).
 */
import { describe, expect } from "@jest/globals";
import { fc, test } from "@fast-check/jest";
import { buildNodeDataplane } from "../../../src/node/node-dataplane.js";
import type { ServicePort } from "kubernetes-types/core/v1.js";
import type { EndpointSlice, Service } from "../../../src/model/kinds.js";
import { trace } from "../../../src/netfilter/trace/tracer.js";
import type { TraceProtocol } from "../../../src/netfilter/trace/result.js";
import {
  kubeCluster,
  type GeneratedCluster,
} from "../../../src/testing/arbitraries/kubeCluster.js";
import { FAKE_CONFIG, FAKE_NODE } from "./helpers.js";
import { reached } from "../../helpers/reached.js";

const POD = "10.0.0.2";
const EXTERNAL = "203.0.113.2";
const NODE_IP = "192.168.0.2";

interface Ep {
  readonly dest: string;
  readonly local: boolean;
  readonly ready: boolean;
  readonly servingTerminating: boolean;
}

function endpointsOf(g: GeneratedCluster, svc: Service, port: ServicePort): Ep[] {
  const slice: EndpointSlice | undefined = g.endpointSlices.find(
    (s) => s.metadata?.labels?.["kubernetes.io/service-name"] === svc.metadata?.name,
  );
  const sp = slice?.ports?.find(
    (p) => (p.name ?? "") === (port.name ?? "") && p.protocol === port.protocol,
  );
  if (slice === undefined || sp === undefined) return [];
  return slice.endpoints.map((e) => ({
    dest: `${e.addresses[0]}:${sp.port}`,
    local: e.nodeName === "test-node",
    ready: e.conditions?.ready ?? true,
    servingTerminating: (e.conditions?.serving ?? true) && (e.conditions?.terminating ?? false),
  }));
}

function usable(eps: readonly Ep[]): Ep[] {
  const ready = eps.filter((e) => e.ready);
  return ready.length > 0 ? ready : eps.filter((e) => e.servingTerminating);
}

const dataplanes = new WeakMap<GeneratedCluster, ReturnType<typeof buildNodeDataplane>>();
function outcomes(
  g: GeneratedCluster,
  proto: TraceProtocol,
  src: string,
  dst: string,
  dport: number,
) {
  let dp = dataplanes.get(g);
  if (dp === undefined) {
    dp = buildNodeDataplane(g.cluster, { proxyConfig: FAKE_CONFIG, node: FAKE_NODE });
    dataplanes.set(g, dp);
  }
  return trace(dp, { proto, src, dst, dport }).outcomes;
}

const lower = (p: string | undefined): TraceProtocol => (p ?? "TCP").toLowerCase() as TraceProtocol;
const servicePorts = (g: GeneratedCluster): [Service, ServicePort][] =>
  g.services.flatMap((s) => (s.spec?.ports ?? []).map((p): [Service, ServicePort] => [s, p]));

describe("traffic invariants", () => {
  const otherProtocol = reached();
  const etpLocal = reached();
  test.prop([kubeCluster({ minServices: 1, maxServices: 3 })], { numRuns: 60 })(
    "a pod's ClusterIP packet reaches exactly the usable endpoints, each with 1/n, or is refused",
    (g) => {
      // minServices 1, and a Service has 1-3 ports.
      expect(servicePorts(g).length).toBeGreaterThan(0);
      for (const [svc, port] of servicePorts(g)) {
        const all = endpointsOf(g, svc, port);
        const local = svc.spec?.internalTrafficPolicy === "Local";
        const anywhere = usable(all);
        const chosen = local
          ? all.some((e) => e.local && e.ready)
            ? all.filter((e) => e.local && e.ready)
            : all.filter((e) => e.local && e.servingTerminating)
          : anywhere;
        const got = outcomes(g, lower(port.protocol), POD, svc.spec!.clusterIP!, port.port);
        if (chosen.length === 0) {
          // No usable endpoint anywhere: REJECT; usable only elsewhere with iTP Local: DROP.
          const hasAny = all.some((e) => e.ready || e.servingTerminating);
          expect(got.map((o) => o.verdict)).toEqual([hasAny ? "DROP" : "REJECT"]);
          continue;
        }
        const dests = [...new Set(chosen.map((e) => e.dest))].sort();
        expect(got.map((o) => o.destination).sort()).toEqual(dests);
        for (const o of got) {
          expect(o.verdict).toBe("DNAT");
          expect(o.probability).toBeCloseTo(1 / dests.length, 9);
          expect(o.masquerade).toBe(false);
        }
      }
    },
  );

  test.prop(
    [
      kubeCluster({ minServices: 1, maxServices: 3 }),
      fc.constantFrom<TraceProtocol>("tcp", "udp", "sctp"),
    ],
    {
      numRuns: 60,
    },
  )("a protocol never reaches another protocol's service port", (g, proto) => {
    for (const [svc, port] of servicePorts(g)) {
      const sameNumber = (svc.spec?.ports ?? [])
        .filter((p) => p.port === port.port)
        .map((p) => lower(p.protocol));
      if (sameNumber.includes(proto)) continue;
      const got = outcomes(g, proto, POD, svc.spec!.clusterIP!, port.port);
      expect(got.map((o) => o.verdict)).toEqual(["NONE"]);
      otherProtocol.hit();
    }
  });
  otherProtocol.testReached("service ports probed with another protocol", 20);

  test.prop(
    [
      kubeCluster({
        minServices: 1,
        maxServices: 3,
        service: { types: ["NodePort", "LoadBalancer"] },
      }),
    ],
    {
      numRuns: 60,
    },
  )(
    "externalTrafficPolicy Local: external traffic is never masqueraded and only reaches local endpoints",
    (g) => {
      for (const [svc, port] of servicePorts(g)) {
        if (svc.spec?.externalTrafficPolicy !== "Local" || port.nodePort === undefined) continue;
        const all = endpointsOf(g, svc, port);
        const localDests = new Set(all.filter((e) => e.local).map((e) => e.dest));
        const got = outcomes(g, lower(port.protocol), EXTERNAL, NODE_IP, port.nodePort);
        expect(got.length).toBeGreaterThan(0);
        for (const o of got) {
          expect(o.masquerade).toBe(false);
          if (o.verdict === "DNAT") expect(localDests).toContain(o.destination);
          else expect(["DROP", "REJECT"]).toContain(o.verdict);
        }
        etpLocal.hit();
      }
    },
  );
  etpLocal.testReached("NodePorts with externalTrafficPolicy Local", 5);
});
