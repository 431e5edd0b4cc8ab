// kube-netsim's model of kube-proxy's nftables proxier passes the SCTP test plan and the service
// suite (issue 13 §6); the plan's nftables-named test fails when the SCTP map keys are lost.
import { expect, test } from "@jest/globals";
import {
  applicableTests,
  describeNetworkPolicyConformance,
  describeSctpConformance,
  describeServiceConformance,
  kubeProxyNftables,
  runSctpPlan,
  sctpCluster,
  sctpNode,
  type AdapterInput,
  type ConformanceAdapter,
  type NodeState,
} from "../../../src/testing/index.js";
import { adapterInput } from "../../../src/testing/conformance/scenario.js";

describeSctpConformance(kubeProxyNftables);
describeServiceConformance(kubeProxyNftables, { numRuns: 10 });
describeNetworkPolicyConformance(kubeProxyNftables, { numRuns: 10 });

test("the plan names the services test after the nftables proxier", () => {
  const names = applicableTests(kubeProxyNftables).map((t) => t.name);
  expect(names).toContain("Services can declare SCTP ServicePorts when using the nftables proxier");
  expect(names).not.toContain(
    "Services can declare SCTP ServicePorts when using the iptables proxier",
  );
});

test("the adapter's state is nftables text (and kubenet's iptables hostport rules)", async () => {
  const state = await kubeProxyNftables.nodeState(adapterInput(sctpCluster(), sctpNode()));
  expect(state.nftables).toMatch(/^table ip kube-proxy \{/);
  expect(state.iptables?.IPv4).toContain("-p sctp");
  expect(state.ipvs).toBeUndefined();
});

test("SCTP service keys rewritten to TCP fail exactly the service tests, naming the nftables path", async () => {
  const broken: ConformanceAdapter = {
    ...kubeProxyNftables,
    name: "nftables with tcp keys",
    async nodeState(input: AdapterInput): Promise<NodeState> {
      const s = await kubeProxyNftables.nodeState(input);
      return { ...s, nftables: (s.nftables ?? "").replace(/ \. sctp \. /g, " . tcp . ") };
    },
  };
  const results = await runSctpPlan(broken);
  const failed = results.filter((r) => r.failures.length > 0);
  expect(failed.map((r) => r.name)).toEqual([
    "Services can declare SCTP ServicePorts when using the nftables proxier",
    "A pod can connect to another pod via SCTP via a Service IP",
    "A pod can connect to another pod via SCTP via a Load Balancer",
  ]);
  const message = failed[0]?.failures.join("\n\n") ?? "";
  // SCTP to the cluster IP is rejected by the proxier's cluster-ips check (no SCTP element)...
  expect(message).toMatch(
    /probe SCTP sctp-test\/client → 10\.96\.\d+\.\d+:5000 through nftables with tcp keys\n {2}expected: delivered to 10\.244\.1\.20:5000[^\n]*\n {2}traced: {3}rejected\n[^]*ip kube-proxy\/cluster-ips-check#1/,
  );
  // (TCP still goes nowhere: the endpoint chain DNATs only `meta l4proto sctp`.)
  expect(failed[0]?.failures).toHaveLength(1);
});
