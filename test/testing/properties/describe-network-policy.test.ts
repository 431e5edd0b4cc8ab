// describeNetworkPolicyConformance over the example plugin: the properties as jest tests.
import { join } from "node:path";
import {
  describeNetworkPolicyConformance,
  type ConformanceAdapter,
} from "../../../src/testing/index.js";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { tinypol } = require(
  join(__dirname, "../../../examples/plugin-repo-cjs/src/netpol-plugin.ts"),
) as {
  readonly tinypol: ConformanceAdapter;
};

describeNetworkPolicyConformance(tinypol, { numRuns: 10 });
