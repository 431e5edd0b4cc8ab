/**
 * The nftables evaluator's control flow and lookups, on small tables parsed from nft text:
 * jump returns to the caller, goto does not, `return` pops, base policy applies, numgen splits
 * with exact probabilities (values without an element fall through), verdict maps and dynamic
 * (affinity) sets.
 */
import { describe, expect, test } from "@jest/globals";
import { NftEvaluator } from "../../../src/netfilter/nftables/evaluate.js";
import type { NftPacket } from "../../../src/netfilter/nftables/match-atom.js";
import { parseNftables } from "../../../src/netfilter/nftables/parse/file.js";

function table(rules: string): ReturnType<typeof parseNftables>["tables"][number] {
  const t = parseNftables(`add table ip t\n${rules}`, "t.nft").tables[0];
  if (t === undefined) throw new Error("no table");
  return t;
}

const pkt: NftPacket = {
  family: "ip",
  protocol: "tcp",
  src: "10.0.0.1",
  dst: "10.96.0.1",
  sport: 40000,
  dport: 80,
  mark: 0,
  ctState: "new",
  ctStatus: [],
};
const env = { isLocal: (ip: string) => ip === "192.168.0.2" };
const summary = (ev: NftEvaluator, p = pkt) =>
  ev.runBase("b", p).map((b) => ({
    p: Math.round(b.probability * 1e9) / 1e9,
    final: b.final.kind === "nat" ? `dnat ${b.final.nat.address}` : b.final.kind,
    mark: b.packet.mark,
  }));

describe("NftEvaluator", () => {
  test("jump returns to the caller; goto does not; the base policy ends it", () => {
    const t = table(`add chain ip t b { type filter hook input priority 0 ; policy drop ; }
add chain ip t sub
add chain ip t other
add rule ip t sub mark set mark or 0x1
add rule ip t other mark set mark or 0x4
add rule ip t b jump sub
add rule ip t b mark set mark or 0x2
add rule ip t b goto other
add rule ip t b accept`);
    expect(summary(new NftEvaluator(t, env))).toEqual([{ p: 1, final: "drop", mark: 7 }]);
  });

  test("numgen random mod 3 with one value unmapped: that third falls through", () => {
    const t = table(`add chain ip t b { type nat hook prerouting priority -100 ; }
add chain ip t e0
add chain ip t e1
add rule ip t e0 meta l4proto tcp dnat to 10.1.0.1:80
add rule ip t e1 meta l4proto tcp dnat to 10.1.0.2:80
add rule ip t b numgen random mod 3 vmap { 0 : goto e0 , 1 : goto e1 }
add rule ip t b drop`);
    expect(summary(new NftEvaluator(t, env))).toEqual([
      { p: 0.333333333, final: "dnat 10.1.0.1", mark: 0 },
      { p: 0.333333333, final: "dnat 10.1.0.2", mark: 0 },
      { p: 0.333333333, final: "drop", mark: 0 },
    ]);
  });

  test("verdict maps by concatenated key; a miss goes on to the next rule", () => {
    const t = table(`add chain ip t b { type filter hook input priority 0 ; }
add map ip t m { type ipv4_addr . inet_proto . inet_service : verdict ; }
add element ip t m { 10.96.0.1 . tcp . 80 : drop }
add rule ip t b ip daddr . meta l4proto . th dport vmap @m
add rule ip t b reject`);
    const ev = new NftEvaluator(t, env);
    expect(summary(ev)).toEqual([{ p: 1, final: "drop", mark: 0 }]);
    expect(summary(ev, { ...pkt, protocol: "udp" })).toEqual([{ p: 1, final: "reject", mark: 0 }]);
  });

  test("affinity: update records the client; a later lookup in the dynamic set finds it", () => {
    const t = table(`add chain ip t b { type nat hook prerouting priority -100 ; }
add chain ip t e0
add set ip t aff { type ipv4_addr ; flags dynamic,timeout ; timeout 10800s ; }
add rule ip t e0 update @aff { ip saddr }
add rule ip t e0 meta l4proto tcp dnat to 10.1.0.1:80
add rule ip t b ip saddr @aff accept
add rule ip t b goto e0`);
    const first = new NftEvaluator(t, env).runBase("b", pkt);
    expect(first.map((b) => b.updates)).toEqual([[{ set: "aff", key: ["10.0.0.1"] }]]);
    const again = new NftEvaluator(t, { ...env, dynamic: new Map([["aff", [["10.0.0.1"]]]]) });
    expect(summary(again)).toEqual([{ p: 1, final: "accept", mark: 0 }]);
  });

  test("fib daddr type local, iifname wildcards, ct state lists", () => {
    const t = table(`add chain ip t b { type filter hook input priority 0 ; }
add rule ip t b fib daddr type local iifname "veth*" ct state established,new drop`);
    const ev = new NftEvaluator(t, env);
    expect(summary(ev, { ...pkt, dst: "192.168.0.2", iifname: "veth12" })[0]?.final).toBe("drop");
    expect(summary(ev, { ...pkt, dst: "192.168.0.2", iifname: "eth0" })[0]?.final).toBe("accept");
    expect(summary(ev, { ...pkt, iifname: "veth12" })[0]?.final).toBe("accept");
  });
});
