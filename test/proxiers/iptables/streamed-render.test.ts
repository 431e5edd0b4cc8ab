/**
 * The text-only path (`restoreOnly`, what `render iptables` prints) plans and writes one service
 * port at a time (`familyPlanSource`, `writeRuleSetFrom`), without a plan of the whole cluster.
 * Its bytes must be those of the data path: the whole plan (`planFamily`) written with its
 * clauses, and the typed rule set printed by the formatter (an independent printer). Large-cluster
 * mode is decided from an endpoint bound before planning and corrected afterwards: clusters whose
 * bound and count fall on either side of the 1,000 threshold are checked on purpose.
 */
import { describe, expect } from "@jest/globals";
import { fc, test } from "@fast-check/jest";
import type { Cluster } from "../../../src/model/cluster.js";
import { formatIptablesRestore } from "../../../src/netfilter/format/restore.js";
import { makeCluster } from "../../../src/model/cluster.js";
import type { Service } from "../../../src/model/kinds.js";
import {
  compareServicePorts,
  familyPlanSource,
  planFamily,
} from "../../../src/proxiers/common/plan.js";
import { servicePortKey } from "../../../src/proxiers/common/endpoint.js";
import {
  servicePortsForFamily,
  type ServicePort,
} from "../../../src/proxiers/common/service-port.js";
import { proxierSettings } from "../../../src/proxiers/common/proxier-settings.js";
import { renderIptablesFamilies } from "../../../src/proxiers/iptables/render.js";
import { kubeCluster } from "../../../src/testing/arbitraries/kubeCluster.js";
import { cluster } from "../../../src/testing/builders/cluster.js";
import { endpoints, type EndpointOptions } from "../../../src/testing/builders/endpoints.js";
import { nodeEnv } from "../../../src/testing/builders/node-env.js";
import { service } from "../../../src/testing/builders/service.js";
import type { NodeEnvironment } from "../../../src/model/node-environment.js";
import { FAKE_CONFIG, FAKE_NODE } from "./helpers.js";

/** Both paths' texts per family: [streamed text only, whole plan with clauses, formatter]. */
function texts(c: Cluster, node: NodeEnvironment, largeClusterMode?: boolean): string[][] {
  const opts = {
    node,
    proxyConfig: FAKE_CONFIG,
    ...(largeClusterMode === undefined ? {} : { largeClusterMode }),
  };
  const streamed = renderIptablesFamilies(c, { ...opts, restoreOnly: true });
  const whole = renderIptablesFamilies(c, opts);
  expect(streamed.map((f) => f.family)).toEqual(whole.map((f) => f.family));
  return streamed.map((f, i) => {
    const w = whole[i]!;
    return [f.restore, w.restore, formatIptablesRestore(w.payload)];
  });
}

function expectSameText(c: Cluster, node: NodeEnvironment, largeClusterMode?: boolean): string {
  const all = texts(c, node, largeClusterMode);
  expect(all.length).toBeGreaterThan(0);
  for (const [streamed, whole, formatted] of all) {
    expect(streamed).toBe(whole);
    expect(streamed).toBe(formatted);
  }
  return all[0]![0]!;
}

/** `n` endpoints 10.1.x.y, ready, half on this node. */
function addresses(n: number, from = 0): EndpointOptions[] {
  return Array.from({ length: n }, (_, i) => ({
    ip: `10.1.${(from + i) >> 8}.${(from + i) & 255}`,
    node: i % 2 === 0 ? "test-node" : "other",
  }));
}

const PORTS = [{ name: "p", port: 8080, protocol: "TCP" as const }];
const svc = (name: string) =>
  service(`ns/${name}`, { ports: [{ name: "p", port: 80, protocol: "TCP" }] });
/** Large-cluster mode drops the SEP rules' comments. */
const commented = (text: string) => /-A KUBE-SEP-\S+ -m comment/.test(text);

