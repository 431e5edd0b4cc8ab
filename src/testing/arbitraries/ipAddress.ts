/**
 * `ipv4Address()`, `ipv6Address()`, `ipAddress()`: addresses as kube-netsim values, biased to the
 * edges (0.0.0.0, 255.255.255.255, ::, ::1, IPv4-mapped-looking values, long zero runs) so that
 * printing and containment are tested where they usually break.
 */
import fc from "fast-check";
import {
  formatIP,
  ipv4,
  ipv6,
  type IPAddress,
  type IPv4Address,
  type IPv6Address,
} from "../../net/index.js";

export function ipv4Address(): fc.Arbitrary<IPv4Address> {
  return fc
    .oneof(
      { weight: 4, arbitrary: fc.integer({ min: 0, max: 0xffffffff }) },
      { weight: 1, arbitrary: fc.constantFrom(0, 0xffffffff, 0x7f000001, 0x0a000000, 0xc0a80001) },
    )
    .map(ipv4);
}

/** Groups drawn mostly from 0 and small values, so zero runs of every length appear. */
const group = fc.oneof(
  { weight: 3, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.constantFrom(1, 0xffff, 0xdb8, 0x2001) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 0xffff }) },
);

export function ipv6Address(): fc.Arbitrary<IPv6Address> {
  return fc
    .oneof(
      { weight: 4, arbitrary: fc.array(group, { minLength: 8, maxLength: 8 }) },
      {
        weight: 1,
        arbitrary: fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }).map((v) => toGroups(v)),
      },
    )
    .map((groups) => ipv6(groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n)));
}

function toGroups(v: bigint): number[] {
  const out: number[] = [];
  for (let i = 7; i >= 0; i--) out.push(Number((v >> BigInt(i * 16)) & 0xffffn));
  return out;
}

export function ipAddress(family?: "IPv4" | "IPv6"): fc.Arbitrary<IPAddress> {
  if (family === "IPv4") return ipv4Address();
  if (family === "IPv6") return ipv6Address();
  return fc.oneof(ipv4Address(), ipv6Address());
}

/** Canonical text (RFC 5952 for IPv6). */
export function ipAddressText(family?: "IPv4" | "IPv6"): fc.Arbitrary<string> {
  return ipAddress(family).map(formatIP);
}
