import { describe, expect } from "@jest/globals";
import { fc, it, test } from "@fast-check/jest";
import {
  isValidPort,
  parsePortNumber,
  parsePortRange,
  parseProtocol,
  portInRange,
  portNameProblems,
  toLowerProtocol,
} from "../../src/net/port.js";

describe("ports", () => {
  test.each([
    ["0", 0],
    ["80", 80],
    ["65535", 65535],
  ])("parsePortNumber(%s)", (s, n) => expect(parsePortNumber(s)).toBe(n));

  test.each(["", "65536", "080", "-1", "+1", " 1", "1e3", "0x50"])(
    "parsePortNumber rejects %j",
    (s) => {
      expect(parsePortNumber(s)).toBeUndefined();
    },
  );

  test("ranges in iptables (:) and ipset (-) spelling, open ends", () => {
    expect(parsePortRange("1000:2000")).toEqual({ from: 1000, to: 2000 });
    expect(parsePortRange("1000-2000", "-")).toEqual({ from: 1000, to: 2000 });
    expect(parsePortRange(":2000")).toEqual({ from: 0, to: 2000 });
    expect(parsePortRange("1000:")).toEqual({ from: 1000, to: 65535 });
    expect(parsePortRange("2000:1000")).toBeUndefined();
    expect(parsePortRange("80")).toEqual({ from: 80, to: 80 });
  });

  it.prop([
    fc.integer({ min: 0, max: 65535 }),
    fc.integer({ min: 0, max: 65535 }),
    fc.integer({ min: 0, max: 65535 }),
  ])("portInRange is the inclusive interval", (a, b, p) => {
    const r = parsePortRange(`${Math.min(a, b)}:${Math.max(a, b)}`)!;
    expect(portInRange(p, r)).toBe(p >= Math.min(a, b) && p <= Math.max(a, b));
  });

  test("isValidPort is 1..65535", () => {
    expect([0, 1, 65535, 65536, 1.5, "80"].map(isValidPort)).toEqual([
      false,
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});

describe("protocols", () => {
  test("any case, Kubernetes spelling out, lower case for iptables", () => {
    expect(parseProtocol("sctp")).toBe("SCTP");
    expect(parseProtocol("Tcp")).toBe("TCP");
    expect(parseProtocol("icmp")).toBeUndefined();
    expect(toLowerProtocol("UDP")).toBe("udp");
  });
});

describe("port names (IANA_SVC_NAME, apimachinery IsValidPortName)", () => {
  test.each([
    ["http", []],
    ["h2c-0", []],
    ["a-very-long-name-x", ["must be no more than 15 characters"]],
    [
      "HTTP",
      [
        "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
        "must contain at least one letter (a-z)",
      ],
    ],
    ["8080", ["must contain at least one letter (a-z)"]],
    ["a--b", ["must not contain consecutive hyphens"]],
    ["-ab", ["must not begin or end with a hyphen"]],
  ])("%s", (name, problems) => {
    expect(portNameProblems(name)).toEqual(problems);
  });
});
