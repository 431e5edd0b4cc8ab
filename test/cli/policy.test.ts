/** `kube-netsim policy check|matrix|diff|lint` through runCli with a fake io. */
import { afterEach, describe, expect, test } from "@jest/globals";
import { join } from "node:path";
import { runCli } from "../../src/cli/program.js";
import { ACCEPTANCE_DIR } from "../helpers/shared.js";

const ROOT = join(__dirname, "../..");
const EXAMPLE = join(ROOT, "examples/sctp-policy");
const ACCEPTANCE = join(ACCEPTANCE_DIR, "netpol");

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCli(argv, {
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
    readStdin: () => "",
  });
  return { code, out, err };
}

afterEach(() => {
  // runCli reports process.exitCode; do not leak a verdict into jest's own exit code.
  process.exitCode = 0;
});

describe("policy check", () => {
  test.each([
    ["SCTP", 0, "allowed"],
    ["TCP", 1, "denied"],
    ["UDP", 1, "denied"],
  ])("SCTP policy example, %s", async (protocol, code, word) => {
    const r = await run(
      "policy",
      "check",
      "-f",
      EXAMPLE,
      "--from",
      "default/client",
      "--to",
      "default/server",
      "--port",
      "5000",
      "--protocol",
      protocol,
    );
    expect(r.code).toBe(code);
    expect(r.out.split("\n")[0]).toBe(`default/client -> default/server ${protocol}/5000: ${word}`);
    expect(r.out).toContain(
      "NetworkPolicy default/allow-sctp-5000 selects the subject for Ingress",
    );
  });

  test("json output is the explanation data", async () => {
    const r = await run(
      "policy",
      "check",
      "-f",
      EXAMPLE,
      "--from",
      "10.244.1.10",
      "--to",
      "default/server",
      "--port",
      "5000",
      "--protocol",
      "tcp",
      "--output",
      "json",
    );
    expect(r.code).toBe(1);
    const ex = JSON.parse(r.out) as {
      allowed: boolean;
      from: string;
      ingress: { decision: { kind: string; policies: string[] } };
    };
    expect(ex.allowed).toBe(false);
    expect(ex.from).toBe("default/client");
    expect(ex.ingress.decision).toEqual({
      kind: "networkpolicy-deny",
      policies: ["default/allow-sctp-5000"],
    });
  });

  test("bad input exits 2 with one line", async () => {
    for (const args of [
      ["--from", "default/nope", "--to", "default/server", "--port", "80"],
      ["--from", "default/client", "--to", "default/server", "--port", "99999"],
      ["--from", "default/client", "--to", "default/server", "--port", "80", "--protocol", "ICMP"],
    ]) {
      const r = await run("policy", "check", "-f", EXAMPLE, ...args);
      expect(r.code).toBe(2);
      expect(r.err.trim().split("\n")).toHaveLength(1);
      expect(r.err).not.toContain("    at ");
    }
  });
});

describe("policy matrix", () => {
  test("TSV header and rows, self pairs included", async () => {
    const r = await run(
      "policy",
      "matrix",
      "-f",
      EXAMPLE,
      "--ports",
      "5000",
      "--protocols",
      "TCP,SCTP",
    );
    expect(r.code).toBe(0);
    // sorted by (from, to, port, protocol)
    expect(r.out.split("\n")).toEqual([
      "from\tto\tport\tprotocol\tallowed",
      "default/client\tdefault/client\t5000\tSCTP\ttrue",
      "default/client\tdefault/client\t5000\tTCP\ttrue",
      "default/client\tdefault/server\t5000\tSCTP\ttrue",
      "default/client\tdefault/server\t5000\tTCP\tfalse",
      "default/server\tdefault/client\t5000\tSCTP\ttrue",
      "default/server\tdefault/client\t5000\tTCP\ttrue",
      "default/server\tdefault/server\t5000\tSCTP\ttrue",
      "default/server\tdefault/server\t5000\tTCP\ttrue",
      "",
    ]);
  });

  test("text grid as the e2e suite prints it", async () => {
    const r = await run(
      "policy",
      "matrix",
      "-f",
      join(ACCEPTANCE, "01-default-deny-ingress"),
      "--ports",
      "80",
      "--protocols",
      "TCP",
      "--output",
      "text",
    );
    const all = r.out.split("\n");
    // a legend (symbols and axes) above the grids, then a blank line
    expect(all[0]).toContain("rows: from");
    expect(all[0]).toContain("columns: to");
    expect(all[1]).toContain(". allowed");
    expect(all[1]).toContain("X denied");
    expect(all[1]).toContain("? unknown");
    expect(all[2]).toBe("");
    const lines = all.slice(3);
    expect(lines[0]).toBe("TCP/80:");
    expect(lines[1]).toBe("-\tx/a\tx/b\tx/c\ty/a\ty/b\ty/c\tz/a\tz/b\tz/c");
    expect(lines[2]).toBe("x/a\t.\tX\tX\t.\t.\t.\t.\t.\t.");
    expect(lines[5]).toBe("y/a\tX\tX\tX\t.\t.\t.\t.\t.\t.");
  });

  test("json rows", async () => {
    const r = await run(
      "policy",
      "matrix",
      "-f",
      EXAMPLE,
      "--ports",
      "5000",
      "--protocols",
      "UDP",
      "--output",
      "json",
    );
    const rows = JSON.parse(r.out) as unknown[];
    expect(rows).toContainEqual({
      from: "default/client",
      to: "default/server",
      port: 5000,
      protocol: "UDP",
      allowed: false,
    });
    expect(rows).toHaveLength(4);
  });

  test("bad --ports exits 2", async () => {
    expect((await run("policy", "matrix", "-f", EXAMPLE, "--ports", "80,x")).code).toBe(2);
  });
});

