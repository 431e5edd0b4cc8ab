/**
 * The nftables parser on upstream and kernel text: the acceptance golden's Dump and the real
 * nft listing read back and print unchanged; errors are FILE:LINE:COL and name the problem.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "@jest/globals";
import { dumpTable } from "../../../src/netfilter/nftables/dump.js";
import { listTable } from "../../../src/netfilter/nftables/list.js";
import { parseNftables } from "../../../src/netfilter/nftables/parse/file.js";
import { ACCEPTANCE_DIR } from "../../helpers/shared.js";

const dir = join(ACCEPTANCE_DIR, "nftables", "sync-repeated-initial");
const read = (f: string): string => readFileSync(join(dir, f), "utf8");

function errorOf(text: string): string {
  try {
    parseNftables(text, "in.nft");
  } catch (e) {
    return (e as Error).message;
  }
  return "no error";
}

describe("parseNftables", () => {
  test("the knftables Dump (expected.dump.nft) prints back byte for byte", () => {
    const t = parseNftables(read("expected.dump.nft"), "expected.dump.nft").tables;
    expect(t.length).toBe(1);
    expect(dumpTable(t[0]!)).toBe(read("expected.dump.nft"));
    expect(listTable(t[0]!)).toBe(read("real-nft-list.txt"));
  });

  test("the real nft listing (nested form) prints back byte for byte", () => {
    const t = parseNftables(read("real-nft-list.txt"), "real-nft-list.txt").tables;
    expect(t.length).toBe(1);
    expect(listTable(t[0]!)).toBe(read("real-nft-list.txt"));
  });

  test("the upstream expected string, in its own order, is refused as nft refuses it", () => {
    expect(errorOf(read("expected.nft"))).toMatch(
      /^in\.nft:\d+:\d+: (goto|jump) to undefined chain/,
    );
  });

  test("an unknown statement is named at its line and column", () => {
    expect(
      errorOf("add table ip t\nadd chain ip t c\nadd rule ip t c ip daddr 10.0.0.1 frobnicate\n"),
    ).toBe('in.nft:3:35: unknown statement or expression "frobnicate"');
  });

  test("transaction verbs: flush, delete, insert", () => {
    const t = parseNftables(
      [
        "add table ip t",
        "add chain ip t c",
        "add rule ip t c counter",
        "flush chain ip t c",
        "add rule ip t c drop",
        "insert rule ip t c accept",
        "add set ip t s { type inet_service ; }",
        "add element ip t s { 80 , 443 }",
        "delete element ip t s { 80 }",
        "add chain ip t gone",
        "delete chain ip t gone",
      ].join("\n"),
    ).tables[0]!;
    expect(t.chains.map((c) => c.name)).toEqual(["c"]);
    expect(t.chains[0]!.rules.map((r) => r.statements[0]!.kind)).toEqual(["verdict", "verdict"]);
    expect(t.sets[0]!.elements).toEqual([{ key: ["443"] }]);
  });

  test("unbalanced braces and unknown commands are errors", () => {
    expect(errorOf("add table ip t {\n")).toMatch(/^in\.nft:1:\d+: unbalanced/);
    expect(errorOf("frob table ip t\n")).toBe('in.nft:1:1: unknown command "frob"');
    expect(
      errorOf("add table ip t\nadd chain ip t c { type filter hook input priority dstnat ; }\n"),
    ).toBe('in.nft:2:52: invalid priority "dstnat" for hook input');
  });
});
