// The same library from node:test, no jest: Node's own ESM resolution of the package.
import assert from "node:assert/strict";
import { test } from "node:test";
import { evaluatePolicy } from "kube-netsim";
import { cluster, networkPolicy, pod } from "kube-netsim/testing";

test("a NetworkPolicy matching an SCTP port does not allow UDP", () => {
  const c = cluster(
    pod("default/client", { ip: "10.244.1.10" }),
    pod("default/server", { ip: "10.244.1.20", labels: { app: "server" } }),
    networkPolicy("default/allow-sctp-5000", {
      podSelector: { matchLabels: { app: "server" } },
      ingress: [{ ports: [{ protocol: "SCTP", port: 5000 }] }],
    }),
  );
  const q = { from: "default/client", to: "default/server", port: 5000 };
  assert.equal(evaluatePolicy(c, { ...q, protocol: "UDP" }).allowed, false);
  assert.equal(evaluatePolicy(c, { ...q, protocol: "SCTP" }).allowed, true);
});
