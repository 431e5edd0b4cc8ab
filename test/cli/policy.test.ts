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

describe("ClusterNetworkPolicy through the CLI", () => {
  const CNP = join(ROOT, "examples/cluster-network-policy");
  const cnpFiles = (example: string): string[] => [
    "-f",
    join(CNP, "cluster.yaml"),
    "-f",
    join(CNP, example),
  ];
  const GUARD = "example3-sctp-egress-guard.yaml";

  test("check: the worked SCTP example, -o json", async () => {
    const args = ["--from", "dev/tester", "--to", "203.0.113.5", "--port", "3868"];
    const sctp = await run("policy", "check", ...cnpFiles(GUARD), ...args, "--protocol", "SCTP");
    expect(sctp.code).toBe(0);
    expect(sctp.out).toContain(
      '[CNP Baseline] Accept by egress-guard priority 5 egress[2] "diameter"',
    );
    const tcp = await run("policy", "check", ...cnpFiles(GUARD), ...args, "-o", "json");
    expect(tcp.code).toBe(1);
    const ex = JSON.parse(tcp.out) as { verdict: string; egress: { decision: unknown } };
    expect(ex.verdict).toBe("denied");
    expect(ex.egress.decision).toMatchObject({ policy: "egress-guard", rule: 3, action: "Deny" });
  });

  test("check: unknown (exit 3) without --dns-map, decided with it", async () => {
    const { mkdtempSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(join(tmpdir(), "cnp-cli-"));
    const policy = join(dir, "saas.yaml");
    writeFileSync(
      policy,
      `apiVersion: policy.networking.k8s.io/v1alpha2
kind: ClusterNetworkPolicy
metadata: {name: saas}
spec:
  tier: Admin
  priority: 1
  subject: {namespaces: {matchLabels: {env: dev}}}
  egress:
  - {name: allow-saas, action: Accept, to: [{domainNames: ["*.example.com"]}]}
  - {name: nothing-else, action: Deny, to: [{networks: [0.0.0.0/0]}]}
`,
    );
    const dns = join(dir, "dns.yaml");
    writeFileSync(dns, "api.example.com: [203.0.113.9]\n");
    const bad = join(dir, "bad-dns.yaml");
    writeFileSync(bad, "api.example.com: [not-an-ip]\n");
    const base = ["policy", "check", "-f", join(CNP, "cluster.yaml"), "-f", policy];
    const to = (ip: string): string[] => ["--from", "dev/tester", "--to", ip, "--port", "443"];
    const unknown = await run(...base, ...to("203.0.113.9"));
    expect(unknown.code).toBe(3);
    expect(unknown.out.split("\n")[0]).toBe("dev/tester -> 203.0.113.9 TCP/443: unknown");
    expect(unknown.out).toContain("*.example.com");
    expect((await run(...base, ...to("203.0.113.9"), "--dns-map", dns)).code).toBe(0);
    expect((await run(...base, ...to("203.0.113.8"), "--dns-map", dns)).code).toBe(1);
    const broken = await run(...base, ...to("203.0.113.9"), "--dns-map", bad);
    expect(broken.code).toBe(2);
    expect(broken.err).toContain('not an IP address: "not-an-ip"');
    // matrix: the third value in TSV
    const m = await run(
      "policy",
      "matrix",
      "-f",
      join(CNP, "cluster.yaml"),
      "-f",
      policy,
      "--ports",
      "80",
      "--protocols",
      "TCP",
    );
    expect(m.out).toContain("dev/tester\tweb/frontend\t80\tTCP\tunknown\n");
  });

  test("matrix: the same bytes whatever the file order", async () => {
    const a = await run("policy", "matrix", ...cnpFiles(GUARD), "-o", "tsv");
    const b = await run(
      "policy",
      "matrix",
      "-f",
      join(CNP, GUARD),
      "-f",
      join(CNP, "cluster.yaml"),
      "-o",
      "tsv",
    );
    expect(a.code).toBe(0);
    expect(a.out.split("\n").length).toBeGreaterThan(10);
    expect(b.out).toBe(a.out);
    const ta = await run("policy", "matrix", ...cnpFiles(GUARD), "-o", "text");
    const tb = await run(
      "policy",
      "matrix",
      "-f",
      join(CNP, GUARD),
      "-f",
      join(CNP, "cluster.yaml"),
      "-o",
      "text",
    );
    expect(tb.out).toBe(ta.out);
  });

  test("convert --to v1alpha2: valid CNPs with the same verdicts", async () => {
    const src = join(ACCEPTANCE, "11-anp-pass-to-networkpolicy", "cluster.yaml");
    const r = await run("policy", "convert", "--to", "v1alpha2", "-f", src);
    expect(r.code).toBe(0);
    expect(r.out).toContain("kind: ClusterNetworkPolicy");
    expect(r.out).not.toContain("Allow");
    const { parseCluster } = await import("../../src/model/load.js");
    const { loadCluster } = await import("../../src/model/load-files.js");
    const { makeCluster } = await import("../../src/model/cluster.js");
    const { computePolicyMatrix } = await import("../../src/policy/matrix.js");
    const converted = parseCluster([{ file: "converted.yaml", text: r.out }]);
    expect(converted.clusterNetworkPolicies.length).toBeGreaterThan(0);
    const original = loadCluster(src);
    const migrated = makeCluster({
      ...original,
      adminNetworkPolicies: [],
      baselineAdminNetworkPolicies: [],
      clusterNetworkPolicies: converted.clusterNetworkPolicies,
    });
    const opts = { ports: [80, 81], protocols: ["TCP", "UDP", "SCTP"] as const };
    const before = computePolicyMatrix(original, { ...opts, protocols: [...opts.protocols] });
    const after = computePolicyMatrix(migrated, { ...opts, protocols: [...opts.protocols] });
    expect(Buffer.from(after.verdicts).equals(Buffer.from(before.verdicts))).toBe(true);
    expect((await run("policy", "convert", "-f", src)).code).toBe(2); // --to is required
  });

  test("diff --against DIR: one section per variant file", async () => {
    const r = await run(
      "policy",
      "diff",
      "-f",
      EXAMPLE,
      "--against",
      join(EXAMPLE, "variants"),
      "--ports",
      "5000",
    );
    expect(r.code).toBe(1);
    const sections = r.out.split("\n").filter((l) => l.startsWith("== "));
    expect(sections).toEqual([
      `== ${join(EXAMPLE, "variants", "allow-sctp-and-tcp.yaml")}`,
      `== ${join(EXAMPLE, "variants", "lint-problems.yaml")}`,
    ]);
    expect(r.out).toContain("default/client -> default/server TCP/5000: denied -> allowed");
    // each variant is loaded on its own: the lint-problems file's warnings are not repeated
    // for the other variant
    const json = await run(
      "policy",
      "diff",
      "-f",
      EXAMPLE,
      "--against",
      join(EXAMPLE, "variants"),
      "--ports",
      "5000",
      "-o",
      "json",
    );
    const parsed = JSON.parse(json.out) as { against: string; changes: unknown[] }[];
    expect(parsed.map((p) => p.changes.length)).toEqual([1, 1]);
  });

  test("lint lines carry FILE:LINE:COL; CNP warnings", async () => {
    const r = await run(
      "policy",
      "lint",
      "-f",
      EXAMPLE,
      "-f",
      join(EXAMPLE, "variants/lint-problems.yaml"),
    );
    const lines = r.out.trim().split("\n");
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l).toMatch(/^[^:]+\.yaml:\d+:\d+: /);
    const cnp = await run("policy", "lint", ...cnpFiles(GUARD));
    expect(cnp.out).toMatch(
      /example3-sctp-egress-guard\.yaml:\d+:\d+: ClusterNetworkPolicy egress-guard: spec\.egress\[0\]\.to\[0\]\.networks: warning: .*\[ip-block-covers-pods\]/,
    );
  });

  test("--from without a namespace says what is expected", async () => {
    const r = await run(
      "policy",
      "check",
      ...cnpFiles(GUARD),
      "--from",
      "tester",
      "--to",
      "web/frontend",
      "--port",
      "80",
    );
    expect(r.code).toBe(2);
    expect(r.err).toContain("NAMESPACE/POD");
    expect(r.err).toContain("dev/tester");
  });
});
