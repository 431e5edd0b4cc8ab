// `kube-netsim conformance`: every suite (SCTP plan, Service, NetworkPolicy) or a chosen few,
// text, JSON and JUnit reports (validated against the common JUnit schema), an adapter from a
// file, exit codes.
import { expect, test } from "@jest/globals";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateXML } from "xmllint-wasm";
import { runCli } from "../../src/cli/program.js";

const XSD = readFileSync(join(__dirname, "../fixtures/junit/junit-10.xsd"), "utf8");

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

/** xmllint's verdict on the document against the Jenkins xUnit plugin's junit-10.xsd. */
async function schemaErrors(xml: string): Promise<string[]> {
  const r = await validateXML({
    xml: { fileName: "report.xml", contents: xml },
    schema: { fileName: "junit-10.xsd", contents: XSD },
  });
  return r.errors.map((e) => e.rawMessage);
}

/** Counts of the elements, checked against the totals the document declares. */
function junitCounts(xml: string): { suites: number; cases: number; failures: number } {
  const count = (re: RegExp): number => [...xml.matchAll(re)].length;
  const counts = {
    suites: count(/<testsuite /g),
    cases: count(/<testcase /g),
    failures: count(/<failure /g),
  };
  const total = /<testsuites [^>]*tests="(\d+)" failures="(\d+)"/.exec(xml);
  expect(Number(total?.[1])).toBe(counts.cases);
  expect(Number(total?.[2])).toBe(counts.failures);
  return counts;
}

test("the schema check can fail: a testcase without a name is refused", async () => {
  const bad = `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase classname="c"/></testsuite></testsuites>\n`;
  const errors = await schemaErrors(bad);
  expect(errors.join("\n")).toContain("The attribute 'name' is required but missing");
});

test("kube-proxy-iptables passes every suite: text report, exit 0", async () => {
  const r = await run(["conformance", "--adapter", "kube-proxy-iptables", "--num-runs", "4"]);
  expect(r.err).toBe("");
  expect(r.code).toBe(0);
  expect(r.out).toContain(
    "SCTP conformance: kube-proxy (iptables mode)\n" +
      "  PASS [Feature:SCTP] Pods, Services, and NetworkPolicies can declare SCTP ports\n",
  );
  expect(r.out).toContain(
    "  PASS [Feature:SCTP] Services can declare SCTP ServicePorts when using the iptables proxier\n",
  );
  expect(r.out).toContain(
    "      note: kernel check not run: the simulator backend loads nothing into a kernel (the netns backend watches sctp.ko)\n",
  );
  expect(r.out).toContain(
    "Service conformance: kube-proxy (iptables mode)\n" +
      "  PASS a Service port with ready endpoints reaches only them\n",
  );
  expect(r.out).toContain(
    "NetworkPolicy conformance: kube-proxy (iptables mode)\n" +
      "  PASS node components open no SCTP sockets\n",
  );
  // 7 plan tests, 4 service properties (services, hostPorts), 1 policy property (no networkPolicy).
  expect(r.out.trimEnd().split("\n").at(-1)).toBe("12 passed, 0 failed");
});

test("--suite picks suites", async () => {
  const sctp = await run(["conformance", "--adapter", "kube-proxy-iptables", "--suite", "sctp"]);
  expect(sctp.code).toBe(0);
  expect(sctp.out).not.toContain("Service conformance");
  expect(sctp.out.trimEnd().split("\n").at(-1)).toBe("7 passed, 0 failed");
  const svc = await run([
    "conformance",
    "--adapter",
    "kubenet-hostports",
    "--suite",
    "service,policy",
    "--num-runs",
    "4",
    "--reporter",
    "json",
  ]);
  expect(svc.code).toBe(0);
  const parsed = JSON.parse(svc.out) as { results: { suite: string; name: string }[] };
  expect(parsed.results.map((x) => `${x.suite}: ${x.name}`)).toEqual([
    "service: a hostPort reaches its pod from outside",
    "policy: node components open no SCTP sockets",
  ]);
});

test("JUnit report of kube-proxy-nftables is valid against the JUnit schema", async () => {
  const r = await run([
    "conformance",
    "--adapter",
    "kube-proxy-nftables",
    "--reporter",
    "junit",
    "--num-runs",
    "4",
  ]);
  expect(r.code).toBe(0);
  expect(await schemaErrors(r.out)).toEqual([]);
  // [Feature:SCTP], [Feature:SCTPConnectivity], Service, NetworkPolicy.
  expect(junitCounts(r.out)).toEqual({ suites: 4, cases: 12, failures: 0 });
  expect(r.out).toContain(
    '<testcase classname="SCTP conformance.[Feature:SCTP]" name="Services can declare SCTP ServicePorts when using the nftables proxier" time="0"/>',
  );
  expect(r.out).toContain(
    '<testsuite name="Service conformance: kube-proxy (nftables mode)" tests="4" failures="0" errors="0" skipped="0" time="0">',
  );
  expect(r.out).toContain(
    "      <system-out>kernel check not run: the simulator backend loads nothing into a kernel (the netns backend watches sctp.ko)</system-out>\n",
  );
});

