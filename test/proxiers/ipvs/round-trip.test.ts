/**
 * The three texts `render ipvs` prints read back through the parsers and print the same, for
 * random clusters: ipvsadm-save (and -Ln), ipset save (also with the kernel's bucketsize/initval
 * create options), and the iptables-restore payload (whose rule set, built as data, is what the
 * parser reads from it).
 */
import { describe, expect } from "@jest/globals";
import { fc, it } from "@fast-check/jest";
import { formatIptablesRestore } from "../../../src/netfilter/format/index.js";
import { formatIpsetSave, parseIpsetSave } from "../../../src/netfilter/ipset/index.js";
import {
  formatIpvsadmList,
  formatIpvsadmSave,
  parseIpvsadmList,
  parseIpvsadmSave,
} from "../../../src/netfilter/ipvs/index.js";
import type { RuleSet } from "../../../src/netfilter/model.js";
import { parseIptables } from "../../../src/netfilter/parse/iptables.js";
import { renderIpvs } from "../../../src/proxiers/ipvs/index.js";
import {
  IPVS_CONFIG,
  NODE,
  clusterOf,
  scenarioOf,
  serviceSpecArb,
} from "../../differential/scenario.js";
import { tableAsSet } from "./helpers.js";

/** A rule set without source lines (the node state's restore form is laid out anew). */
function withoutLines(rs: RuleSet): unknown {
  return JSON.parse(
    JSON.stringify(rs, (k, v: unknown) =>
      k === "line" ? undefined : typeof v === "bigint" ? `${v}n` : v,
    ),
  );
}

const rendered = fc
  .array(serviceSpecArb, { minLength: 1, maxLength: 4 })
  .map((specs) =>
    renderIpvs(clusterOf(scenarioOf(specs)), { node: NODE, proxyConfig: IPVS_CONFIG }),
  );

describe("render ipvs output round-trips through the parsers", () => {
  it.prop([rendered], { numRuns: 60 })("ipvsadm-save -n and ipvsadm -Ln", (r) => {
    expect(formatIpvsadmSave(parseIpvsadmSave(r.ipvs))).toBe(r.ipvs);
    expect(tableAsSet(parseIpvsadmList(formatIpvsadmList(r.state.table)))).toEqual(
      tableAsSet(r.state.table),
    );
  });

  it.prop([rendered, fc.integer({ min: 1, max: 64 }), fc.nat({ max: 0xffffffff })], {
    numRuns: 60,
  })("ipset save, with or without the kernel's trailing create options", (r, bucket, initval) => {
    const sets = parseIpsetSave(r.ipset);
    expect(sets).toHaveLength(17);
    expect(formatIpsetSave(sets)).toBe(r.ipset);
    const asKernelPrints = r.ipset.replace(
      /^(create \S+ hash:\S+ family \S+ hashsize 1024 maxelem 65536)$/gm,
      `$1 bucketsize ${bucket} initval 0x${initval.toString(16)}`,
    );
    expect(formatIpsetSave(parseIpsetSave(asKernelPrints))).toBe(r.ipset);
  });

  it.prop([rendered], { numRuns: 60 })("the iptables-restore payload", (r) => {
    for (const f of r.state.families) {
      expect(formatIptablesRestore(parseIptables(f.iptables, { family: f.family }))).toBe(
        f.iptables,
      );
      // The rules are built as data: exactly what the parser reads from their text.
      expect(f.payload).toEqual(parseIptables(f.iptables, { family: f.family }));
      const node = parseIptables(f.iptablesWithJumps, { family: f.family });
      expect(withoutLines(f.ruleSet)).toEqual(withoutLines(node));
    }
  });
});
