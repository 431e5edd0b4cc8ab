/**
 * The outcomes' texts that the printer remembers while a packet's outcomes are printed (the
 * source `address:port`, the last address) must still be each outcome's own: here two
 * endpoints, each source-translated to one address with a port of its own, so the outcomes
 * share the source address and differ in the port (and differ in their DNAT destination).
 * Expected values from SNAT's and DNAT's meaning (the address and port given with
 * `--to-source` / `--to-destination`), in every walk, packet after packet.
 */
import { describe, expect, test } from "@jest/globals";
import { parseIptables } from "../../../src/netfilter/index.js";
import { buildDataplane, trace } from "../../../src/netfilter/trace/index.js";
import { twoEndpointServiceRules } from "./builders.js";

/**
 * A Service of two endpoints, each source-translated on the way out (`snat`: each endpoint's
 * `--to-source` and options).
 */
function twoEndpoints(snat: readonly [string, string], file: string) {
  const text = twoEndpointServiceRules(8081, [
    `-A POSTROUTING -p tcp -d 10.244.1.5 -j SNAT --to-source ${snat[0]}`,
    `-A POSTROUTING -p tcp -d 10.245.1.6 -j SNAT --to-source ${snat[1]}`,
  ]);
  return buildDataplane({
    ruleSets: [parseIptables(text, { file, family: "IPv4" })],
    interfaces: [
      { name: "lo", addresses: ["127.0.0.1/8"] },
      { name: "eth0", addresses: ["192.168.0.2/24"] },
      { name: "cbr0", addresses: ["10.244.0.1/15"] },
    ],
  });
}

const dp = twoEndpoints(["10.0.0.9:1000", "10.0.0.9:2000"], "t.rules");

const WALKS = {
  "depth-first": { explain: false, flowCache: false },
  reference: { explain: false, flowCache: false, indexed: false },
  "breadth-first, explained": { flowCache: false },
} as const;

/** Three packets in a row (the second from another port), each traced in `walk`. */
function packets(dataplane: ReturnType<typeof twoEndpoints>, walk: keyof typeof WALKS) {
  return [40000, 40001, 40000].map((sport) =>
    trace(
      dataplane,
      { proto: "tcp", src: "192.168.0.9", sport, dst: "172.30.0.1", dport: 80 },
      WALKS[walk],
    ),
  );
}

describe("texts printed once stay each outcome's own", () => {
  test.each(Object.keys(WALKS) as (keyof typeof WALKS)[])("%s walk", (walk) => {
    for (const r of packets(dp, walk))
      expect(
        r.outcomes.map((o) => [o.destination, o.source, o.conntrack?.reply.src, o.probability]),
      ).toEqual([
        ["10.244.1.5:8080", "10.0.0.9:1000", "10.244.1.5", 0.5],
        ["10.245.1.6:8081", "10.0.0.9:2000", "10.245.1.6", 0.5],
      ]);
  });
});

/**
 * The source port ranges (`sourcePorts`), printed once per range: two endpoints SNATed with
 * `--random` to ranges that start alike and end apart, so each outcome shows its own range
 * (SNAT's meaning: the kernel draws the port from the range given with `--to-source`).
 */
const ranged = twoEndpoints(
  ["10.0.0.9:1000-1999 --random", "10.0.0.9:1000-2999 --random"],
  "r.rules",
);

describe("source port ranges printed once stay each outcome's own", () => {
  test.each(Object.keys(WALKS) as (keyof typeof WALKS)[])("%s walk", (walk) => {
    for (const r of packets(ranged, walk))
      expect(r.outcomes.map((o) => [o.destination, o.sourcePorts, o.probability])).toEqual([
        ["10.244.1.5:8080", "1000-1999", 0.5],
        ["10.245.1.6:8081", "1000-2999", 0.5],
      ]);
  });
});
