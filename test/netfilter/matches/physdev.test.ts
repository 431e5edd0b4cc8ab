import { describe, expect, test } from "@jest/globals";
import { IptablesParseError, parseIptables } from "../../../src/netfilter/index.js";
import { extensionContract } from "../contract.js";

extensionContract("physdev", {
  canonical: [
    "-m physdev --physdev-in eth0",
    "-m physdev ! --physdev-is-in ! --physdev-is-bridged",
  ],
  invalid: [
    ["-m physdev", "at least one option"],
    ["-m physdev --physdev-in abcdefghijklmnopq", "invalid interface"],
  ],
  evaluate: [
    ["-m physdev --physdev-is-bridged", {}, "no-match"],
    ["-m physdev ! --physdev-is-bridged", {}, "match"],
  ],
});

// In OUTPUT, the kernel refuses an out-port test unless the packet must be bridged (probed with
// iptables-nft 1.8.9 in a scratch netns; INPUT and FORWARD accept all of these, and so does a
// user chain that OUTPUT jumps to, as nf_tables checks base chains only).
describe("physdev in OUTPUT", () => {
  const accepts = (chain: string, body: string): boolean => {
    try {
      parseIptables(
        `*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n-A ${chain} ${body}\nCOMMIT\n`,
        { family: "IPv4" },
      );
      return true;
    } catch (e) {
      if (e instanceof IptablesParseError) return false;
      throw e;
    }
  };
  test.each([
    ["--physdev-out veth1", false],
    ["! --physdev-out veth1", false],
    ["--physdev-is-out", false],
    ["! --physdev-is-out", false],
    ["--physdev-out veth1 --physdev-is-bridged", true],
    ["--physdev-out veth1 ! --physdev-is-bridged", false],
    ["--physdev-in veth1", true],
    ["--physdev-is-in", true],
    ["--physdev-is-bridged", true],
  ])("-m physdev %s", (options, inOutput) => {
    const body = `-m physdev ${options} -j ACCEPT`;
    expect(accepts("OUTPUT", body)).toBe(inOutput);
    expect(accepts("INPUT", body)).toBe(true);
    expect(accepts("FORWARD", body)).toBe(true);
  });
});
