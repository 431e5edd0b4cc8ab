/**
 * The tracer maps a DNAT/SNAT address range as the kernel does (nat-choice.ts), in both walks
 * and through the flow cache. Expected addresses are what real connections reached on Linux
 * 6.18 (the goldens of nat-choice.test.ts, recorded from nat-choice-kernel.test.ts's probes).
 */
import { describe, expect, test } from "@jest/globals";
import { parseIptables } from "../../../src/netfilter/index.js";
import { buildDataplane, trace } from "../../../src/netfilter/trace/index.js";

const RULES = [
  "*nat",
  ":PREROUTING ACCEPT [0:0]",
  ":INPUT ACCEPT [0:0]",
  ":OUTPUT ACCEPT [0:0]",
  ":POSTROUTING ACCEPT [0:0]",
  ...[1, 2, 3, 4, 5, 6].map(
    (i) =>
      `-A PREROUTING -d 10.96.0.${i}/32 -p tcp -j DNAT --to-destination 10.190.0.0-10.190.255.255:8090`,
  ),
  "COMMIT",
  "",
].join("\n");

const KERNEL = [
  "10.190.37.53:8090",
  "10.190.145.24:8090",
  "10.190.144.80:8090",
  "10.190.149.187:8090",
  "10.190.55.153:8090",
  "10.190.100.15:8090",
];

describe("DNAT to an address range", () => {
  const dp = buildDataplane({
    ruleSets: [parseIptables(RULES, { file: "range.rules", family: "IPv4" })],
    interfaces: [
      { name: "lo", addresses: ["127.0.0.1/8"] },
      { name: "eth0", addresses: ["198.51.100.1/24"] },
      { name: "eth1", addresses: ["10.190.0.254/16"] },
    ],
  });
  const destinations = (opts: object) =>
    [1, 2, 3, 4, 5, 6].map(
      (i) =>
        trace(
          dp,
          { proto: "tcp", src: "198.51.100.2", sport: 20000 + i, dst: `10.96.0.${i}`, dport: 80 },
          opts,
        ).outcomes[0]!.destination,
    );
  test.each([
    ["with explanations (breadth-first walk)", {}],
    ["without (depth-first walk, flow cache)", { explain: false }],
    ["naive walk", { indexed: false }],
  ])("%s: the address the kernel chose", (_, opts) => {
    expect(destinations(opts)).toEqual(KERNEL);
  });
  test("the choice depends on the source address, so the flow cache keys on all of it", () => {
    const from = (src: string) =>
      trace(dp, { proto: "tcp", src, dst: "10.96.0.1", dport: 80 }, { explain: false }).outcomes[0]!
        .destination;
    const a = from("198.51.100.2");
    const b = from("198.51.100.3");
    expect(b).toEqual(
      trace(
        dp,
        { proto: "tcp", src: "198.51.100.3", dst: "10.96.0.1", dport: 80 },
        { indexed: false },
      ).outcomes[0]!.destination,
    );
    expect(a).toBe(KERNEL[0]);
  });
});
