/** fast-check arbitraries for IPVS tables (test-only). */
import { fc } from "@fast-check/jest";
import { ipv4, ipv6, type IPAddress } from "../../../src/net/index.js";
import {
  IPVS_FLAG_PERSISTENT,
  IPVS_FLAG_SCHED2,
  virtualServerKey,
  type ForwardMethod,
  type IpvsTable,
  type RealServer,
  type VirtualServer,
} from "../../../src/netfilter/ipvs/index.js";

export const ipAddress = (family: "IPv4" | "IPv6"): fc.Arbitrary<IPAddress> =>
  family === "IPv4"
    ? fc.nat({ max: 0xffffffff }).map(ipv4)
    : fc
        .bigInt({ min: 0n, max: (1n << 128n) - 1n })
        // IPv4-mapped addresses print in dotted form, which is another address family's text.
        .filter((v) => v >> 32n !== 0xffffn)
        .map(ipv6);

const port = fc.oneof(fc.constantFrom(0, 1, 65535), fc.integer({ min: 0, max: 65535 }));

export const realServer = (
  family: "IPv4" | "IPv6",
  forwards: readonly ForwardMethod[],
): fc.Arbitrary<RealServer> =>
  fc.record({
    address: ipAddress(family),
    port,
    weight: fc.integer({ min: 0, max: 100 }),
    forward: fc.constantFrom(...forwards),
    activeConn: fc.nat({ max: 1000 }),
    inactiveConn: fc.nat({ max: 1000 }),
  });

export const virtualServer = (family: "IPv4" | "IPv6"): fc.Arbitrary<VirtualServer> =>
  fc
    .record({
      address: ipAddress(family),
      protocol: fc.constantFrom("TCP" as const, "UDP" as const, "SCTP" as const),
      port,
      scheduler: fc.constantFrom("rr", "wrr", "lc", "sh", "mh"),
      persistent: fc.boolean(),
      timeout: fc.integer({ min: 1, max: 86400 }),
      netmask: fc.integer({ min: 1, max: family === "IPv4" ? 32 : 128 }),
      sched2: fc.boolean(),
    })
    .map((r) => ({
      address: r.address,
      protocol: r.protocol,
      port: r.port,
      scheduler: r.scheduler,
      flags:
        (r.persistent ? IPVS_FLAG_PERSISTENT : 0) |
        (r.sched2 && r.scheduler === "mh" ? IPVS_FLAG_SCHED2 : 0),
      timeout: r.persistent ? r.timeout : 0,
      netmask: r.persistent ? r.netmask : family === "IPv4" ? 32 : 128,
    }));

export const ipvsTable = (forwards: readonly ForwardMethod[]): fc.Arbitrary<IpvsTable> =>
  fc
    .array(
      fc.constantFrom("IPv4" as const, "IPv6" as const).chain((family) =>
        fc.record({
          virtualServer: virtualServer(family),
          realServers: fc.uniqueArray(realServer(family, forwards), {
            maxLength: 4,
            selector: (r) => `${r.address.value.toString()}:${r.port}`,
          }),
        }),
      ),
      { maxLength: 6 },
    )
    .map((services) => {
      const seen = new Set<string>();
      return {
        services: services.filter((s) => {
          const k = virtualServerKey(s.virtualServer);
          if (seen.has(k)) return false;
          seen.add(k);
          return true;
        }),
      };
    });
