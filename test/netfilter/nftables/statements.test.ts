/**
 * The statements beyond kube-proxy's own: their canonical print against listings the real nft
 * 1.0.6 printed for the same input (pasted from `nft list table` on this machine), their
 * semantics in the evaluator and through the tracer (snat, redirect, notrack, ct mark,
 * `reject with tcp reset` only for TCP, `limit` always under the limit, `log` without effect),
 * and the errors for forms not modelled.
 */
import { describe, expect, test } from "@jest/globals";
import { NftEvaluator } from "../../../src/netfilter/nftables/evaluate.js";
import { listTable } from "../../../src/netfilter/nftables/list.js";
import type { NftPacket } from "../../../src/netfilter/nftables/match-atom.js";
import type { Table } from "../../../src/netfilter/nftables/model.js";
import { parseNftables } from "../../../src/netfilter/nftables/parse/file.js";
import { buildDataplane } from "../../../src/netfilter/trace/dataplane.js";
import { trace } from "../../../src/netfilter/trace/tracer.js";

function table(text: string, family = "ip"): Table {
  const t = parseNftables(`add table ${family} t\n${text}`, "t.nft").tables[0];
  if (t === undefined) throw new Error("no table");
  return t;
}

function parseError(text: string): string {
  try {
    parseNftables(text, "in.nft");
  } catch (e) {
    return (e as Error).message;
  }
  return "accepted";
}

describe("canonical print (goldens: nft 1.0.6 list output for the same input)", () => {
  test("filter input statements", () => {
    const t = table(`add chain ip t in { type filter hook input priority 0 ; }
add rule ip t in log prefix "hello: " level warn
add rule ip t in log prefix "x" level debug flags all
add rule ip t in log flags tcp sequence,options
add rule ip t in log level info flags ip options
add rule ip t in log group 2
add rule ip t in limit rate 10/second
add rule ip t in limit rate over 10/minute burst 5 packets drop
add rule ip t in limit rate 1 mbytes/second
add rule ip t in ct mark set 0x10
add rule ip t in ct mark 0x10 accept
add rule ip t in ct mark and 0xff == 0x10 accept
add rule ip t in ct mark set meta mark
add rule ip t in meta mark set ct mark
add rule ip t in reject with icmp type host-unreachable
add rule ip t in reject with icmp type port-unreachable
add rule ip t in meta l4proto tcp reject with tcp reset
add rule ip t in meta mark & 0xff00 == 0x100 drop
add rule ip t in mark 0x4 drop
add rule ip t in ct state { established, related } accept
add rule ip t in ct state != new drop
add rule ip t in counter packets 5 bytes 300 accept`);
    expect(listTable(t)).toBe(`table ip t {
	chain in {
		type filter hook input priority filter; policy accept;
		log prefix "hello: "
		log prefix "x" level debug flags all
		log flags tcp sequence,options
		log level info flags ip options
		log group 2
		limit rate 10/second
		limit rate over 10/minute drop
		limit rate 1 mbytes/second
		ct mark set 0x00000010
		ct mark 0x00000010 accept
		ct mark & 0x000000ff == 0x00000010 accept
		ct mark set meta mark
		meta mark set ct mark
		reject with icmp host-unreachable
		reject
		reject with tcp reset
		meta mark & 0x0000ff00 == 0x00000100 drop
		meta mark 0x00000004 drop
		ct state { established, related } accept
		ct state != new drop
		counter packets 5 bytes 300 accept
	}
}
`);
  });

  test("NAT and raw statements", () => {
    const t = table(`add chain ip t pre { type nat hook prerouting priority -100 ; }
add chain ip t post { type nat hook postrouting priority 100 ; }
add chain ip t raw { type filter hook prerouting priority -300 ; }
add rule ip t pre meta l4proto tcp redirect to :8080
add rule ip t pre tcp dport 80 redirect to 8080
add rule ip t pre redirect
add rule ip t pre meta l4proto udp redirect to :53-54 random
add rule ip t post ip saddr 10.0.0.0/8 snat to 192.168.0.1
add rule ip t post meta l4proto tcp snat to 192.168.0.1:1000-2000
add rule ip t post meta l4proto tcp snat ip to 192.168.0.1-192.168.0.5 fully-random
add rule ip t post snat to 192.168.0.1 persistent,random
add rule ip t raw notrack
add rule ip t raw udp dport 53 notrack`);
    expect(listTable(t)).toBe(`table ip t {
	chain pre {
		type nat hook prerouting priority dstnat; policy accept;
		meta l4proto tcp redirect to :8080
		tcp dport 80 redirect to :8080
		redirect
		meta l4proto udp redirect to :53-54 random
	}

	chain post {
		type nat hook postrouting priority srcnat; policy accept;
		ip saddr 10.0.0.0/8 snat to 192.168.0.1
		meta l4proto tcp snat to 192.168.0.1:1000-2000
		meta l4proto tcp snat to 192.168.0.1-192.168.0.5 fully-random
		snat to 192.168.0.1 random,persistent
	}

	chain raw {
		type filter hook prerouting priority raw; policy accept;
		notrack
		udp dport 53 notrack
	}
}
`);
  });

  test("inet: reject kinds, flag lists in bit order, snat with its family", () => {
    const t = table(
      `add chain inet t in { type filter hook input priority 0 ; }
add chain inet t post { type nat hook postrouting priority 100 ; }
add rule inet t in reject with icmpx type port-unreachable
add rule inet t in reject with icmpx admin-prohibited
add rule inet t in reject with icmp type port-unreachable
add rule inet t in reject with tcp reset
add rule inet t in ct state new,established accept
add rule inet t in ct state { new, established, invalid } accept
add rule inet t in ct state != established,related accept
add rule inet t in ct status dnat,snat accept
add rule inet t in log level warn
add rule inet t in limit rate 1024 kbytes/second
add rule inet t in limit rate 10 bytes/hour burst 2048 bytes
add rule inet t post meta l4proto tcp snat ip6 to [fd00::1]:80`,
      "inet",
    );
    expect(listTable(t)).toBe(`table inet t {
	chain in {
		type filter hook input priority filter; policy accept;
		reject
		reject with icmpx admin-prohibited
		reject with icmp port-unreachable
		meta l4proto tcp reject with tcp reset
		ct state established,new accept
		ct state { invalid, established, new } accept
		ct state != established | related accept
		ct status snat,dnat accept
		log
		limit rate 1 mbytes/second
		limit rate 10 bytes/hour burst 2 kbytes
	}

	chain post {
		type nat hook postrouting priority srcnat; policy accept;
		meta l4proto tcp snat ip6 to [fd00::1]:80
	}
}
`);
  });
});

