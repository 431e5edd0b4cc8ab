import { afterEach, describe, expect, test } from "@jest/globals";
import { runCli, type CliIO } from "../../src/cli/program.js";

interface Captured {
  readonly io: CliIO;
  readonly out: () => string;
  readonly err: () => string;
}

function capture(stdin = ""): Captured {
  let out = "";
  let err = "";
  return {
    io: { stdout: (s) => (out += s), stderr: (s) => (err += s), readStdin: () => stdin },
    out: () => out,
    err: () => err,
  };
}

async function run(
  args: string[],
  stdin = "",
): Promise<{ code: number; out: string; err: string }> {
  const c = capture(stdin);
  const code = await runCli(args, c.io);
  return { code, out: c.out(), err: c.err() };
}

afterEach(() => {
  // The CLI reports its exit code through process.exitCode; keep it from leaking into jest.
  process.exitCode = undefined;
});

const BROKEN = "test/model/fixtures/broken/nodeport-loadbalancer.yaml";

describe("kube-netsim validate", () => {
  test("a valid directory prints ok, exit 0", async () => {
    expect(await run(["validate", "-f", "examples/sctp-test-plan/"])).toEqual({
      code: 0,
      out: "ok\n",
      err: "",
    });
  });

  test("several -f sources", async () => {
    const r = await run([
      "validate",
      "-f",
      "examples/multi-namespace-app/namespaces.yaml",
      "-f",
      "examples/multi-namespace-app/workloads.yaml",
    ]);
    expect(r).toEqual({ code: 0, out: "ok\n", err: "" });
  });

  test("errors: every issue on stderr, one line each, exit 2, no ok", async () => {
    const r = await run(["validate", "-f", BROKEN]);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    const lines = r.err.trimEnd().split("\n");
    expect(lines).toHaveLength(7);
    expect(lines[0]).toBe(
      `${BROKEN}:11:9: Service shop/web: spec.ports[1].name: Duplicate value: "http"`,
    );
    expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
  });

  test("--validation warn: the same issues as warnings, exit 0", async () => {
    const r = await run(["validate", "-f", BROKEN, "--validation", "warn"]);
    expect(r.code).toBe(0);
    expect(r.out).toBe("ok\n");
    expect(
      r.err
        .trimEnd()
        .split("\n")
        .every((l) => l.includes(": warning: ")),
    ).toBe(true);
  });

  test("--feature-gates SCTPSupport=false rejects SCTP", async () => {
    const r = await run([
      "validate",
      "-f",
      "examples/sctp-test-plan",
      "--feature-gates",
      "SCTPSupport=false",
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      'spec.ports[0].protocol: Unsupported value: "SCTP": supported values: "TCP", "UDP"',
    );
  });

  test("a bad --feature-gates value is a usage error", async () => {
    const r = await run([
      "validate",
      "-f",
      "examples/sctp-test-plan",
      "--feature-gates",
      "SCTPSupport=maybe",
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("SCTPSupport=maybe");
  });

  test("--output json", async () => {
    const r = await run(["validate", "-f", BROKEN, "--output", "json"]);
    expect(r.code).toBe(2);
    const doc = JSON.parse(r.out) as {
      valid: boolean;
      errors: number;
      warnings: number;
      issues: Record<string, unknown>[];
    };
    expect(doc.valid).toBe(false);
    // The leading-zero clusterIP is a warning while StrictIPCIDRValidation is off (its default).
    expect(doc.errors).toBe(6);
    expect(doc.warnings).toBe(1);
    expect(doc.issues[0]).toEqual({
      severity: "error",
      code: "duplicate",
      file: BROKEN,
      line: 11,
      col: 9,
      object: { kind: "Service", namespace: "shop", name: "web" },
      field: "spec.ports[1].name",
      message: 'Duplicate value: "http"',
    });
    const ok = await run(["validate", "-f", "examples/nodeport-loadbalancer", "-o", "json"]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({
      valid: true,
      errors: 0,
      warnings: 0,
      issues: [],
      objects: { services: 2, pods: 3, nodes: 2 },
    });
  });

  test("stdin with -f -", async () => {
    const r = await run(
      ["validate", "-f", "-"],
      "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: eighty}]}\n",
    );
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      '<stdin>:4:17: Service default/s: spec.ports[0].port: Invalid value: "eighty": must be of type integer\n' +
        "<stdin>:4:17: Service default/s: spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive\n" +
        "<stdin>:4:16: Service default/s: spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive\n",
    );
  });

  test("a missing file and no -f at all", async () => {
    expect(await run(["validate", "-f", "nope.yaml"])).toEqual({
      code: 2,
      out: "",
      err: "nope.yaml:1:1: no such file or directory\n",
    });
    const r = await run(["validate"]);
    expect(r.code).toBe(2);
    expect(r.err).toBe("kube-netsim: no manifests given: use -f FILE, -f DIR or -f -\n");
  });

  test("an unsupported --output", async () => {
    const r = await run(["validate", "-f", "examples/sctp-test-plan", "-o", "tsv"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--output: unsupported value "tsv": supported values: "text", "json"');
  });
});
