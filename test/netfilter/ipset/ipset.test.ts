import { describe, expect, test } from "@jest/globals";
import { readFileSync } from "node:fs";
import { ipv4, ipv6 } from "../../../src/net/index.js";
import {
  formatIpsetSave,
  ipsetContains,
  ipsetTest,
  IptablesParseError,
  parseIpsetSave,
  type IpsetKey,
} from "../../../src/netfilter/index.js";

const ip = (s: string) => {
  const [a, b, c, d] = s.split(".").map(Number) as [number, number, number, number];
  return ipv4(((a << 24) | (b << 16) | (c << 8) | d) >>> 0);
};

describe("parseIpsetSave / formatIpsetSave", () => {
  test("the ipvs-proxier spec example is a fixed point (spec §8.3)", () => {
    const text = readFileSync("examples/netfilter/sets.ipset", "utf8");
    expect(formatIpsetSave(parseIpsetSave(text))).toBe(text);
  });
  test("bucketsize/initval are ignored; port ranges expand; host nets print bare (ipset 7.17 output)", () => {
    const sets = parseIpsetSave(
      "create c hash:net,port family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x4d378b37\nadd c 10.0.0.0/8,udp:53 nomatch\nadd c 10.1.0.0/16,tcp:1-3\ncreate e hash:net family inet hashsize 1024 maxelem 65536\nadd e 1.2.3.4/32\n",
    );
    expect(formatIpsetSave(sets)).toBe(
      "create c hash:net,port family inet hashsize 1024 maxelem 65536\nadd c 10.0.0.0/8,udp:53 nomatch\nadd c 10.1.0.0/16,tcp:1\nadd c 10.1.0.0/16,tcp:2\nadd c 10.1.0.0/16,tcp:3\ncreate e hash:net family inet hashsize 1024 maxelem 65536\nadd e 1.2.3.4\n",
    );
  });
  test.each([
    ["create s hash:mac\n", 'f:1: create s: unknown or unmodelled set type "hash:mac"'],
    ["add s 1.2.3.4\n", 'f:1: add: set "s" does not exist'],
    [
      "create s hash:ip,port family inet\nadd s 1.2.3.4\n",
      'f:2: add s: "1.2.3.4" does not match type hash:ip,port',
    ],
    ["create s hash:ip family inet\nadd s 1.2.3.4 nomatch\n", "needs a net type"],
    ["create s hash:ip family inet6\nadd s 1.2.3.4\n", "invalid address"],
    ["create s bitmap:port\n", 'needs "range FROM-TO"'],
    ["flush s\n", 'unknown ipset command "flush"'],
    // ipset 7.17 on the kernel refuses these too.
    ["create s hash:ip family inet\nadd s 0.0.0.0\n", "null-valued element"],
    ["create s hash:ip family inet6\nadd s ::\n", "null-valued element"],
    ["create s hash:ip,port family inet\nadd s 0.0.0.0,tcp:80\n", "null-valued element"],
    ["create s hash:ip family inet\nadd s 10.0.0.1 timeout 5\n", "without timeout support"],
  ])("rejects %j", (text, message) => {
    expect(() => parseIpsetSave(text, "f")).toThrow(IptablesParseError);
    expect(() => parseIpsetSave(text, "f")).toThrow(message);
  });
});

describe("ipset entries as ipset 7.17 saves them (probed on the kernel)", () => {
  test("a zero address is stored where it is not the first part; octal octets", () => {
    const text =
      "create s hash:ip,port,ip family inet hashsize 1024 maxelem 65536\nadd s 0.0.0.0,tcp:80,0.0.0.0\ncreate o hash:ip family inet hashsize 1024 maxelem 65536\nadd o 010.0.0.1\n";
    expect(formatIpsetSave(parseIpsetSave(text))).toBe(
      "create s hash:ip,port,ip family inet hashsize 1024 maxelem 65536\nadd s 0.0.0.0,tcp:80,0.0.0.0\ncreate o hash:ip family inet hashsize 1024 maxelem 65536\nadd o 8.0.0.1\n",
    );
  });
  test("in a set with timeouts every entry has one (the set's default if not its own)", () => {
    const text =
      "create s hash:ip family inet hashsize 1024 maxelem 65536 timeout 0\nadd s 10.0.0.1\nadd s 10.0.0.2 timeout 0\n";
    expect(formatIpsetSave(parseIpsetSave(text))).toBe(
      "create s hash:ip family inet hashsize 1024 maxelem 65536 timeout 0\nadd s 10.0.0.1 timeout 0\nadd s 10.0.0.2 timeout 0\n",
    );
  });
});

