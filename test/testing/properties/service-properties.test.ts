// The service properties hold for kube-proxy's iptables, IPVS and nftables proxiers, and fail for a
// dataplane that has no service rules.
import { expect, test } from "@jest/globals";
import fc from "fast-check";
import {
  kubeProxyIptables,
  kubeProxyIpvs,
  kubeProxyNftables,
  noEndpointServicesReject,
  servicesReachOnlyReadyEndpoints,
  type ConformanceAdapter,
} from "../../../src/testing/index.js";

const PARAMS = { numRuns: 12, seed: 7 };

test.each([kubeProxyIptables, kubeProxyIpvs, kubeProxyNftables])(
  "$name: services reach only ready endpoints; no endpoints rejects",
  async (adapter) => {
    await expect(
      fc.assert(servicesReachOnlyReadyEndpoints(adapter), PARAMS),
    ).resolves.toBeUndefined();
    await expect(fc.assert(noEndpointServicesReject(adapter), PARAMS)).resolves.toBeUndefined();
  },
);

test("a dataplane without service rules fails both, naming the probe", async () => {
  const none: ConformanceAdapter = {
    name: "no services",
    features: ["services"],
    nodeState: () => ({
      iptables: {
        IPv4: "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n",
      },
    }),
  };
  const cause = async (run: Promise<void>): Promise<string> => {
    const e = await run.then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(Error);
    return String((e as Error).cause);
  };
  expect(await cause(fc.assert(servicesReachOnlyReadyEndpoints(none), PARAMS))).toMatch(
    /no services: (TCP|UDP|SCTP) default\/client → 10\.96\.\d+\.\d+:8\d: expected delivery to one of 10\.244\.\d\.\d+:800\d/,
  );
  expect(await cause(fc.assert(noEndpointServicesReject(none), PARAMS))).toMatch(
    /has no ready endpoint: expected rejected, traced delivered to 10\.96\./,
  );
});
