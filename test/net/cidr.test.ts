import { describe, expect } from "@jest/globals";
import { fc, it, test } from "@fast-check/jest";
import ipaddr from "ipaddr.js";
import { formatIP, isIPv4Mapped, parseIP } from "../../src/net/address.js";
import {
  cidrContains,
  cidrCovers,
  cidrOverlaps,
  formatCIDR,
  formatCIDRAsWritten,
  isHostCIDR,
  parseCIDR,
  parseCIDROrHost,
} from "../../src/net/cidr.js";
import { cidr } from "../../src/testing/arbitraries/cidr.js";
import { ipAddress } from "../../src/testing/arbitraries/ipAddress.js";

const RUNS = { numRuns: 200 };

describe("parseCIDR", () => {
  test("keeps the address as written and the masked network", () => {
    const c = parseCIDR("10.0.1.1/4")!;
    expect(formatCIDR(c)).toBe("0.0.0.0/4");
    expect(formatCIDRAsWritten(c)).toBe("10.0.1.1/4");
    expect(formatCIDR(parseCIDR("2001:DB8::1/32")!)).toBe("2001:db8::/32");
  });

  test.each([
    "10.0.0.0",
    "10.0.0.0/33",
    "10.0.0.0/-1",
    "10.0.0.0/08",
    "10.0.0.0/",
    "/8",
    "::/129",
    "10.0.0.0/8/8",
    "10.0.0.0/ 8",
  ])("rejects %j", (s) => {
    expect(parseCIDR(s, "lenient")).toBeUndefined();
  });

  test("strict rejects leading zeros in the address; lenient accepts them", () => {
    expect(parseCIDR("203.0.113.000/25", "strict")).toBeUndefined();
    expect(formatCIDR(parseCIDR("203.0.113.000/25", "lenient")!)).toBe("203.0.113.0/25");
  });

  test("parseCIDROrHost takes a bare address as a host prefix", () => {
    expect(formatCIDR(parseCIDROrHost("10.1.2.3")!)).toBe("10.1.2.3/32");
    expect(formatCIDR(parseCIDROrHost("fd00::1")!)).toBe("fd00::1/128");
    expect(isHostCIDR(parseCIDROrHost("fd00::1")!)).toBe(true);
  });

  test("strict parsing rejects an IPv4-mapped address, lenient reads it as IPv4", () => {
    expect(parseCIDR("::ffff:10.0.0.0/104", "strict")).toBeUndefined();
    expect(formatCIDR(parseCIDR("::ffff:10.0.0.0/104", "lenient")!)).toBe("10.0.0.0/8");
    expect(parseCIDR("::ffff:10.0.0.0/64", "lenient")).toBeUndefined();
  });

  it.prop(
    [
      cidr({ hostBits: true }).filter(
        (c) => !(c.address.family === "IPv6" && isIPv4Mapped(c.address.value)),
      ),
    ],
    RUNS,
  )("agrees with ipaddr.js parseCIDR and round-trips", (c) => {
    const text = formatCIDRAsWritten(c);
    const parsed = parseCIDR(text, "strict")!;
    expect(parsed).toEqual(c);
    const [addr, bits] = ipaddr.parseCIDR(text);
    expect(bits).toBe(c.prefix);
    expect(addr.toString()).toBe(
      addr.kind() === "ipv6"
        ? ipaddr.IPv6.parse(formatIP(c.address)).toString()
        : formatIP(c.address),
    );
  });
});

describe("containment", () => {
  it.prop([cidr(), ipAddress()], RUNS)("cidrContains agrees with ipaddr.js match", (c, ip) => {
    const expected =
      c.family === ip.family &&
      ipaddr.parse(formatIP(ip)).match(ipaddr.parse(formatIP(c.network)), c.prefix);
    expect(cidrContains(c, ip)).toBe(expected);
  });

  it.prop([cidr({ family: "IPv4" }), fc.integer({ min: 0, max: 32 })], RUNS)(
    "every CIDR contains its own network address and covers its longer sub-prefixes",
    (c, extra) => {
      expect(cidrContains(c, c.network)).toBe(true);
      const longer = parseCIDR(`${formatIP(c.network)}/${Math.min(32, c.prefix + extra)}`)!;
      expect(cidrCovers(c, longer)).toBe(true);
      expect(cidrOverlaps(longer, c)).toBe(true);
      expect(cidrCovers(longer, c)).toBe(longer.prefix === c.prefix);
    },
  );

  test("families never contain each other", () => {
    expect(cidrContains(parseCIDR("0.0.0.0/0")!, parseIP("::1")!)).toBe(false);
    expect(cidrContains(parseCIDR("::/0")!, parseIP("10.0.0.1")!)).toBe(false);
    expect(cidrOverlaps(parseCIDR("0.0.0.0/0")!, parseCIDR("::/0")!)).toBe(false);
  });
});
