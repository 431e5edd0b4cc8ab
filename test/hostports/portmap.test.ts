/** Spec Part B.6: upstream portmap_iptables_test.go, as argument vectors. */
import { describe, expect, test } from "@jest/globals";
import {
  dnatChain,
  emptyNatTable,
  formatNatTable,
  markMasqChain,
  portmapAdd,
  portmapDel,
  setMarkChain,
  type PortmapConfig,
  type PortmapEntry,
} from "../../src/hostports/index.js";

const cid =
  "icee6giejonei6sohng6ahngee7laquohquee9shiGo7fohferakah3Feiyoolu2pei7ciPhoh7shaoX6vai3vuf0ahfaeng8yohb9ceu0daez5hashee8ooYai5wa3y";
const CHAIN = "CNI-DN-67e92b96e692a494b6b85";
const config: PortmapConfig = {
  name: "test",
  snat: true,
  conditionsV4: ["-a", "b"],
  conditionsV6: ["-c", "d"],
};
const entries: PortmapEntry[] = [
  { hostPort: 8080, containerPort: 80, protocol: "tcp" },
  { hostPort: 8081, containerPort: 80, protocol: "tcp" },
  { hostPort: 8080, containerPort: 81, protocol: "udp" },
  { hostPort: 8082, containerPort: 82, protocol: "udp" },
  { hostPort: 8083, containerPort: 83, protocol: "tcp", hostIP: "192.168.0.2" },
  { hostPort: 8084, containerPort: 84, protocol: "tcp", hostIP: "0.0.0.0" },
  { hostPort: 8085, containerPort: 85, protocol: "tcp", hostIP: "2001:db8:a::1" },
  { hostPort: 8086, containerPort: 86, protocol: "tcp", hostIP: "::" },
];
const words = (s: string) => s.split(" ");
const comment = `dnat name: "test" id: "${cid}"`;

