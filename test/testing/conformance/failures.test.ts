// The SCTP plan fails a dataplane that does not do its job, and says why.
import { expect, test } from "@jest/globals";
import {
  kubeProxyIptables,
  runSctpPlan,
  type ConformanceAdapter,
} from "../../../src/testing/index.js";

const ACCEPT_ALL =
  "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n";

/** Claims every feature, writes no rules: pods reach each other, nothing else works. */
const nothing: ConformanceAdapter = {
  name: "no rules",
  features: ["services", "hostPorts", "networkPolicy"],
  nodeState: () => ({ iptables: { IPv4: ACCEPT_ALL } }),
};

test("an empty dataplane fails the service, hostPort and policy tests, each probe explained", async () => {
  const results = await runSctpPlan(nothing);
  const failed = results.filter((r) => r.failures.length > 0).map((r) => r.name);
  expect(failed).toEqual([
    "Pods can declare SCTP HostPorts when using kubenet",
    "Services can declare SCTP ServicePorts when using the iptables proxier",
    "A NetworkPolicy matching an SCTP port does not allow TCP or UDP traffic",
    "A pod can connect to another pod via SCTP via a Service IP",
    "A pod can connect to another pod via SCTP via a Load Balancer",
    "NetworkPolicy can be used to allow or deny traffic to SCTP ports",
  ]);
  const policy = results.find((r) => r.name.startsWith("A NetworkPolicy matching"));
  expect(policy?.failures).toHaveLength(2); // TCP and UDP get through; SCTP is allowed anyway
  expect(policy?.failures[0]).toContain(
    "probe TCP sctp-test/client → 10.244.1.20:5000 through no rules",
  );
  expect(policy?.failures[0]).toContain(
    "expected: not delivered to 10.244.1.20:5000 (NetworkPolicy denies it",
  );
  expect(policy?.failures[0]).toContain("traced:   delivered to 10.244.1.20:5000 from 10.244.1.10");
});

test("a dataplane that opens an SCTP socket breaks the sctp.ko side condition", async () => {
  const opensSctp: ConformanceAdapter = {
    name: "sctp listener",
    features: [],
    nodeState: () => ({
      iptables: { IPv4: ACCEPT_ALL },
      sockets: [{ protocol: "sctp", port: 5005 }],
    }),
  };
  const results = await runSctpPlan(opensSctp);
  expect(results.map((r) => r.name)).toEqual([
    "Pods, Services, and NetworkPolicies can declare SCTP ports",
    "if sctp.ko was not loaded before a test, it is not loaded after (node components open no SCTP sockets)",
    "A pod can connect directly to another pod via SCTP",
  ]);
  expect(results[1]?.failures).toEqual([
    "sctp listener opens an SCTP socket on port 5005: opening it loads sctp.ko (kube-proxy and kubelet never do)",
  ]);
});

test("kube-proxy's iptables rules pass every applicable test of the plan", async () => {
  const results = await runSctpPlan(kubeProxyIptables);
  expect(results).toHaveLength(7);
  expect(results.flatMap((r) => r.failures)).toEqual([]);
});
