/**
 * Issue 19: a UTF-8 byte order mark before `*filter` is named (iptables-restore refuses the
 * input too: "line 1 failed"), not reported as `"*filter" outside of a table`.
 */
import { expect } from "@jest/globals";
import { withNetns } from "../../../src/backends/netns.js";
import { IptablesParseError, parseIptables } from "../../../src/netfilter/index.js";
import { kernelRulesOnly, kernelTest } from "../../helpers/kernel.js";

// Rules only: loads, checks and listings in its own namespaces, nothing timed.
kernelRulesOnly();

const TEXT = "*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -j ACCEPT\nCOMMIT\n";

kernelTest(
  "a byte order mark: refused by both, named by us",
  ["root", "ip", "iptables"],
  async () => {
    await withNetns(
      1,
      ([ns]) => {
        expect(ns!.run("iptables-restore", [], `\uFEFF${TEXT}`).status).not.toBe(0);
        expect(ns!.run("iptables-restore", [], TEXT).status).toBe(0);
      },
      "kns-bom",
    );
    expect(() => parseIptables(`\uFEFF${TEXT}`, { file: "f.rules" })).toThrow(IptablesParseError);
    expect(() => parseIptables(`\uFEFF${TEXT}`, { file: "f.rules" })).toThrow(
      /^f\.rules:1: the input starts with a UTF-8 byte order mark \(U\+FEFF\)/,
    );
    expect(parseIptables(TEXT).tables).toHaveLength(1);
  },
);
