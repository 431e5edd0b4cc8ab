/**
 * One rule set on several nodes: the depth-first walk keeps one walker per rule set, reused
 * from packet to packet, and each packet must be routed with its own node's addresses (the
 * walker's address book is the packet's node's). Two nodes with the same rule set, that route
 * the endpoints out of different interfaces, with different MASQUERADE sources, traced in turns: each agrees with the reference walk on its node.
 */
import { describe, expect, test } from "@jest/globals";
import { parseIptables } from "../../../src/netfilter/index.js";
import { buildDataplane, trace } from "../../../src/netfilter/trace/index.js";
import { twoEndpointServiceRules } from "./builders.js";

const RULES = twoEndpointServiceRules(8080, ["-A POSTROUTING -j MASQUERADE"]);

type Interfaces = { name: string; addresses: string[] }[];

describe("one rule set on two nodes", () => {
  // Either node first: a fresh rule set each time (so a fresh walker), as whatever a walker
  // kept from one packet would be the first node's.
  test.each([
    ["the node with two MASQUERADE sources", false],
    ["the node with one MASQUERADE source", true],
  ])(
    "each packet is routed and masqueraded with its own node's addresses, %s first",
    (_, reversed) => {
      const ruleSet = parseIptables(RULES, { file: "t.rules", family: "IPv4" });
      const node = (interfaces: Interfaces) =>
        buildDataplane({
          ruleSets: [ruleSet],
          interfaces: [{ name: "lo", addresses: ["127.0.0.1/8"] }, ...interfaces],
        });
      const both = [
        // The endpoints behind cbr0, each in a prefix of its own (two MASQUERADE sources).
        node([
          { name: "eth0", addresses: ["192.168.0.2/24"] },
          { name: "cbr0", addresses: ["10.244.0.1/16", "10.245.0.1/16"] },
        ]),
        // Both behind eth0 (routed another way, one MASQUERADE source).
        node([{ name: "eth0", addresses: ["192.168.0.2/24", "10.244.0.7/15"] }]),
      ];
      const nodes = reversed ? both.reverse() : both;
      const packet = { proto: "tcp", src: "192.168.0.9", dst: "172.30.0.1", dport: 80 } as const;
      const sources = new Set<string | undefined>();
      for (let round = 0; round < 3; round++)
        for (const dp of nodes) {
          const fast = trace(dp, packet, { explain: false, flowCache: false });
          const reference = trace(dp, packet, { explain: false, flowCache: false, indexed: false });
          expect(fast.outcomes).toEqual(reference.outcomes);
          expect(fast.outcomes).toHaveLength(2);
          for (const o of fast.outcomes) sources.add(o.source);
        }
      // The nodes route and masquerade differently (else the test could not tell them apart).
      expect(sources.size).toBe(3);
    },
  );
});