describe("semantics in the evaluator", () => {
  const pkt: NftPacket = {
    family: "ip",
    protocol: "udp",
    src: "10.0.0.1",
    dst: "192.168.0.2",
    sport: 40000,
    dport: 53,
    mark: 0,
    ctState: "new",
    ctStatus: [],
  };
  const env = { isLocal: (ip: string) => ip === "192.168.0.2" };
  const run = (rules: string, p: NftPacket = pkt) =>
    new NftEvaluator(
      table(`add chain ip t b { type filter hook input priority 0 ; policy drop ; }\n${rules}`),
      env,
    ).runBase("b", p);

  test("`reject with tcp reset` only applies to TCP (nft's implicit dependency)", () => {
    const rules = "add rule ip t b reject with tcp reset\nadd rule ip t b accept";
    expect(run(rules).map((b) => b.final.kind)).toEqual(["accept"]);
    expect(run(rules, { ...pkt, protocol: "tcp" }).map((b) => b.final.kind)).toEqual(["reject"]);
  });

  test("limit: always under the limit, so `over` never matches; log changes nothing", () => {
    const rules = `add rule ip t b limit rate over 1/second drop
add rule ip t b log prefix "x" limit rate 1/hour ct mark set 0x7 accept`;
    const [b] = run(rules);
    expect(b?.final.kind).toBe("accept");
    expect(b?.packet.ctMark).toBe(7);
    expect(b?.path).toEqual(["b#2"]);
  });

  test("ct mark: matched (masked) and set from the packet mark", () => {
    const rules = `add rule ip t b ct mark and 0xf0 == 0x10 meta mark set 0x1
add rule ip t b meta mark 0x1 ct mark set meta mark or 0x100
add rule ip t b ct mark 0x101 accept`;
    const [b] = run(rules, { ...pkt, ctMark: 0x13 });
    expect({ final: b?.final.kind, mark: b?.packet.mark, ct: b?.packet.ctMark }).toEqual({
      final: "accept",
      mark: 1,
      ct: 0x101,
    });
    expect(run(rules, { ...pkt, ctMark: 0x23 }).map((x) => x.final.kind)).toEqual(["drop"]);
  });

  test("ct state combinations and notrack", () => {
    const rules = `add rule ip t b ct state established,related accept
add rule ip t b notrack
add rule ip t b ct state { untracked } accept`;
    expect(run(rules).map((b) => [b.final.kind, b.path])).toEqual([["accept", ["b#2", "b#3"]]]);
    expect(run(rules, { ...pkt, ctState: "related" }).map((b) => b.path)).toEqual([["b#1"]]);
  });
});

