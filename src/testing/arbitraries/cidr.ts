/**
 * `cidr()`: prefixes biased to the edges (/0, the host length /32 or /128, and the byte
 * boundaries), with or without host bits set beyond the prefix.
 */
import fc from "fast-check";
import { bitLength, makeCIDR, type CIDR } from "../../net/index.js";
import { ipAddress } from "./ipAddress.js";

export interface CIDRConstraints {
  readonly family?: "IPv4" | "IPv6";
  /** Keep the host bits of the generated address (default false: the network address). */
  readonly hostBits?: boolean;
}

export function cidr(constraints: CIDRConstraints = {}): fc.Arbitrary<CIDR> {
  return ipAddress(constraints.family).chain((addr) => {
    const max = bitLength(addr.family);
    const prefix = fc.oneof(
      { weight: 1, arbitrary: fc.constantFrom(0, max, 8, 16, 24, max === 128 ? 64 : 31) },
      { weight: 3, arbitrary: fc.integer({ min: 0, max }) },
    );
    return prefix.map((p) => {
      const c = makeCIDR(addr, p);
      return constraints.hostBits === true ? c : makeCIDR(c.network, p);
    });
  });
}