describe("portmap DNAT chain (spec B.6)", () => {
  test("IPv4 entry rules and chain rules", () => {
    const c = dnatChain(config, cid, "10.0.0.2/24", entries);
    expect(c.name).toBe(CHAIN);
    expect(c.entryChains).toEqual(["CNI-HOSTPORT-DNAT"]);
    expect(c.entryRules).toEqual([
      [
        "-m",
        "comment",
        "--comment",
        comment,
        "-m",
        "multiport",
        "-p",
        "tcp",
        "--destination-ports",
        "8080,8081,8083,8084,8085,8086",
        "-a",
        "b",
      ],
      [
        "-m",
        "comment",
        "--comment",
        comment,
        "-m",
        "multiport",
        "-p",
        "udp",
        "--destination-ports",
        "8080,8082",
        "-a",
        "b",
      ],
    ]);
    expect(c.rules).toEqual(
      [
        "-p tcp --dport 8080 -s 10.0.0.2/24 -j CNI-HOSTPORT-SETMARK",
        "-p tcp --dport 8080 -s 127.0.0.1 -j CNI-HOSTPORT-SETMARK",
        "-p tcp --dport 8080 -j DNAT --to-destination 10.0.0.2:80",
        "-p tcp --dport 8081 -s 10.0.0.2/24 -j CNI-HOSTPORT-SETMARK",
        "-p tcp --dport 8081 -s 127.0.0.1 -j CNI-HOSTPORT-SETMARK",
        "-p tcp --dport 8081 -j DNAT --to-destination 10.0.0.2:80",
        "-p udp --dport 8080 -s 10.0.0.2/24 -j CNI-HOSTPORT-SETMARK",
        "-p udp --dport 8080 -s 127.0.0.1 -j CNI-HOSTPORT-SETMARK",
        "-p udp --dport 8080 -j DNAT --to-destination 10.0.0.2:81",
        "-p udp --dport 8082 -s 10.0.0.2/24 -j CNI-HOSTPORT-SETMARK",
        "-p udp --dport 8082 -s 127.0.0.1 -j CNI-HOSTPORT-SETMARK",
        "-p udp --dport 8082 -j DNAT --to-destination 10.0.0.2:82",
        "-p tcp --dport 8083 -d 192.168.0.2 -s 10.0.0.2/24 -j CNI-HOSTPORT-SETMARK",
        "-p tcp --dport 8083 -d 192.168.0.2 -s 127.0.0.1 -j CNI-HOSTPORT-SETMARK",
        "-p tcp --dport 8083 -d 192.168.0.2 -j DNAT --to-destination 10.0.0.2:83",
        "-p tcp --dport 8084 -s 10.0.0.2/24 -j CNI-HOSTPORT-SETMARK",
        "-p tcp --dport 8084 -s 127.0.0.1 -j CNI-HOSTPORT-SETMARK",
        "-p tcp --dport 8084 -j DNAT --to-destination 10.0.0.2:84",
      ].map(words),
    );
  });

  test("IPv6 chain rules: no localhost rule, conditionsV6 on the entry", () => {
    const c = dnatChain(config, cid, "2001:db8::2/64", entries);
    expect(c.entryRules.map((r) => r.slice(-2))).toEqual([
      ["-c", "d"],
      ["-c", "d"],
    ]);
    expect(c.rules).toEqual(
      [
        "-p tcp --dport 8080 -s 2001:db8::2/64 -j CNI-HOSTPORT-SETMARK",
        "-p tcp --dport 8080 -j DNAT --to-destination [2001:db8::2]:80",
        "-p tcp --dport 8081 -s 2001:db8::2/64 -j CNI-HOSTPORT-SETMARK",
        "-p tcp --dport 8081 -j DNAT --to-destination [2001:db8::2]:80",
        "-p udp --dport 8080 -s 2001:db8::2/64 -j CNI-HOSTPORT-SETMARK",
        "-p udp --dport 8080 -j DNAT --to-destination [2001:db8::2]:81",
        "-p udp --dport 8082 -s 2001:db8::2/64 -j CNI-HOSTPORT-SETMARK",
        "-p udp --dport 8082 -j DNAT --to-destination [2001:db8::2]:82",
        "-p tcp --dport 8085 -d 2001:db8:a::1 -s 2001:db8::2/64 -j CNI-HOSTPORT-SETMARK",
        "-p tcp --dport 8085 -d 2001:db8:a::1 -j DNAT --to-destination [2001:db8::2]:85",
        "-p tcp --dport 8086 -s 2001:db8::2/64 -j CNI-HOSTPORT-SETMARK",
        "-p tcp --dport 8086 -j DNAT --to-destination [2001:db8::2]:86",
      ].map(words),
    );
  });

  test("snat false leaves only the six IPv4 DNAT rules", () => {
    const c = dnatChain({ ...config, snat: false }, cid, "10.0.0.2/24", entries);
    expect(c.rules).toHaveLength(6);
    expect(c.rules.every((r) => r.includes("DNAT"))).toBe(true);
  });

  test("externalSetMarkChain replaces the mark chain", () => {
    const c = dnatChain(
      { ...config, externalSetMarkChain: "PLZ-SET-MARK" },
      cid,
      "10.0.0.2/24",
      entries,
    );
    expect(c.rules.filter((r) => r.at(-1) === "PLZ-SET-MARK")).toHaveLength(12);
    expect(c.rules.some((r) => r.includes("CNI-HOSTPORT-SETMARK"))).toBe(false);
  });

  test("mark chains with markMasqBit 5", () => {
    expect(setMarkChain(5).rules).toEqual([
      [
        "-m",
        "comment",
        "--comment",
        "CNI portfwd masquerade mark",
        "-j",
        "MARK",
        "--set-xmark",
        "0x20/0x20",
      ],
    ]);
    expect(markMasqChain(5).rules).toEqual([
      ["-m", "mark", "--mark", "0x20/0x20", "-j", "MASQUERADE"],
    ]);
    expect(setMarkChain().rules[0]?.at(-1)).toBe("0x2000/0x2000");
  });

  test("more than 15 ports split the multiport entry", () => {
    const many = Array.from({ length: 17 }, (_, i) => ({
      hostPort: 9000 + i,
      containerPort: 80,
      protocol: "tcp" as const,
    }));
    const c = dnatChain({ name: "n" }, "c", "10.0.0.2/24", many);
    expect(c.entryRules.map((r) => r[9]?.split(",").length)).toEqual([15, 2]);
  });
});

describe("portmap ADD/DEL on a nat table", () => {
  test("chains, entry positions and teardown", () => {
    let t = emptyNatTable("IPv4", true);
    t = portmapAdd(t, { name: "test" }, "c1", "10.0.0.2/24", [
      { hostPort: 80, containerPort: 8080, protocol: "tcp" },
    ]);
    t = portmapAdd(t, { name: "test" }, "c2", "10.0.0.3/24", [
      { hostPort: 80, containerPort: 8080, protocol: "tcp" },
    ]);
    const text = formatNatTable(t, "restore");
    const lines = text.split("\n");
    expect(lines).toContain(
      '-A POSTROUTING -m comment --comment "CNI portfwd requiring masquerade" -j CNI-HOSTPORT-MASQ',
    );
    expect(lines).toContain("-A PREROUTING -m addrtype --dst-type LOCAL -j CNI-HOSTPORT-DNAT");
    expect(lines).toContain("-A OUTPUT -m addrtype --dst-type LOCAL -j CNI-HOSTPORT-DNAT");
    // No reservation: both containers hold port 80; the first one's jump comes first.
    const jumps = lines.filter((l) => l.startsWith("-A CNI-HOSTPORT-DNAT "));
    expect(jumps).toHaveLength(2);
    expect(jumps[0]).toContain('id: \\"c1\\"');
    t = portmapDel(t, { name: "test" }, "c1");
    t = portmapDel(t, { name: "test" }, "c1");
    const after = formatNatTable(t, "restore");
    expect(after).not.toContain('id: \\"c1\\"');
    expect(after).toContain('id: \\"c2\\"');
    expect(after).toContain(":CNI-HOSTPORT-SETMARK - [0:0]");
  });
});
