/**
 * A scenario as the tracer's node dataplane: its rule texts parsed per family, its nftables
 * rule set, its ipsets as membership, its IPVS table as the IPVS hook, and the node
 * environment's interfaces. A scenario from our own render (`scenarioOfCluster`) brings its
 * rule sets, ipsets, IPVS table and nftables tables as the data they were printed from, which
 * is used instead of a parse: only text a user supplied is parsed.
 */
import { parseIpsetSave, ipsetTest } from "../../netfilter/ipset/index.js";
import { ipvsHook, parseIpvsadmSave } from "../../netfilter/ipvs/index.js";
import { parseNftables } from "../../netfilter/nftables/parse/index.js";
import { parseIptables } from "../../netfilter/parse/iptables.js";
import { buildDataplane, type NodeDataplane } from "../../netfilter/trace/dataplane.js";
import type { Scenario } from "../backend.js";
import { scenarioData } from "../scenario-data.js";

export function dataplaneOfScenario(scenario: Scenario): NodeDataplane {
  // Rules, sets, IPVS and nftables tables from our own render come as data; a scenario's own
  // texts are input, parsed.
  const data = scenarioData(scenario);
  const ruleSets =
    data?.ruleSets ??
    scenario.rules.map((r) =>
      parseIptables(r.text, { file: `<scenario ${r.family} rules>`, family: r.family }),
    );
  const ipsets =
    data?.ipsets ??
    (scenario.ipsets !== undefined && scenario.ipsets.trim() !== ""
      ? parseIpsetSave(scenario.ipsets, "<scenario ipsets>")
      : undefined);
  const ipvs =
    data?.ipvs ??
    (scenario.ipvs !== undefined && scenario.ipvs.trim() !== ""
      ? parseIpvsadmSave(scenario.ipvs, "<scenario ipvs>")
      : undefined);
  const nftables =
    data?.nftables ??
    (scenario.nftables !== undefined && scenario.nftables.trim() !== ""
      ? parseNftables(scenario.nftables, "<scenario nftables>").tables
      : undefined);
  return buildDataplane({
    ruleSets,
    ...(nftables !== undefined ? { nftables } : {}),
    interfaces: scenario.node.interfaces,
    nfacct: scenario.node.kernel.nfacct,
    ...(ipsets !== undefined
      ? { ipsets: { test: (name, key) => ipsetTest(ipsets, name, key) } }
      : {}),
    ...(ipvs !== undefined ? { ipvs: ipvsHook(ipvs) } : {}),
  });
}
