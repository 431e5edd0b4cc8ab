/**
 * IPv4 routing from the address book's numbers (addressing.ts `Ipv4Routes`, what the depth-
 * first walk routes every branch with) against the general look-up over the same node's
 * addresses and routes (`referenceRoute`): random nodes (loopback, interfaces with several
 * prefixes, host addresses, routes with and without gateways), destinations in and around
 * their prefixes.
 */
import { describe, expect } from "@jest/globals";
import { fc, it } from "@fast-check/jest";
import { formatIP, parseIP, type IPAddress } from "../../../src/net/index.js";
import {
  isLocalAddress,
  masqueradeSource,
  referenceRoute,
  route,
  routeChoice,
} from "../../../src/netfilter/trace/addressing.js";
import { buildDataplane, type DataplaneRoute } from "../../../src/netfilter/trace/dataplane.js";

/** Addresses from a few /16s, so prefixes overlap and destinations often fall inside them. */
const octets = fc.tuple(
  fc.constantFrom(10, 127, 192),
  fc.constantFrom(0, 168, 244),
  fc.constantFrom(0, 1, 255),
  fc.constantFrom(0, 1, 2, 7, 255),
);
const address = octets.map((o) => o.join("."));
const prefix = fc.constantFrom(8, 16, 24, 30, 31, 32);
const cidr = fc.tuple(address, prefix).map(([a, p]) => `${a}/${p}`);
const DEVICES = ["eth0", "eth1", "cbr0"];

const nodeArb = fc.record({
  lo: fc.array(cidr, { maxLength: 2 }),
  ifaces: fc.array(
    fc.record({ name: fc.constantFrom(...DEVICES), addresses: fc.array(cidr, { maxLength: 3 }) }),
    { minLength: 1, maxLength: 3 },
  ),
  routes: fc.array(
    fc.record({
      dst: fc.oneof(cidr, fc.constant("default")),
      gateway: fc.option(address, { nil: undefined }),
      dev: fc.option(fc.constantFrom(...DEVICES, "lo"), { nil: undefined }),
    }),
    { maxLength: 3 },
  ),
});

type NodeSpec = typeof nodeArb extends fc.Arbitrary<infer T> ? T : never;

function dataplane(n: NodeSpec) {
  const routes: DataplaneRoute[] = n.routes
    .filter((r) => r.gateway !== undefined || r.dev !== undefined)
    .map((r) => ({
      dst: r.dst,
      ...(r.gateway !== undefined ? { gateway: r.gateway } : {}),
      ...(r.dev !== undefined ? { dev: r.dev } : {}),
    }));
  return buildDataplane({
    ruleSets: [],
    interfaces: [{ name: "lo", addresses: n.lo }, ...n.ifaces],
    routes,
  });
}

const ip = (s: string): IPAddress => parseIP(s, "lenient")!;

describe("IPv4 routing from numbers", () => {
  it.prop([nodeArb, fc.array(address, { minLength: 1, maxLength: 12 })], { numRuns: 300 })(
    "gives the general look-up's decision, next hop and MASQUERADE source",
    (n, destinations) => {
      expect.hasAssertions();
      const dp = dataplane(n);
      for (const d of destinations) {
        const dst = ip(d);
        const want = referenceRoute(dp, dst);
        const got = route(dp, dst);
        expect({ ...got, nextHop: formatIP(got.nextHop) }).toEqual({
          ...want,
          nextHop: formatIP(want.nextHop),
        });
        expect(routeChoice(dp, dst)).toEqual({
          local: want.local,
          outInterface: want.outInterface,
        });
        expect(isLocalAddress(dp, dst)).toBe(want.local);
        const src = masqueradeSource(dp, want.outInterface, dst);
        // The source the kernel picks (inet_select_addr with the route's next hop).
        expect(src === undefined ? undefined : formatIP(src)).toBe(
          referenceMasquerade(
            n,
            want.outInterface,
            want.outInterface === "lo" ? dst : want.nextHop,
          ),
        );
      }
    },
  );
});

/**
 * masqueradeSource's rule written from the node's description alone: of the device's primary
 * addresses (not inside an earlier address's prefix of the same length) outside 127.0.0.0/8,
 * the first whose prefix holds the next hop (out of lo: the destination), else the first; else
 * the first such address of any interface, lo first.
 */
function referenceMasquerade(n: NodeSpec, dev: string, nextHop: IPAddress): string | undefined {
  const all = [
    ...n.lo.map((c) => ({ name: "lo", c })),
    ...n.ifaces.flatMap((i) => i.addresses.map((c) => ({ name: i.name, c }))),
  ];
  const parsed = all.map(({ name, c }) => {
    const [a, p] = c.split("/") as [string, string];
    const prefix = Number(p);
    const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
    const value = ip(a).value as number;
    return { name, a, prefix, mask, net: (value & mask) >>> 0, value };
  });
  const primaries = (name: string) => {
    const seen: typeof parsed = [];
    const out: typeof parsed = [];
    for (const e of parsed) {
      if (e.name !== name) continue;
      if (seen.some((s) => s.prefix === e.prefix && (e.value & s.mask) >>> 0 === s.net)) continue;
      seen.push(e);
      if (e.value >>> 24 !== 127) out.push(e);
    }
    return out;
  };
  const own = primaries(dev);
  const hop = nextHop.value as number;
  const holding = own.find((e) => (hop & e.mask) >>> 0 === e.net);
  if (holding !== undefined) return holding.a;
  if (own.length > 0) return own[0]!.a;
  for (const name of new Set(["lo", ...parsed.map((e) => e.name)])) {
    const any = primaries(name)[0];
    if (any !== undefined) return any.a;
  }
  return undefined;
}
