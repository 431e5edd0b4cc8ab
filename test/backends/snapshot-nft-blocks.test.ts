/**
 * `snapshot diff` in nftables mode reads only kube-proxy's tables out of `nft list ruleset`:
 * the ruleset is split into its top-level table blocks, braces inside quoted strings (comments)
 * not counted, each block with the line it starts on (so parse errors point into the file).
 */
import { describe, expect, it } from "@jest/globals";
import { tableBlocks } from "../../src/backends/snapshot/diff-nftables.js";

const RULESET = `table ip filter {
	chain INPUT {
		type filter hook input priority filter; policy accept;
		meta l4proto tcp counter packets 0 bytes 0 # xt_comment "a } brace"
	}
}
table ip kube-proxy {
	comment "rules for kube-proxy"
	chain services {
		ip daddr . meta l4proto . th dport vmap @service-ips
	}
}
table ip6 kube-proxy {
	comment "odd { comment"
}
`;

describe("tableBlocks", () => {
  it("splits a ruleset into its tables, quoted braces not counted", () => {
    const blocks = tableBlocks(RULESET);
    expect(blocks.map((b) => [b.family, b.name, b.line])).toEqual([
      ["ip", "filter", 1],
      ["ip", "kube-proxy", 7],
      ["ip6", "kube-proxy", 13],
    ]);
    expect(blocks[1]!.text).toBe(RULESET.split("\n").slice(6, 12).join("\n") + "\n");
    expect(blocks.map((b) => b.text).join("")).toBe(RULESET);
  });

  it("an empty ruleset has no tables", () => {
    expect(tableBlocks("")).toEqual([]);
  });
});