test("an adapter module that enforces no policy: valid JUnit failures with the probe, JSON, exit 1", async () => {
  const dir = mkdtempSync(join(tmpdir(), "kube-netsim-conformance-"));
  try {
    const file = join(dir, "adapter.cjs");
    writeFileSync(
      file,
      `module.exports = { adapter: { name: "open <door> & \\"co\\"", features: ["networkPolicy"], nodeState: () => ({ iptables: { IPv4: "*filter\\n:FORWARD ACCEPT [0:0]\\nCOMMIT\\n" } }) } };\n`,
    );
    const junit = await run([
      "conformance",
      "--adapter",
      file,
      "--reporter",
      "junit",
      "--num-runs",
      "5",
    ]);
    expect(junit.code).toBe(1);
    expect(await schemaErrors(junit.out)).toEqual([]);
    // 5 plan tests (2 fail), 3 NetworkPolicy properties (the two policy ones fail), no Service ones.
    expect(junitCounts(junit.out)).toEqual({ suites: 3, cases: 8, failures: 4 });
    expect(junit.out).toContain("SCTP conformance: open &lt;door&gt; &amp; &quot;co&quot;");
    expect(junit.out).toContain(
      '<failure message="probe TCP sctp-test/client → 10.244.1.20:5000 through open &lt;door&gt; &amp; &quot;co&quot;" type="ConformanceFailure">',
    );
    expect(junit.out).toMatch(
      /<failure message="Property failed after \d+ tests" type="ConformanceFailure">[^<]*Counterexample: [^<]*was delivered, but every policy selecting [^<]* allows only SCTP/,
    );
    const json = await run([
      "conformance",
      "--adapter",
      file,
      "--reporter",
      "json",
      "--num-runs",
      "5",
    ]);
    const parsed = JSON.parse(json.out) as {
      results: { suite: string; name: string; failures: string[] }[];
    };
    expect(parsed.results.filter((x) => x.failures.length > 0).map((x) => x.name)).toEqual([
      "A NetworkPolicy matching an SCTP port does not allow TCP or UDP traffic",
      "NetworkPolicy can be used to allow or deny traffic to SCTP ports",
      "a NetworkPolicy with only SCTP ports never admits TCP or UDP",
      "every probe's traced verdict equals evaluatePolicy's",
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("an unknown adapter or suite is a one-line error, exit 2", async () => {
  const r = await run(["conformance", "--adapter", "calico"]);
  expect(r.code).toBe(2);
  expect(r.err.trim()).toBe(
    'kube-netsim: --adapter "calico": expected kube-proxy-iptables, kube-proxy-ipvs, kube-proxy-nftables, kubenet-hostports or a .js module',
  );
  const s = await run(["conformance", "--adapter", "kube-proxy-ipvs", "--suite", "sctp,dns"]);
  expect(s.code).toBe(2);
  expect(s.err.trim()).toBe(
    'kube-netsim: --suite "sctp,dns": "dns" is not one of sctp, service, policy',
  );
  const n = await run(["conformance", "--adapter", "kube-proxy-ipvs", "--num-runs", "0"]);
  expect(n.code).toBe(2);
  expect(n.err.trim()).toBe('kube-netsim: --num-runs "0": expected an integer of at least 1');
});

test("an adapter module that throws, at its top level or in nodeState, is a one-line error naming it and where, exit 2", async () => {
  const dir = mkdtempSync(join(tmpdir(), "kube-netsim-conformance-"));
  try {
    const atImport = join(dir, "broken.cjs");
    writeFileSync(atImport, `const x = 1;\nthrow new RangeError("no dataplane here");\n`);
    const r = await run(["conformance", "--adapter", atImport, "--suite", "sctp"]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      `kube-netsim: --adapter ${atImport}: the module failed to load: RangeError: no dataplane here (at ${atImport}:2:7)\n`,
    );
    const inState = join(dir, "state.cjs");
    writeFileSync(
      inState,
      `module.exports = { adapter: { name: "half", features: ["services"],\n  nodeState: () => { throw new TypeError("rules missing"); } } };\n`,
    );
    const s = await run(["conformance", "--adapter", inState, "--suite", "sctp"]);
    expect(s.code).toBe(2);
    expect(s.err).toBe(
      `kube-netsim: --adapter ${inState}: adapter "half" nodeState failed: TypeError: rules missing (at ${inState}:2:28)\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("--families runs the Service suite dual-stack; a bad list is a one-line error", async () => {
  const r = await run([
    "conformance",
    "--adapter",
    "kube-proxy-nftables",
    "--suite",
    "service",
    "--families",
    "ipv6,ipv4",
    "--num-runs",
    "3",
    "--reporter",
    "json",
  ]);
  expect(r.code).toBe(0);
  const parsed = JSON.parse(r.out) as { results: { name: string; failures: string[] }[] };
  expect(parsed.results.map((x) => [x.name, x.failures])).toEqual([
    ["a Service port with ready endpoints reaches only them", []],
    ["a NodePort reaches the Service's ready endpoints from outside", []],
    ["a Service port without ready endpoints rejects", []],
    // The adapter claims hostPorts too.
    ["a hostPort reaches its pod from outside", []],
  ]);
  const bad = await run(["conformance", "--adapter", "kube-proxy-nftables", "--families", "ipv5"]);
  expect(bad.code).toBe(2);
  expect(bad.err).toBe(
    'kube-netsim: --families "ipv5": expected ipv4, ipv6, or both comma-separated (ipv4,ipv6 or ipv6,ipv4)\n',
  );
});