describe("through the tracer", () => {
  const interfaces = [
    { name: "lo", addresses: ["127.0.0.1/8"] },
    { name: "eth0", addresses: ["192.168.0.2/24"] },
  ];
  const dp = (text: string) =>
    buildDataplane({ ruleSets: [], nftables: [table(text)], interfaces, nfacct: [] });

  test("snat to a fixed address and port range", () => {
    const d = dp(`add chain ip t post { type nat hook postrouting priority 100 ; }
add rule ip t post meta l4proto tcp snat to 192.168.0.2:2000-2000`);
    const r = trace(d, { proto: "tcp", src: "10.1.0.5", dst: "192.168.0.77", dport: 80 });
    expect(r.outcomes.map((o) => [o.source, o.masquerade, o.probability])).toEqual([
      ["192.168.0.2:2000", true, 1],
    ]);
  });

  test("redirect: to the incoming interface's address (prerouting), to 127.0.0.1 (output)", () => {
    const d = dp(`add chain ip t pre { type nat hook prerouting priority -100 ; }
add chain ip t out { type nat hook output priority -100 ; }
add rule ip t pre tcp dport 80 redirect to :8080
add rule ip t out tcp dport 81 redirect`);
    const pre = trace(d, { proto: "tcp", src: "192.168.0.9", dst: "10.9.9.9", dport: 80 });
    expect(pre.outcomes.map((o) => [o.destination, o.delivery])).toEqual([
      ["192.168.0.2:8080", "local"],
    ]);
    const out = trace(d, {
      proto: "tcp",
      src: "192.168.0.2",
      dst: "10.9.9.9",
      dport: 81,
      origin: "local",
    });
    expect(out.outcomes.map((o) => o.destination)).toEqual(["127.0.0.1:81"]);
  });

  test("notrack in raw: the nat chains never see the packet", () => {
    const d = dp(`add chain ip t raw { type filter hook prerouting priority -300 ; }
add chain ip t pre { type nat hook prerouting priority -100 ; }
add rule ip t raw tcp dport 80 notrack
add rule ip t pre tcp dport { 80, 81 } redirect to :8080`);
    const r80 = trace(d, { proto: "tcp", src: "192.168.0.9", dst: "10.9.9.9", dport: 80 });
    const r81 = trace(d, { proto: "tcp", src: "192.168.0.9", dst: "10.9.9.9", dport: 81 });
    expect(r80.outcomes.map((o) => o.destination)).toEqual([undefined]);
    expect(r81.outcomes.map((o) => o.destination)).toEqual(["192.168.0.2:8080"]);
  });
});

describe("errors", () => {
  const head = `add table ip t
add chain ip t in { type filter hook input priority 0 ; }
add chain ip t post { type nat hook postrouting priority 100 ; }
`;
  test.each([
    ["add rule ip t in log snaplen 10", 'in.nft:4:22: unsupported log option "snaplen"'],
    ["add rule ip t in queue num 1", 'in.nft:4:18: unknown statement or expression "queue"'],
    [
      "add rule ip t in limit rate 5/fortnight",
      'in.nft:4:29: limit rate: unknown period "fortnight" (second, minute, hour, day, week)',
    ],
    [
      "add rule ip t in reject with icmpx type no-route",
      "in.nft:4:18: reject with icmpx: abstracted ICMP unreachable not supported",
    ],
    [
      "add rule ip t post snat to 10.0.0.1:80",
      "in.nft:4:20: snat: transport protocol mapping is only valid after transport protocol match",
    ],
    [
      "add rule ip t post snat to fd00::1",
      "in.nft:4:20: snat to fd00::1: not an address of the ip family",
    ],
  ])("%s", (rule, message) => {
    expect(parseError(`${head}${rule}\n`)).toBe(message);
  });
});
