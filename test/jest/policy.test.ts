/**
 * toAllow / toDeny on the SCTP test plan's policy example (examples/sctp-policy: a policy that
 * allows ingress to the server on SCTP 5000 only, so TCP and UDP are denied).
 */
import { describe, expect, test } from "@jest/globals";
import "../../src/jest/index.js";
import { loadCluster } from "../../src/model/load-files.js";
import { compilePolicies } from "../../src/policy/compile.js";

const c = loadCluster("examples/sctp-policy/cluster.yaml");
const q = { from: "default/client", to: "default/server", port: 5000 } as const;

describe("toAllow / toDeny", () => {
  test("pass on the verdict, for a Cluster and for compiled policies", () => {
    expect(c).toAllow({ ...q, protocol: "SCTP" });
    expect(c).toDeny({ ...q, protocol: "TCP" });
    expect(compilePolicies(c)).toDeny({ ...q, protocol: "UDP" });
    expect(c).not.toAllow({ ...q, protocol: "TCP" });
    expect(c).not.toDeny({ ...q, protocol: "SCTP" });
  });

  test("a failure prints the explanation: the isolating policy and the rule that did not match", () => {
    expect(() => expect(c).toAllow({ ...q, protocol: "TCP" })).toThrow(
      /expected default\/client -> default\/server TCP\/5000 to be allowed, but it is denied[\s\S]*isolated by default\/allow-sctp-5000[\s\S]*ingress\[0\]: no match .*TCP\/5000 is not in SCTP\/5000/,
    );
    expect(() => expect(c).not.toDeny({ ...q, protocol: "UDP" })).toThrow(
      /not to be denied, but it is denied/,
    );
  });

  test("bad input fails with the input error, not a stack", () => {
    expect(() => expect(c).toAllow({ ...q, to: "default/nope" })).toThrow(/toAllow: .*nope/);
    expect(() => expect({ not: "a cluster" }).toAllow(q)).toThrow(/must be a Cluster/);
  });
});
