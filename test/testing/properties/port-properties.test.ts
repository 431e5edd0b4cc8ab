// NodePorts and hostPorts reach their backends through kube-proxy (iptables, IPVS, nftables) and kubenet's
// hostport rules, and the properties fail for a dataplane without those rules.
import { expect, test } from "@jest/globals";
import fc from "fast-check";
import {
  hostPortsReachPods,
  kubeProxyIptables,
  kubeProxyIpvs,
  kubeProxyNftables,
  kubenetHostports,
  nodePortsReachable,
  type ConformanceAdapter,
} from "../../../src/testing/index.js";

const PARAMS = { numRuns: 12, seed: 5 };

test.each([kubeProxyIptables, kubeProxyIpvs, kubeProxyNftables])(
  "$name: NodePorts reach ready endpoints",
  async (adapter) => {
    await expect(fc.assert(nodePortsReachable(adapter), PARAMS)).resolves.toBeUndefined();
  },
);

test.each([kubenetHostports, kubeProxyIptables, kubeProxyIpvs, kubeProxyNftables])(
  "$name: hostPorts reach their pods",
  async (adapter) => {
    await expect(fc.assert(hostPortsReachPods(adapter), PARAMS)).resolves.toBeUndefined();
  },
);

test("without the rules both fail, naming the probe", async () => {
  const none: ConformanceAdapter = {
    name: "none",
    features: ["services", "hostPorts"],
    nodeState: () => ({ iptables: { IPv4: "*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n" } }),
  };
  const cause = async (run: Promise<void>): Promise<string> => {
    const e = await run.then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(Error);
    return String((e as Error).cause);
  };
  expect(await cause(fc.assert(nodePortsReachable(none), PARAMS))).toMatch(
    /none: (TCP|UDP|SCTP) external → 192\.168\.0\.10:3008\d \(NodePort\): expected delivery to one of 10\.244\.\d\.\d+:800\d/,
  );
  expect(await cause(fc.assert(hostPortsReachPods(none), PARAMS))).toMatch(
    /none: (TCP|UDP|SCTP) external → 192\.168\.0\.10:808\d \(hostPort\): expected delivery to 10\.244\.1\.3\d:\d+, traced delivered to 192\.168\.0\.10:808\d/,
  );
});
