/**
 * The differential property, nftables mode: for random clusters and packets from a local pod,
 * the node and outside, the nftables proxier's dataplane delivers a new connection to the same
 * endpoints as the iptables proxier's, unless a documented difference (differences.ts) applies.
 */
import { describe, expect } from "@jest/globals";
import { fc, it } from "@fast-check/jest";
import { buildNodeDataplane } from "../../../src/node/node-dataplane.js";
import { trace } from "../../../src/netfilter/trace/index.js";
import { observe, show } from "../../differential/observe.js";
import {
  V4,
  V6,
  clusterOf,
  packetsFor,
  scenarioOf,
  serviceSpecArb,
} from "../../differential/scenario.js";
import { explainNftDisagreement, NFT_DIFFERENCES } from "./differences.js";
import { FEATURE_CASES } from "./feature-cases.js";

describe.each([
  [V4.family, V4, 25],
  [V6.family, V6, 15],
] as const)(
  "%s: iptables and nftables proxiers agree on the endpoints",
  (_family, plan, numRuns) => {
    it.prop([fc.array(serviceSpecArb, { minLength: 1, maxLength: 3 })], { numRuns, seed: 1603 })(
      "random clusters, every destination from pod, node and outside",
      (specs) => {
        const services = scenarioOf(specs, plan);
        const cluster = clusterOf(services);
        const opts = { node: plan.node, hostports: false as const };
        const ipt = buildNodeDataplane(cluster, { ...opts, proxyConfig: plan.iptablesConfig });
        const nft = buildNodeDataplane(cluster, {
          ...opts,
          // An empty nodePortAddresses means "primary" in nftables mode: spell out "every address"
          // so both modes take NodePorts on the same addresses.
          proxyConfig: {
            ...plan.iptablesConfig,
            mode: "nftables",
            nodePortAddresses: [plan.family === "IPv4" ? "0.0.0.0/0" : "::/0"],
          },
        });
        let packets = 0;
        for (const s of services)
          for (const p of packetsFor(s)) {
            packets++;
            const spec = { proto: p.proto, src: p.src, dst: p.dst, dport: p.dport, sport: 40000 };
            const a = observe(trace(ipt, spec, { explain: false }));
            const b = observe(trace(nft, spec, { explain: false }));
            const same =
              a.endpoints.size === b.endpoints.size &&
              [...a.endpoints].every((e) => b.endpoints.has(e));
            if (same) continue;
            if (explainNftDisagreement(p, a, b).length === 0)
              throw new Error(
                `undocumented difference: ${p.proto} ${p.src} -> ${p.dst}:${p.dport} (${p.source} to ${p.destination}): iptables ${show(a)}, nftables ${show(b)}`,
              );
          }
        expect(packets).toBeGreaterThan(0);
      },
    );
  },
);

describe("documented differences", () => {
  it("are data with a spec reference each", () => {
    expect(NFT_DIFFERENCES.length).toBeGreaterThan(0);
    for (const d of NFT_DIFFERENCES) expect(d.spec).not.toBe("");
  });
});

describe("each documented difference happens", () => {
  const c = FEATURE_CASES.find((x) => x.name === "tel/sig")!;
  const ipt = buildNodeDataplane(c.cluster, {
    node: c.node,
    hostports: false,
    proxyConfig: { ...c.proxyConfig, mode: "iptables", nodePortAddresses: [] },
  });
  const nft = buildNodeDataplane(c.cluster, {
    node: c.node,
    hostports: false,
    proxyConfig: c.proxyConfig,
  });
  const run = (spec: Parameters<typeof trace>[1]) => ({
    iptables: observe(trace(ipt, spec, { explain: false })),
    nftables: observe(trace(nft, spec, { explain: false })),
  });

  it("no-localhost-nodeports: iptables serves 127.0.0.1:NodePort, nftables does not", () => {
    const r = run({ proto: "sctp", src: "127.0.0.1", dst: "127.0.0.1", dport: 30905 });
    expect(r.iptables.endpoints.size).toBe(1);
    expect(r.nftables.endpoints.size).toBe(0);
  });

  it("cluster-ip-other-port-rejected: REJECT in nftables, no endpoint in either", () => {
    const r = run({ proto: "sctp", src: "10.1.2.3", dst: "172.30.20.7", dport: 9999 });
    expect([...r.nftables.verdicts]).toEqual(["REJECT"]);
    expect([...r.iptables.verdicts]).not.toContain("REJECT");
    expect(r.iptables.endpoints.size + r.nftables.endpoints.size).toBe(0);
  });
});
