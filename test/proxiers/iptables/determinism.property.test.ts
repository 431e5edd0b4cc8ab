/** Output is a function of the cluster's content, never of object order or of earlier calls. */
import { describe, expect } from "@jest/globals";
import { fc, test } from "@fast-check/jest";
import { makeCluster } from "../../../src/model/cluster.js";
import { renderIptablesFamilies } from "../../../src/proxiers/iptables/render.js";
import { kubeCluster } from "../../../src/testing/arbitraries/kubeCluster.js";
import { FAKE_CONFIG, FAKE_NODE } from "./helpers.js";

describe("renderIptables determinism", () => {
  test.prop(
    [
      kubeCluster({ maxServices: 5 }).chain((g) =>
        fc.tuple(
          fc.constant(g),
          fc.shuffledSubarray([...g.services], { minLength: g.services.length }),
          fc.shuffledSubarray([...g.endpointSlices], { minLength: g.endpointSlices.length }),
        ),
      ),
    ],
    { numRuns: 100 },
  )("restore text does not depend on input order", ([g, services, slices]) => {
    const opts = { node: FAKE_NODE, proxyConfig: FAKE_CONFIG };
    const a = renderIptablesFamilies(g.cluster, opts)[0]!.restore;
    const b = renderIptablesFamilies(makeCluster({ services, endpointSlices: slices }), opts)[0]!
      .restore;
    expect(b).toBe(a);
    expect(renderIptablesFamilies(g.cluster, opts)[0]!.restore).toBe(a);
  });
});
