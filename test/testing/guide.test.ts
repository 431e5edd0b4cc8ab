/**
 * docs/testing.md's examples, run as written (with the package's subpaths replaced by the
 * modules they re-export), so the guide stays true.
 */
import { describe, expect, test } from "@jest/globals";
import fc from "fast-check";
import "../../src/jest/index.js";
import { buildNodeDataplane, evaluatePolicy, trace } from "../../src/index.js";
import {
  arbPolicyCluster,
  cluster,
  endpoints,
  namespace,
  networkPolicy,
  nodeEnv,
  pod,
  proxyConfig,
  service,
} from "../../src/testing/index.js";

const c = cluster(
  namespace("shop", { labels: { team: "web" } }),
  pod("shop/server", {
    ip: "10.244.1.5",
    node: "node-1",
    labels: { app: "server" },
    ports: [{ containerPort: 9999, protocol: "SCTP" }],
  }),
  pod("shop/client", { ip: "10.244.2.9", labels: { app: "client" } }),
  service("shop/sctp", {
    clusterIP: "10.96.0.50",
    selector: { app: "server" },
    ports: [{ port: 9999, protocol: "SCTP" }],
  }),
  endpoints("shop/sctp", {
    ports: [{ port: 9999, protocol: "SCTP" }],
    endpoints: [{ ip: "10.244.1.5", node: "node-1" }],
  }),
  networkPolicy("shop/allow-sctp", {
    podSelector: { matchLabels: { app: "server" } },
    ingress: [{ ports: [{ protocol: "SCTP", port: 9999 }] }],
  }),
);
const node = nodeEnv({ name: "node-1", ips: ["192.168.0.2"] });
const config = proxyConfig();

describe("docs/testing.md", () => {
  test("one matcher", () => {
    expect(c).toDeny({ from: "shop/client", to: "shop/server", port: 9999, protocol: "TCP" });
    expect(c).toAllow({ from: "shop/client", to: "shop/server", port: 9999, protocol: "SCTP" });
  });

  test("all the matchers", () => {
    const r = trace(buildNodeDataplane(c, { proxyConfig: config, node }), {
      proto: "sctp",
      src: "10.244.2.9",
      dst: "10.96.0.50",
      dport: 9999,
    });
    expect(r).toReach("10.244.1.5:9999");
    expect(c).toMatchTruthTable(
      `
-            shop/client shop/server
shop/client  .           X
shop/server  .           .
`,
      { port: 9999, protocol: "TCP" },
    );
  });

  test("arbitraries", () => {
    // The guide's property as written; fc.assert throws on a counterexample.
    expect(() =>
      fc.assert(
        fc.property(arbPolicyCluster(), (c) => {
          for (const p of c.pods) {
            const self = `${p.metadata?.namespace}/${p.metadata?.name}`;
            if (!evaluatePolicy(c, { from: self, to: self, port: 80 }).allowed) return false;
          }
          return true;
        }),
        { seed: 1, numRuns: 50 },
      ),
    ).not.toThrow();
  });
});
