// A plugin's unit test: build a cluster in code, then ask kube-netsim what NetworkPolicy says.
import type {} from "kube-netsim/jest"; // the matchers' types; jest.config.js registers them
import { evaluatePolicy } from "kube-netsim";
import { cluster, networkPolicy, pod } from "kube-netsim/testing";

const onlySctp = cluster(
  pod("default/client", { ip: "10.244.1.10", labels: { app: "client" } }),
  pod("default/server", {
    ip: "10.244.1.20",
    labels: { app: "server" },
    ports: [{ containerPort: 5000, protocol: "SCTP" }],
  }),
  networkPolicy("default/allow-sctp-5000", {
    podSelector: { matchLabels: { app: "server" } },
    ingress: [{ ports: [{ protocol: "SCTP", port: 5000 }] }],
  }),
);

test("a NetworkPolicy matching an SCTP port does not allow TCP", () => {
  expect(onlySctp).toDeny({
    from: "default/client",
    to: "default/server",
    port: 5000,
    protocol: "TCP",
  });
  const sctp = evaluatePolicy(onlySctp, {
    from: "default/client",
    to: "default/server",
    port: 5000,
    protocol: "SCTP",
  });
  expect(sctp.allowed).toBe(true);
});
