/**
 * `-m addrtype --limit-iface-in` / `--limit-iface-out` in a trace: the address's type is asked
 * of the packet's input (output) interface only (iptables-extensions(8): "The address type
 * checking can be limited to the interface the packet is coming in"; xt_addrtype.c passes the
 * device to `inet_dev_addr_type`, which finds an address LOCAL only on that device). The node
 * has 10.0.0.1 on eth1 alone: it is LOCAL on eth1, not on eth0.
 */
import { describe, expect, test } from "@jest/globals";
import { parseIptables } from "../../../src/netfilter/index.js";
import { buildDataplane, trace } from "../../../src/netfilter/trace/index.js";

const interfaces = [
  { name: "lo", addresses: ["127.0.0.1/8"] },
  { name: "eth0", addresses: ["192.168.0.2/24"] },
  { name: "eth1", addresses: ["10.0.0.1/24"] },
];

function node(chain: "INPUT" | "OUTPUT", rule: string) {
  const text = `*filter\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n-A ${chain} ${rule}\nCOMMIT\n`;
  return buildDataplane({
    ruleSets: [parseIptables(text, { file: "t.rules", family: "IPv4" })],
    interfaces,
  });
}

const verdicts = (r: ReturnType<typeof trace>) => r.outcomes.map((o) => o.verdict);

describe("addrtype limited to an interface", () => {
  // Both walks: the depth-first one (no explanations) and the reference one.
  for (const explain of [false, true]) {
    test(`--limit-iface-in asks the input interface only (explain: ${explain})`, () => {
      const dp = node("INPUT", "-m addrtype --dst-type LOCAL --limit-iface-in -j DROP");
      const to = { proto: "tcp", src: "192.168.0.9", dst: "10.0.0.1", dport: 80 } as const;
      const opts = { explain, flowCache: false };
      expect(verdicts(trace(dp, { ...to, inInterface: "eth0" }, opts))).toEqual(["NONE"]);
      expect(verdicts(trace(dp, { ...to, inInterface: "eth1" }, opts))).toEqual(["DROP"]);
    });

    test(`--limit-iface-out asks the output interface only (explain: ${explain})`, () => {
      // A locally generated packet from 10.0.0.1 leaves by eth0 (to 192.168.0.9) or eth1.
      const dp = node("OUTPUT", "-m addrtype --src-type LOCAL --limit-iface-out -j DROP");
      const opts = { explain, flowCache: false };
      const from = { proto: "tcp", src: "10.0.0.1", dport: 80 } as const;
      expect(verdicts(trace(dp, { ...from, dst: "192.168.0.9" }, opts))).toEqual(["NONE"]);
      expect(verdicts(trace(dp, { ...from, dst: "10.0.0.9" }, opts))).toEqual(["DROP"]);
    });
  }
});
