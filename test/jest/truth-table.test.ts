/**
 * toMatchTruthTable with upstream e2e grids (`-` header, `.` allowed, `X` blocked). Facts:
 * examples/sctp-policy isolates default/server for ingress and allows only SCTP/5000, so over
 * TCP/5000 only client -> server is blocked (a pod to itself is always allowed); over SCTP
 * everything is allowed.
 */
import { describe, expect, test } from "@jest/globals";
import "../../src/jest/index.js";
import { parseTruthTable } from "../../src/jest/truth-table.js";
import { loadCluster } from "../../src/model/load-files.js";

const c = loadCluster("examples/sctp-policy/cluster.yaml");

const tcp = `
-\tdefault/client\tdefault/server
default/client\t.\tX
default/server\t.\t.
`;

describe("toMatchTruthTable", () => {
  test("passes on the right grid, with or without a PROTOCOL/PORT heading", () => {
    expect(c).toMatchTruthTable(tcp, { port: 5000, protocol: "TCP" });
    expect(c).toMatchTruthTable(
      `TCP/5000:${tcp}\nSCTP/5000:\n- default/server default/client\ndefault/client . .\ndefault/server . .\n`,
    );
    expect(c).not.toMatchTruthTable(tcp, { port: 5000, protocol: "SCTP" });
  });

  test("a failure prints expected, observed and the comparison grid, and names the cells", () => {
    const wrong = tcp.replace("default/client\t.\tX", "default/client\t.\t.");
    let message = "";
    try {
      expect(c).toMatchTruthTable(wrong, { port: 5000 });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain(
      "expected:\nTCP/5000:\n-\tdefault/client\tdefault/server\ndefault/client\t.\t.",
    );
    expect(message).toContain(
      "observed:\nTCP/5000:\n-\tdefault/client\tdefault/server\ndefault/client\t.\tX",
    );
    expect(message).toContain(
      "comparison (. agree, X differ):\nTCP/5000:\n-\tdefault/client\tdefault/server\ndefault/client\t.\tX\ndefault/server\t.\t.",
    );
    expect(message).toContain(
      "default/client -> default/server: expected allowed, observed blocked",
    );
  });

  test("bad grids and unknown pods fail with a line number or the pod", () => {
    expect(() => parseTruthTable("default/a . X")).toThrow(/line 1: expected a header/);
    expect(() => parseTruthTable("- a b\na . ?")).toThrow(/line 2: cell "\?"/);
    expect(() => parseTruthTable("- a b\na .")).toThrow(/line 2: row a has 1 cells/);
    expect(() => expect(c).toMatchTruthTable("- default/ghost\ndefault/client .")).toThrow(
      /pod default\/ghost is not in the cluster/,
    );
  });
});
