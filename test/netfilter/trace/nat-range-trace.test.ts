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

describe("source ports the kernel draws at random", () => {
  const rules = (post: string) =>
    [
      "*nat",
      ":PREROUTING ACCEPT [0:0]",
      ":INPUT ACCEPT [0:0]",
      ":OUTPUT ACCEPT [0:0]",
      ":POSTROUTING ACCEPT [0:0]",
      `-A POSTROUTING ${post}`,
      "COMMIT",
      "",
    ].join("\n");
  const node = (post: string) =>
    buildDataplane({
      ruleSets: [parseIptables(rules(post), { file: "snat.rules", family: "IPv4" })],
      interfaces: [
        { name: "lo", addresses: ["127.0.0.1/8"] },
        { name: "eth0", addresses: ["198.51.100.1/24"] },
        { name: "eth1", addresses: ["10.190.0.254/16"] },
      ],
    });
  const outcome = (dp: ReturnType<typeof node>, sport: number, opts: object) =>
    trace(dp, { proto: "tcp", src: "198.51.100.2", sport, dst: "10.190.0.7", dport: 80 }, opts)
      .outcomes[0]!;
  const modes = [
    ["with explanations", {}],
    ["depth-first walk and flow cache", { explain: false }],
    ["naive walk", { indexed: false }],
  ] as const;

  // nf_nat_l4proto_unique_tuple: without a range, the port's class (1-511, 600-1023, 1024-65535).
  test.each(modes)("MASQUERADE --random-fully (%s): the class of the source port", (_, opts) => {
    const dp = node("-o eth1 -j MASQUERADE --random-fully");
    expect(outcome(dp, 40000, opts)).toMatchObject({
      source: "10.190.0.254:40000",
      sourcePorts: "1024-65535",
    });
    expect(outcome(dp, 700, opts)).toMatchObject({
      source: "10.190.0.254:700",
      sourcePorts: "600-1023",
    });
    expect(outcome(dp, 100, opts)).toMatchObject({ sourcePorts: "1-511" });
  });

  test.each(modes)("SNAT to a port range (%s): kept inside it, drawn outside it", (_, opts) => {
    const dp = node("-p tcp -j SNAT --to-source 10.190.0.254:1000-2000");
    const inside = outcome(dp, 1500, opts);
    expect(inside.source).toBe("10.190.0.254:1500");
    expect(inside.sourcePorts).toBeUndefined();
    expect(outcome(dp, 40000, opts)).toMatchObject({
      source: "10.190.0.254:1000",
      sourcePorts: "1000-2000",
    });
  });

  test("a plain MASQUERADE keeps the source port and says nothing more", () => {
    const o = outcome(node("-o eth1 -j MASQUERADE"), 40000, {});
    expect(o.source).toBe("10.190.0.254:40000");
    expect(o.sourcePorts).toBeUndefined();
  });
});
