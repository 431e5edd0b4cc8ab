import { describe, expect, test } from "@jest/globals";
import { loadCluster } from "../../src/model/load-files.js";
import { ValidationError, formatIssue } from "../../src/model/issue.js";

const DIR = "test/model/fixtures/dir";

describe("loadCluster", () => {
  test("a directory contributes its *.yaml, *.yml and *.json files sorted by name, not subdirectories", () => {
    const c = loadCluster(DIR);
    expect(c.namespaces.map((n) => n.metadata?.name)).toEqual(["a", "b", "c"]);
    expect(c.sources["Namespace/a"]?.file).toBe(`${DIR}/a.json`);
  });

  test("several sources, and - for stdin", () => {
    const c = loadCluster([`${DIR}/b.yaml`, "-"], {
      readStdin: () => "apiVersion: v1\nkind: Namespace\nmetadata: {name: from-stdin}\n",
    });
    expect(c.namespaces.map((n) => n.metadata?.name)).toEqual(["b", "from-stdin"]);
    expect(c.sources["Namespace/from-stdin"]).toEqual({ file: "<stdin>", line: 1, col: 1 });
  });

  test("unreadable sources are io issues, all of them", () => {
    let err: unknown;
    try {
      loadCluster(["nope.yaml", "-", `${DIR}/b.yaml`]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map(formatIssue)).toEqual([
      "nope.yaml:1:1: no such file or directory",
      "-:1:1: reading stdin is not available here",
    ]);
  });

  test("options reach the parser", () => {
    const c = loadCluster("-", {
      validation: "warn",
      readStdin: () =>
        "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 80, protocol: SCTP}]}\n",
      featureGates: { SCTPSupport: false },
    });
    expect(c.warnings.map((w) => w.message)).toEqual([
      'Unsupported value: "SCTP": supported values: "TCP", "UDP"',
    ]);
  });
});
