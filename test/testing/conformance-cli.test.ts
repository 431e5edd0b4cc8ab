// `kube-netsim conformance`: text, JSON and JUnit reports, an adapter from a file, exit codes.
import { expect, test } from "@jest/globals";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../src/cli/program.js";

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  process.exitCode = undefined;
  const code = await runCli(argv, {
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
    readStdin: () => "",
  });
  process.exitCode = undefined;
  return { code, out, err };
}

/** Tags balance (a well-formed document) and every element has the attributes the common JUnit schema requires. */
function checkJunitShape(xml: string): { suites: number; cases: number; failures: number } {
  expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')).toBe(true);
  const stack: string[] = [];
  let suites = 0;
  let cases = 0;
  let failures = 0;
  const tags = [...xml.replace(/^<\?xml[^>]*\?>/, "").matchAll(/<(\/?)([a-z]+)([^>]*?)(\/?)>/g)];
  expect(tags.length).toBeGreaterThan(0);
  for (const [, close, name, attrs, selfClose] of tags) {
    if (close === "/") {
      expect(stack.pop()).toBe(name);
      continue;
    }
    const has = (a: string): boolean => new RegExp(`\\s${a}="[^"]*"`).test(attrs ?? "");
    switch (name) {
      case "testsuites":
        expect(stack).toEqual([]);
        for (const a of ["name", "tests", "failures"]) expect(has(a)).toBe(true);
        break;
      case "testsuite":
        expect(stack).toEqual(["testsuites"]);
        for (const a of ["name", "tests", "failures", "errors", "skipped", "time"])
          expect(has(a)).toBe(true);
        suites++;
        break;
      case "testcase":
        expect(stack).toEqual(["testsuites", "testsuite"]);
        for (const a of ["classname", "name", "time"]) expect(has(a)).toBe(true);
        cases++;
        break;
      case "failure":
        expect(stack).toEqual(["testsuites", "testsuite", "testcase"]);
        for (const a of ["message", "type"]) expect(has(a)).toBe(true);
        failures++;
        break;
      default:
        throw new Error(`unexpected element <${name}>`);
    }
    if (selfClose !== "/") stack.push(name);
  }
  expect(stack).toEqual([]);
  const total = /<testsuites [^>]*tests="(\d+)" failures="(\d+)"/.exec(xml);
  expect(Number(total?.[1])).toBe(cases);
  expect(Number(total?.[2])).toBe(failures);
  return { suites, cases, failures };
}

test("kube-proxy-iptables passes: text report, exit 0", async () => {
  const r = await run(["conformance", "--adapter", "kube-proxy-iptables"]);
  expect(r.err).toBe("");
  expect(r.code).toBe(0);
  expect(r.out).toContain(
    "  PASS [Feature:SCTP] Services can declare SCTP ServicePorts when using the iptables proxier\n",
  );
  expect(r.out.trimEnd().split("\n").at(-1)).toBe("7 passed, 0 failed");
});

test("JUnit report of kube-proxy-ipvs has the common schema's shape", async () => {
  const r = await run(["conformance", "--adapter", "kube-proxy-ipvs", "--reporter", "junit"]);
  expect(r.code).toBe(0);
  expect(checkJunitShape(r.out)).toEqual({ suites: 2, cases: 7, failures: 0 });
});

test("an adapter module that enforces no policy: JUnit failures with the probe, JSON, exit 1", async () => {
  const dir = mkdtempSync(join(tmpdir(), "kube-netsim-conformance-"));
  try {
    const file = join(dir, "adapter.cjs");
    writeFileSync(
      file,
      `module.exports = { adapter: { name: "open <door>", features: ["networkPolicy"], nodeState: () => ({ iptables: { IPv4: "*filter\\n:FORWARD ACCEPT [0:0]\\nCOMMIT\\n" } }) } };\n`,
    );
    const junit = await run(["conformance", "--adapter", file, "--reporter", "junit"]);
    expect(junit.code).toBe(1);
    expect(checkJunitShape(junit.out)).toEqual({ suites: 2, cases: 5, failures: 2 });
    expect(junit.out).toContain("SCTP conformance: open &lt;door&gt;");
    expect(junit.out).toContain(
      '<failure message="probe TCP sctp-test/client → 10.244.1.20:5000 through open &lt;door&gt;" type="ConformanceFailure">',
    );
    const json = await run(["conformance", "--adapter", file, "--reporter", "json"]);
    const parsed = JSON.parse(json.out) as { results: { name: string; failures: string[] }[] };
    expect(parsed.results.filter((x) => x.failures.length > 0).map((x) => x.name)).toEqual([
      "A NetworkPolicy matching an SCTP port does not allow TCP or UDP traffic",
      "NetworkPolicy can be used to allow or deny traffic to SCTP ports",
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("an unknown adapter is a one-line error, exit 2", async () => {
  const r = await run(["conformance", "--adapter", "calico"]);
  expect(r.code).toBe(2);
  expect(r.err.trim()).toBe(
    'kube-netsim: --adapter "calico": expected kube-proxy-iptables, kube-proxy-ipvs or a .js module',
  );
});
