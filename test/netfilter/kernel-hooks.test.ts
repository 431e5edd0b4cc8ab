/**
 * Where each target and hook-restricted match may stand, with the real kernel as the oracle:
 * every body below is put in every built-in chain of every table, and in a user chain that all
 * of them jump to; our parse must accept it exactly where iptables-restore (ip6tables-restore)
 * does. This covers the tables a target belongs to, the hooks it may be reached from, and the
 * matches that refuse some hooks (addrtype's interface limits, physdev's out-port tests).
 */
import { afterAll, beforeAll, expect } from "@jest/globals";
import { createNetns, deleteNetns, type Netns } from "../../src/backends/netns.js";
import { IptablesParseError, parseIptables } from "../../src/netfilter/index.js";
import type { IPFamily } from "../../src/net/index.js";
import { kernelTest } from "../helpers/kernel.js";

let ns: Netns | undefined;
beforeAll(() => {
  ns = createNetns("kns-nf");
});
afterAll(() => {
  if (ns !== undefined) deleteNetns(ns);
});

const BUILTIN: Readonly<Record<string, readonly string[]>> = {
  raw: ["PREROUTING", "OUTPUT"],
  mangle: ["PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"],
  nat: ["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"],
  filter: ["INPUT", "FORWARD", "OUTPUT"],
  security: ["INPUT", "FORWARD", "OUTPUT"],
};

const COMMON = [
  "-j ACCEPT",
  "-j MARK --set-mark 1",
  "-j CONNMARK --set-mark 1",
  "-j CONNMARK --save-mark",
  "-j LOG",
  "-j NFLOG",
  "-j CT --notrack",
  "-j NOTRACK",
  "-j MASQUERADE",
  "-j REJECT",
  "-p tcp -j REJECT --reject-with tcp-reset",
  "-m addrtype --dst-type LOCAL --limit-iface-in -j ACCEPT",
  "-m addrtype --src-type LOCAL --limit-iface-out -j ACCEPT",
  "-m physdev --physdev-out veth1 -j ACCEPT",
  "-m physdev --physdev-is-out --physdev-is-bridged -j ACCEPT",
  "-m physdev --physdev-in veth1 -j ACCEPT",
  "-m conntrack --ctstate NEW -j ACCEPT",
];
const BODIES: Readonly<Record<IPFamily, readonly string[]>> = {
  IPv4: [
    ...COMMON,
    "-j SNAT --to-source 10.0.0.1",
    "-j DNAT --to-destination 10.0.0.1",
    "-j REJECT --reject-with icmp-host-prohibited",
  ],
  IPv6: [
    ...COMMON,
    "-j SNAT --to-source fd00::1",
    "-j DNAT --to-destination fd00::1",
    "-j REJECT --reject-with icmp6-adm-prohibited",
  ],
};

function accepts(text: string, family: IPFamily): boolean {
  try {
    parseIptables(text, { family });
    return true;
  } catch (e) {
    if (e instanceof IptablesParseError) return false;
    throw e;
  }
}

for (const family of ["IPv4", "IPv6"] as const) {
  const tool = family === "IPv4" ? "iptables" : "ip6tables";
  kernelTest(
    `targets and matches stand where the kernel lets them (${family})`,
    ["root", "ip", tool],
    () => {
      const differ: string[] = [];
      for (const [table, chains] of Object.entries(BUILTIN))
        for (const chain of [...chains, "U"])
          for (const body of BODIES[family]) {
            const jumps = chain === "U" ? chains.map((c) => `-A ${c} -j U`) : [];
            const text = [
              `*${table}`,
              ...chains.map((c) => `:${c} ACCEPT [0:0]`),
              ":U - [0:0]",
              ...jumps,
              `-A ${chain} ${body}`,
              "COMMIT",
              "",
            ].join("\n");
            const kernel = (ns as Netns).run(`${tool}-restore`, [], text).status === 0;
            if (accepts(text, family) !== kernel)
              differ.push(`${table} ${chain} "${body}": kernel ${kernel ? "accepts" : "refuses"}`);
          }
      expect(differ).toEqual([]);
    },
  );
}
