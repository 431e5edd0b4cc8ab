// The NetworkPolicy properties hold for the example plugin (tinypol) and fail, shrunk and
// explained, for a dataplane that enforces no policy.
import { expect, test } from "@jest/globals";
import fc from "fast-check";
import { join } from "node:path";
import {
  kubeProxyIptables,
  noSctpSocketsOpened,
  policyVerdictsMatchReference,
  sctpPolicyNeverAdmitsTcpOrUdp,
  type ConformanceAdapter,
} from "../../../src/testing/index.js";

const PLUGIN = join(__dirname, "../../../examples/plugin-repo-cjs/src/netpol-plugin.ts");
const load = (): Promise<{ readonly tinypol: ConformanceAdapter }> =>
  import(PLUGIN) as Promise<{ readonly tinypol: ConformanceAdapter }>;
const PARAMS = { numRuns: 15, seed: 42 };

/** The error a property failed with (fast-check reports it as the failure's cause). */
async function causeOf(run: Promise<void>): Promise<string> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return String((error as Error).cause);
}

const noPolicy: ConformanceAdapter = {
  name: "no policy",
  features: ["networkPolicy"],
  nodeState: () => ({
    iptables: {
      IPv4: "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n",
    },
  }),
};

test("tinypol: SCTP-only policies never admit TCP or UDP, and every verdict equals evaluatePolicy's", async () => {
  const { tinypol } = await load();
  await expect(fc.assert(sctpPolicyNeverAdmitsTcpOrUdp(tinypol), PARAMS)).resolves.toBeUndefined();
  await expect(fc.assert(policyVerdictsMatchReference(tinypol), PARAMS)).resolves.toBeUndefined();
});

test("a dataplane without policy fails both policy properties with the probe named", async () => {
  expect(await causeOf(fc.assert(sctpPolicyNeverAdmitsTcpOrUdp(noPolicy), PARAMS))).toMatch(
    /no policy: (TCP|UDP) ns\/p\d → 10\.244\.1\.\d+:\d+ was delivered, but every policy selecting ns\/p\d allows only SCTP/,
  );
  expect(await causeOf(fc.assert(policyVerdictsMatchReference(noPolicy), PARAMS))).toMatch(
    /no policy: (TCP|UDP|SCTP) ns\/p\d → .*: evaluatePolicy says denied, traced delivered to/,
  );
});

test("kube-proxy and kubelet (kubenet) open no SCTP sockets for host ports", async () => {
  await expect(fc.assert(noSctpSocketsOpened(kubeProxyIptables), PARAMS)).resolves.toBeUndefined();
  const opensAll: ConformanceAdapter = {
    name: "greedy",
    features: [],
    nodeState: ({ pods }) => ({
      iptables: { IPv4: "*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n" },
      sockets: pods.flatMap((p) =>
        (p.spec?.containers ?? []).flatMap((c) =>
          (c.ports ?? []).map((port) => ({
            protocol: (port.protocol ?? "TCP").toLowerCase() as "tcp" | "udp" | "sctp",
            port: port.hostPort ?? 0,
          })),
        ),
      ),
    }),
  };
  expect(await causeOf(fc.assert(noSctpSocketsOpened(opensAll), PARAMS))).toMatch(
    /greedy opens SCTP sockets on ports/,
  );
});