describe("ipsetContains", () => {
  const sets = parseIpsetSave(
    [
      "create ipport hash:ip,port family inet hashsize 1024 maxelem 65536",
      "add ipport 10.96.0.1,tcp:443",
      "add ipport 10.96.0.2,sctp:80",
      "create nets hash:net family inet hashsize 1024 maxelem 65536",
      "add nets 10.0.0.0/8",
      "add nets 10.1.0.0/16 nomatch",
      "add nets 10.1.2.0/24",
      "create ports bitmap:port range 0-65535",
      "add ports 30080",
      "create v6 hash:ip family inet6 hashsize 1024 maxelem 65536",
      "add v6 fd00::1",
      "",
    ].join("\n"),
  );
  const [ipport, nets, ports, v6] = sets as [
    (typeof sets)[number],
    (typeof sets)[number],
    (typeof sets)[number],
    (typeof sets)[number],
  ];
  const ep = (a: string, protocol: "tcp" | "udp" | "sctp", port: number): IpsetKey[number] => ({
    kind: "endpoint",
    ip: ip(a),
    protocol,
    port,
  });
  test("hash:ip,port matches address, protocol and port", () => {
    expect(ipsetContains(ipport, [ep("10.96.0.1", "tcp", 443), ep("10.96.0.1", "tcp", 443)])).toBe(
      true,
    );
    expect(ipsetContains(ipport, [ep("10.96.0.1", "udp", 443), ep("10.96.0.1", "udp", 443)])).toBe(
      false,
    );
    expect(ipsetContains(ipport, [ep("10.96.0.2", "sctp", 80), ep("10.96.0.2", "sctp", 80)])).toBe(
      true,
    );
    expect(
      ipsetContains(ipport, [
        { kind: "ip", ip: ip("10.96.0.1") },
        { kind: "port", protocol: "tcp", port: 443 },
      ]),
    ).toBe(true);
    // a key with fewer parts than the set's dimension never matches (ip_set_test)
    expect(ipsetContains(ipport, [ep("10.96.0.1", "tcp", 443)])).toBe(false);
  });
  test("hash:net: longest prefix wins, nomatch excludes", () => {
    expect(ipsetContains(nets, [{ kind: "ip", ip: ip("10.9.9.9") }])).toBe(true);
    expect(ipsetContains(nets, [{ kind: "ip", ip: ip("10.1.9.9") }])).toBe(false);
    expect(ipsetContains(nets, [{ kind: "ip", ip: ip("10.1.2.9") }])).toBe(true);
    expect(ipsetContains(nets, [{ kind: "ip", ip: ip("11.0.0.1") }])).toBe(false);
  });
  test("bitmap:port and family", () => {
    expect(ipsetContains(ports, [ep("1.1.1.1", "tcp", 30080)])).toBe(true);
    expect(ipsetContains(ports, [ep("1.1.1.1", "udp", 30081)])).toBe(false);
    expect(ipsetContains(v6, [{ kind: "ip", ip: ipv6((0xfd00n << 112n) | 1n) }])).toBe(true);
    expect(ipsetContains(v6, [{ kind: "ip", ip: ip("0.0.0.1") }])).toBe(false);
    expect(ipsetTest(sets, "missing", [])).toBeUndefined();
  });
});

describe("ipset -exist restore semantics", () => {
  test("an element added twice is kept once, with the last options (checked with ipset 7 on the kernel)", () => {
    // `ipset -exist restore` of these lines, then `ipset save`, printed (bucketsize/initval aside):
    //   create S hash:net family inet hashsize 1024 maxelem 65536 comment
    //   add S 10.0.0.0/8
    //   add S 0.0.0.0/1 comment "b"
    const sets = parseIpsetSave(
      [
        "create S hash:net family inet hashsize 1024 maxelem 65536 comment",
        'add S 1.2.3.4/1 comment "a"',
        'add S 0.0.0.0/1 comment "b"',
        "add S 10.0.0.0/8",
        "",
      ].join("\n"),
    );
    const lines = formatIpsetSave(sets).trim().split("\n").sort();
    expect(lines).toEqual([
      'add S 0.0.0.0/1 comment "b"',
      "add S 10.0.0.0/8",
      "create S hash:net family inet hashsize 1024 maxelem 65536 comment",
    ]);
  });
});
