// A plugin's unit test in native ESM: render kube-proxy's rules for a cluster built in code and
// trace a packet through them.
import { expect, test } from "@jest/globals";
import type {} from "kube-netsim/jest"; // the matchers' types; jest.config.js registers them
import { buildNodeDataplane, trace } from "kube-netsim";
import { cluster, endpoints, nodeEnv, pod, proxyConfig, service } from "kube-netsim/testing";

test("an SCTP ClusterIP Service reaches its one ready endpoint", () => {
  const c = cluster(
    pod("default/server", {
      ip: "10.244.1.5",
      node: "node-1",
      labels: { app: "server" },
      ports: [{ containerPort: 9999, protocol: "SCTP" }],
    }),
    service("default/sctp", {
      clusterIP: "10.96.0.50",
      selector: { app: "server" },
      ports: [{ port: 9999, protocol: "SCTP" }],
    }),
    endpoints("default/sctp", {
      ports: [{ port: 9999, protocol: "SCTP" }],
      endpoints: [{ ip: "10.244.1.5", node: "node-1" }],
    }),
  );
  const dataplane = buildNodeDataplane(c, {
    proxyConfig: proxyConfig(),
    node: nodeEnv({ name: "node-1", ips: ["192.168.0.2"] }),
  });
  const result = trace(dataplane, {
    proto: "sctp",
    src: "10.244.2.9",
    dst: "10.96.0.50",
    dport: 9999,
  });
  expect(result).toReach("10.244.1.5:9999");
});