describe("policy diff", () => {
  test("lists changed verdicts and exits 1", async () => {
    const r = await run(
      "policy",
      "diff",
      "-f",
      EXAMPLE,
      "--against",
      join(EXAMPLE, "variants/allow-sctp-and-tcp.yaml"),
      "--ports",
      "5000",
      "--output",
      "tsv",
    );
    expect(r.code).toBe(1);
    expect(r.out).toBe(
      "from\tto\tport\tprotocol\tbefore\tafter\ndefault/client\tdefault/server\t5000\tTCP\tfalse\ttrue\n",
    );
  });
  test("no change exits 0", async () => {
    const r = await run("policy", "diff", "-f", EXAMPLE, "--against", EXAMPLE);
    expect(r.code).toBe(0);
    expect(r.out).toBe("no verdict changes\n");
  });
});

describe("policy lint", () => {
  test("warnings, exit 0, or 1 with --strict", async () => {
    const files = ["-f", EXAMPLE, "-f", join(EXAMPLE, "variants/lint-problems.yaml")];
    const r = await run("policy", "lint", ...files);
    expect(r.code).toBe(0);
    expect(r.out).toContain("[unserved-named-port]");
    expect(r.out).toContain("[selects-nothing]");
    expect(r.out).toContain("[ip-block-covers-pods]");
    expect((await run("policy", "lint", ...files, "--strict")).code).toBe(1);
    const clean = await run("policy", "lint", "-f", EXAMPLE, "--strict");
    expect(clean).toMatchObject({ code: 0, out: "no warnings\n" });
  });
});

describe("acceptance through the CLI", () => {
  const cases = [
    "01-default-deny-ingress",
    "03-pod-or-namespace-selector-or",
    "05-named-port-from-namespace",
    "07-stacked-policies-union",
    "09-sctp-only-policy-blocks-tcp",
    "11-anp-pass-to-networkpolicy",
  ];
  test.each(cases)("%s: policy matrix --output tsv joined with expected.tsv", async (name) => {
    const { readFileSync } = await import("node:fs");
    const expected = readFileSync(join(ACCEPTANCE, name, "expected.tsv"), "utf8")
      .trim()
      .split("\n")
      .slice(1)
      .map((l) => l.split("\t"));
    const ports = [...new Set(expected.map((e) => e[2]))].join(",");
    const protocols = [...new Set(expected.map((e) => e[3]))].join(",");
    const r = await run(
      "policy",
      "matrix",
      "-f",
      join(ACCEPTANCE, name, "cluster.yaml"),
      "--ports",
      ports,
      "--protocols",
      protocols,
    );
    expect(r.code).toBe(0);
    const [header, ...rows] = r.out.trim().split("\n");
    expect(header).toBe("from\tto\tport\tprotocol\tallowed");
    const got = new Map(
      rows.map((l) => {
        const f = l.split("\t");
        return [f.slice(0, 4).join("\t"), f[4]] as const;
      }),
    );
    const wrong = expected.filter((e) => got.get(e.slice(0, 4).join("\t")) !== e[4]);
    expect(wrong).toEqual([]);
  });
});