describe("render iptables, text only: the bytes of the whole-plan data path", () => {
  test.prop([kubeCluster({ maxServices: 6 }), fc.option(fc.boolean(), { nil: undefined })], {
    numRuns: 80,
    seed: 5,
  })("random clusters, large-cluster mode by count or forced", (g, large) => {
    expectSameText(g.cluster, FAKE_NODE, large);
  });

  // The plan's order, read plainly: every service port in input order, the first of a repeated
  // (namespace, name, port name, protocol) kept, then sorted by compareServicePorts. The source
  // makes each Service's ports only when it comes; repeated Services (the same namespace and
  // name twice, with other ports) are made on purpose.
  test.prop(
    [
      kubeCluster({ maxServices: 6 }),
      fc.array(
        fc.record({
          of: fc.nat(),
          name: fc.constantFrom("", "a", "p"),
          port: fc.integer({ min: 1, max: 65535 }),
          protocol: fc.constantFrom("TCP" as const, "UDP" as const),
        }),
        { maxLength: 4 },
      ),
    ],
    { numRuns: 100, seed: 9 },
  )("service ports in compareServicePorts order, the first of a repeated one kept", (g, more) => {
    const repeats = g.services.length === 0 ? [] : more;
    const services: Service[] = [
      ...g.services,
      ...repeats.map(({ of, name, port, protocol }): Service => {
        const s = g.services[of % g.services.length]!;
        return { ...s, spec: { ...s.spec, ports: [{ name, port, protocol }] } };
      }),
    ];
    const c = makeCluster({ services, endpointSlices: g.endpointSlices });
    const settings = proxierSettings(c, "IPv4", { node: FAKE_NODE, proxyConfig: FAKE_CONFIG });
    const seen = new Set<string>();
    const expected: ServicePort[] = [];
    for (const svc of services) {
      for (const sp of servicePortsForFamily(svc, "IPv4")) {
        const key = servicePortKey(sp.namespace, sp.serviceName, sp.portName, sp.protocol);
        if (seen.has(key)) continue;
        seen.add(key);
        expected.push(sp);
      }
    }
    expected.sort(compareServicePorts);
    const planned: ServicePort[] = [];
    familyPlanSource(c, settings).forEach((p) => planned.push(p.servicePort));
    expect(planned).toEqual(expected);
    expect(planFamily(c, settings).servicePorts.map((p) => p.servicePort)).toEqual(expected);
  });

  test("the plan is still there when read, equal to planFamily's", () => {
    const c = cluster(svc("a"), endpoints("ns/a", { ports: PORTS, endpoints: addresses(3) }));
    const [f] = renderIptablesFamilies(c, { node: FAKE_NODE, restoreOnly: true });
    const settings = proxierSettings(c, "IPv4", { node: FAKE_NODE });
    expect(f!.plan).toEqual(planFamily(c, settings));
  });

  test("the source plans the same service ports as planFamily, and counts the same endpoints", () => {
    const c = cluster(
      svc("a"),
      svc("b"),
      endpoints("ns/a", { ports: PORTS, endpoints: addresses(4) }),
      // The same endpoints twice (two slices): listed 8 times, 4 endpoints.
      endpoints("ns/b", { ports: PORTS, endpoints: addresses(4), sliceName: "b-1" }),
      endpoints("ns/b", { ports: PORTS, endpoints: addresses(4), sliceName: "b-2" }),
    );
    const settings = proxierSettings(c, "IPv4", { node: FAKE_NODE });
    const source = familyPlanSource(c, settings);
    const plans: unknown[] = [];
    const total = source.forEach((p) => plans.push(p));
    const whole = planFamily(c, settings);
    expect(plans).toEqual(whole.servicePorts);
    expect(total).toBe(whole.totalEndpoints);
    expect(total).toBe(8);
    expect(source.endpointBound).toBe(12);
    expect(source.servicePortCount).toBe(2);
  });

  // 600 endpoints listed twice: a bound of 1,200 (large) for a count of 600 (not large), so the
  // rules written for the bound are written again, with comments.
  test("bound above the threshold, count below: not large, as the data path", () => {
    const c = cluster(
      svc("a"),
      endpoints("ns/a", { ports: PORTS, endpoints: addresses(600), sliceName: "a-1" }),
      endpoints("ns/a", { ports: PORTS, endpoints: addresses(600), sliceName: "a-2" }),
    );
    expect(commented(expectSameText(c, FAKE_NODE))).toBe(true);
  });

  test("bound and count above the threshold: large, as the data path", () => {
    const c = cluster(
      svc("a"),
      svc("b"),
      endpoints("ns/a", { ports: PORTS, endpoints: addresses(600) }),
      endpoints("ns/b", { ports: PORTS, endpoints: addresses(401, 600) }),
    );
    expect(commented(expectSameText(c, FAKE_NODE))).toBe(false);
  });

  test("exactly at the threshold: not large", () => {
    const c = cluster(svc("a"), endpoints("ns/a", { ports: PORTS, endpoints: addresses(1000) }));
    expect(commented(expectSameText(c, FAKE_NODE))).toBe(true);
  });

  // A dual-stack node: each family's bound counts the other family's slices too.
  test("dual stack: each family counts its own endpoints", () => {
    const node = nodeEnv({
      name: "test-node",
      ipFamilies: ["IPv4", "IPv6"],
      ips: ["192.168.0.2", "fd00::2"],
    });
    const v6 = Array.from({ length: 700 }, (_, i) => ({ ip: `fd00:1::${(i + 1).toString(16)}` }));
    const c = cluster(
      service("ns/a", {
        ipFamilyPolicy: "RequireDualStack",
        ipFamilies: ["IPv4", "IPv6"],
        clusterIPs: ["10.96.0.10", "fd00:10:96::10"],
        ports: [{ name: "p", port: 80, protocol: "TCP" }],
      }),
      endpoints("ns/a", { ports: PORTS, endpoints: addresses(700) }),
      endpoints("ns/a", { ports: PORTS, endpoints: v6 }),
    );
    const all = texts(c, node);
    expect(all).toHaveLength(2);
    for (const [streamed, whole, formatted] of all) {
      expect(streamed).toBe(whole);
      expect(streamed).toBe(formatted);
      expect(commented(streamed!)).toBe(true);
    }
  });
});
