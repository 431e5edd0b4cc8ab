/**
 * `packet(constraints)`: a packet as `trace` takes it (PacketSpec), biased to SCTP and to the
 * edges: ports 1, 65535 and 80's neighbours, the node's own and loopback addresses, service and
 * pod addresses of the generated clusters (172.30.0.1, 10.1.0.1, fd00::1:1), and random ones.
 */
import fc from "fast-check";
import { formatIP } from "../../net/index.js";
import type { PacketSpec } from "../../netfilter/trace/result.js";
import { ipv4Address, ipv6Address } from "./ipAddress.js";
import type { Family } from "./pod.js";

export interface PacketConstraints {
  /** Family of both addresses; default IPv4. */
  readonly family?: Family;
}

const EDGE_ADDRESSES: Readonly<Record<Family, readonly string[]>> = {
  IPv4: ["127.0.0.1", "192.168.0.1", "172.30.0.1", "10.1.0.1", "10.1.0.2", "203.0.113.2"],
  IPv6: ["::1", "2001:db8::1", "fd00::1:1", "fd00::1:2", "2001:db8:1::2"],
};

export const PACKET_PROTOCOLS = ["sctp", "sctp", "tcp", "udp"] as const;

export function packetPort(): fc.Arbitrary<number> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(1, 79, 80, 81, 9999, 30000, 32767, 65535) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 65535 }) },
  );
}

export function packet(c: PacketConstraints = {}): fc.Arbitrary<PacketSpec> {
  const family = c.family ?? "IPv4";
  const random = (family === "IPv4" ? ipv4Address() : ipv6Address()).map(formatIP);
  const address = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...EDGE_ADDRESSES[family]) },
    { weight: 1, arbitrary: random },
  );
  return fc.record({
    proto: fc.constantFrom(...PACKET_PROTOCOLS),
    src: address,
    sport: packetPort(),
    dst: address,
    dport: packetPort(),
  });
}
