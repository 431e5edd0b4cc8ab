// The Service and hostPort properties over dual-stack and IPv6 clusters (`families`): the cases
// reach both families, kube-proxy's proxiers and kubenet's hostports hold them, and a dataplane
// that writes only IPv4 rules fails them on an IPv6 probe while it passes on an IPv4 cluster.
import { expect, test } from "@jest/globals";
import fc from "fast-check";
import { nodeHostPortCase } from "../../../src/testing/arbitraries/nodeHostPortCase.js";
import { nodeServiceCase } from "../../../src/testing/arbitraries/nodeServiceCase.js";
import {
  hostPortsReachPods,
  kubenetHostports,
  kubeProxyIptables,
  kubeProxyNftables,
  nodePortsReachable,
  noEndpointServicesReject,
  servicesReachOnlyReadyEndpoints,
  type ConformanceAdapter,
} from "../../../src/testing/index.js";

const PARAMS = { numRuns: 12, seed: 7 };
const DUAL = ["IPv4", "IPv6"] as const;

test("dual-stack cases probe both families, through single- and dual-stack Services", () => {
  const cases = fc.sample(nodeServiceCase({ families: DUAL }), { seed: 3, numRuns: 60 });
  expect(cases.length).toBe(60);
  const v6 = cases.filter((c) => c.family === "IPv6");
  expect(v6.length).toBeGreaterThan(0);
  expect(cases.some((c) => c.family === "IPv4")).toBe(true);
  for (const c of v6) {
    expect(c.probe.to).toBe("fd00:10:96::50");
    for (const t of c.readyTargets) expect(t).toMatch(/^\[fd00:10:244:[12]::[0-9a-f]+\]:800\d$/);
  }
  const policies = new Set(cases.map((c) => c.cluster.services[0]?.spec?.ipFamilyPolicy));
  expect(policies).toEqual(new Set(["SingleStack", "RequireDualStack"]));
  // One EndpointSlice per family of the Service, over the same endpoints.
  for (const c of cases) {
    const svcFamilies = c.cluster.services[0]?.spec?.ipFamilies ?? [];
    const slices = c.cluster.endpointSlices;
    if (slices.length === 0) continue;
    expect(slices.map((s) => s.addressType)).toEqual(svcFamilies);
  }
});

test.each([
  { adapter: kubeProxyIptables, families: DUAL },
  { adapter: kubeProxyNftables, families: ["IPv6"] as const },
])("$adapter.name holds the Service properties on $families", async ({ adapter, families }) => {
  await expect(
    fc.assert(servicesReachOnlyReadyEndpoints(adapter, { families }), PARAMS),
  ).resolves.toBeUndefined();
  await expect(
    fc.assert(nodePortsReachable(adapter, { families }), PARAMS),
  ).resolves.toBeUndefined();
  await expect(
    fc.assert(noEndpointServicesReject(adapter, { families }), PARAMS),
  ).resolves.toBeUndefined();
});

test("a dataplane that writes only IPv4 rules passes on IPv4 and fails on an IPv6 probe", async () => {
  const v4Only: ConformanceAdapter = {
    name: "IPv4 only",
    features: ["services"],
    nodeState: async (input) => {
      const state = await kubeProxyIptables.nodeState(input);
      return { ...state, iptables: { IPv4: state.iptables?.IPv4 ?? "" } };
    },
  };
  await expect(fc.assert(servicesReachOnlyReadyEndpoints(v4Only), PARAMS)).resolves.toBeUndefined();
  const e = await fc
    .assert(servicesReachOnlyReadyEndpoints(v4Only, { families: DUAL }), PARAMS)
    .then(
      () => undefined,
      (x: unknown) => x,
    );
  expect(e).toBeInstanceOf(Error);
  expect(String((e as Error).cause)).toMatch(
    /IPv4 only: (TCP|UDP|SCTP) default\/client → \[fd00:10:96::50\]:8\d: expected delivery to one of \[fd00:10:244:[12]::[0-9a-f]+\]:800\d/,
  );
});

test("hostPort cases probe the node in both families; kubenet hostports hold them, IPv4-only rules do not", async () => {
  const cases = fc.sample(nodeHostPortCase({ families: DUAL }), { seed: 3, numRuns: 40 });
  expect(cases.length).toBe(40);
  const v6 = cases.filter((c) => c.family === "IPv6");
  expect(v6.length).toBeGreaterThan(0);
  expect(cases.some((c) => c.family === "IPv4")).toBe(true);
  for (const c of v6) {
    expect(c.probe.to).toBe("fd00:192:168::10");
    expect(c.target).toMatch(/^\[fd00:10:244:1::3[0-2]\]:(8\d|90)$/);
  }
  for (const families of [DUAL, ["IPv6"] as const])
    await expect(
      fc.assert(hostPortsReachPods(kubenetHostports, { families }), PARAMS),
    ).resolves.toBeUndefined();
  const v4Only: ConformanceAdapter = {
    name: "IPv4 hostports only",
    features: ["hostPorts"],
    nodeState: async (input) => {
      const state = await kubenetHostports.nodeState(input);
      return { ...state, iptables: { IPv4: state.iptables?.IPv4 ?? "" } };
    },
  };
  await expect(fc.assert(hostPortsReachPods(v4Only), PARAMS)).resolves.toBeUndefined();
  const e = await fc.assert(hostPortsReachPods(v4Only, { families: ["IPv6"] }), PARAMS).then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(Error);
  expect(String((e as Error).cause)).toMatch(
    /IPv4 hostports only: (TCP|UDP|SCTP) external → \[fd00:192:168::10\]:808\d \(hostPort\): expected delivery to \[fd00:10:244:1::3[0-2]\]/,
  );
});
