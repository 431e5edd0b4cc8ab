/**
 * The IPVS proxier's ipsets are data (the netfilter ipset model) and `ipset save` text is printed
 * from them: the sets deep-equal what the ipset parser reads from that text, on the acceptance
 * cases and on random clusters, and the simulator's node uses the sets themselves.
 */
import { describe, expect, test } from "@jest/globals";
import { fc, it } from "@fast-check/jest";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { formatIpsetSave, parseIpsetSave } from "../../../src/netfilter/ipset/index.js";
import { renderIpvs } from "../../../src/proxiers/ipvs/index.js";
import { ipvsDataplaneInput } from "../../../src/node/ipvs-dataplane.js";
import { scenarioOfCluster } from "../../../src/backends/scenario-of-cluster.js";
import { scenarioData } from "../../../src/backends/scenario-data.js";
import {
  IPVS_CONFIG,
  NODE,
  clusterOf,
  scenarioOf,
  serviceSpecArb,
} from "../../differential/scenario.js";
import { ACCEPTANCE_IPVS, renderCase } from "./helpers.js";

const cases = readdirSync(ACCEPTANCE_IPVS).filter((d) =>
  existsSync(join(ACCEPTANCE_IPVS, d, "expected.checks.yaml")),
);

describe("IPVS ipsets as data", () => {
  test.each(cases)("acceptance %s: the sets are what their save text parses to", (name) => {
    const r = renderCase(join(ACCEPTANCE_IPVS, name));
    expect(r.ipsets.length).toBeGreaterThanOrEqual(17);
    expect(r.ipsets.some((s) => s.entries.length > 0)).toBe(true);
    expect(r.ipsets).toEqual(parseIpsetSave(r.ipset));
    expect(formatIpsetSave(r.ipsets)).toBe(r.ipset);
  });

  const clusters = fc
    .array(serviceSpecArb, { minLength: 1, maxLength: 4 })
    .map((specs) => clusterOf(scenarioOf(specs)));

  it.prop([clusters], { numRuns: 40, seed: 17 })(
    "random clusters: the sets are what their save text parses to",
    (cluster) => {
      const r = renderIpvs(cluster, { node: NODE, proxyConfig: IPVS_CONFIG });
      expect(r.ipsets).toEqual(parseIpsetSave(r.ipset));
    },
  );

  it.prop([clusters], { numRuns: 10, seed: 17 })(
    "the simulator's node and our scenario carry the rendered sets, not a parse of their text",
    (cluster) => {
      const opts = { node: NODE, proxyConfig: IPVS_CONFIG };
      const { render } = ipvsDataplaneInput(cluster, opts);
      const scenario = scenarioOfCluster(cluster, opts);
      expect(scenario.ipsets).toBe(render.ipset);
      expect(scenarioData(scenario)?.ipsets).toEqual(render.ipsets);
      // A scenario changed by its user is input again: no data remembered for the copy.
      expect(scenarioData({ ...scenario })).toBeUndefined();
    },
  );
});
