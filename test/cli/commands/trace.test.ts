import { describe, expect, test } from "@jest/globals";
import { runCli } from "../../../src/cli/program.js";

const RULES = "examples/trace/node.rules";
const NODE = "examples/trace/node.yaml";

async function cli(args: string[]) {
  let out = "";
  let err = "";
  const code = await runCli(args, {
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
    readStdin: () => "",
  });
  return { code, out, err };
}

describe("kube-netsim trace", () => {
  const base = ["trace", "--rules", RULES, "--node-env", NODE];

  test("text: every outcome with its path and explanation", async () => {
    const r = await cli([
      ...base,
      "--proto",
      "tcp",
      "--src",
      "203.0.113.2",
      "--dst",
      "172.30.0.44",
      "--dport",
      "80",
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      "outcome 1: DNAT, to 10.180.0.4:80, masqueraded as 10.180.0.254:40000, probability 50%",
    );
    expect(r.out).toContain("outcome 2: DNAT, to 10.180.0.5:80");
    expect(r.out).toContain(
      "path: nat/PREROUTING#1 nat/KUBE-SERVICES#1 nat/KUBE-SVC-4SW47YFZTEDKD3PK#1",
    );
    expect(r.out).toContain("routing: not local -> forwarded out of cbr0");
  });

  test("ICMP: an echo request without ports; --dport or --sport with it is refused", async () => {
    const r = await cli([
      ...base,
      "--proto",
      "icmp",
      "--src",
      "203.0.113.2",
      "--dst",
      "172.30.0.44",
    ]);
    expect(r.code).toBe(0);
    expect(r.out.split("\n")[0]).toBe(
      "packet: icmp 203.0.113.2 -> 172.30.0.44 (echo request) (remote)",
    );
    for (const flag of ["--dport", "--sport"]) {
      const bad = await cli([
        ...base,
        "--proto",
        "icmp",
        "--src",
        "203.0.113.2",
        "--dst",
        "172.30.0.44",
        flag,
        "80",
      ]);
      expect(bad.code).toBe(2);
      expect(bad.err).toBe(
        `kube-netsim: ${flag}: an ICMP packet (an echo request) has no ports; leave it out\n`,
      );
    }
    const tcp = await cli([
      ...base,
      "--proto",
      "tcp",
      "--src",
      "203.0.113.2",
      "--dst",
      "172.30.0.44",
    ]);
    expect(tcp.code).toBe(2);
    expect(tcp.err).toBe("kube-netsim: missing --dport (or give --packets FILE.tsv)\n");
  });

  test("IPv6 addresses in the packet line are bracketed before their ports", async () => {
    const r = await cli([
      "trace",
      "-f",
      "examples/dual-stack/cluster.yaml",
      "--node-env",
      "examples/dual-stack/node.yaml",
      "--proto",
      "tcp",
      "--src",
      "2001:db8::9",
      "--dst",
      "fd00:10:96::10",
      "--dport",
      "80",
    ]);
    expect(r.code).toBe(0);
    expect(r.out.split("\n")[0]).toBe(
      "packet: tcp [2001:db8::9]:40000 -> [fd00:10:96::10]:80 (remote)",
    );
  });

  test("json: the interfaces.md shape", async () => {
    const r = await cli([
      ...base,
      "--proto",
      "tcp",
      "--src",
      "10.0.0.2",
      "--sport",
      "12345",
      "--dst",
      "172.30.0.46",
      "--dport",
      "80",
      "-o",
      "json",
    ]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as Record<string, unknown>;
    expect(j.packet).toEqual({
      proto: "tcp",
      src: "10.0.0.2",
      sport: 12345,
      dst: "172.30.0.46",
      dport: 80,
    });
    expect(j.origin).toBe("remote");
    expect(j.outcomes).toEqual([
      expect.objectContaining({
        verdict: "REJECT",
        masquerade: false,
        probability: 1,
        path: expect.arrayContaining(["filter/KUBE-SERVICES#1"]),
      }),
    ]);
  });

  test("batch: one JSON object per row with the row in input", async () => {
    const r = await cli([...base, "--packets", "examples/trace/packets.tsv", "-o", "json"]);
    expect(r.code).toBe(0);
    const lines = r.out
      .trim()
      .split("\n")
      .map(
        (l) => JSON.parse(l) as { input: Record<string, string>; outcomes: { verdict: string }[] },
      );
    expect(lines.map((l) => l.input.name)).toEqual([
      "clusterIP from outside",
      "clusterIP from a pod",
      "no endpoints",
      "nodePort",
      "not a service",
    ]);
    expect(lines.map((l) => l.outcomes.map((o) => o.verdict).join(","))).toEqual([
      "DNAT,DNAT",
      "DNAT,DNAT",
      "REJECT",
      "DNAT,DNAT",
      "NONE",
    ]);
  });

  test("--upstream: the unit-test tracer's output and masq columns", async () => {
    const r = await cli([...base, "--packets", "examples/trace/packets.tsv", "--upstream"]);
    expect(r.code).toBe(0);
    // Pod sources (10.0.0.0/8) are not masqueraded for a ClusterIP; outside sources and NodePorts are.
    expect(r.out.split("\n").slice(0, 4)).toEqual([
      "clusterIP from outside\t10.180.0.4:80, 10.180.0.5:80\ttrue",
      "clusterIP from a pod\t10.180.0.4:80, 10.180.0.5:80\tfalse",
      "no endpoints\tREJECT\tfalse",
      "nodePort\t10.180.0.4:80, 10.180.0.5:80\ttrue",
    ]);
  });

  test.each([
    [
      ["--proto", "tcp", "--src", "1.2.3.4", "--dst", "1.2.3.5", "--dport", "80"],
      /kube-netsim: --rules nope.rules: no such file/,
      ["trace", "--rules", "nope.rules"],
    ],
    [
      ["--proto", "tcp", "--src", "1.2.3.400", "--dst", "1.2.3.5", "--dport", "80"],
      /source "1.2.3.400" is not an IP address/,
      base,
    ],
    [
      ["--proto", "gre", "--src", "1.2.3.4", "--dst", "1.2.3.5", "--dport", "80"],
      /protocol "gre"/,
      base,
    ],
    [["--proto", "tcp", "--src", "1.2.3.4", "--dst", "1.2.3.5"], /missing --dport/, base],
    [
      ["--proto", "tcp", "--src", "1.2.3.4", "--dst", "1.2.3.5", "--dport", "99999"],
      /--dport: "99999" is not a port/,
      base,
    ],
    [
      ["--proto", "tcp", "--src", "1.2.3.4", "--dst", "1.2.3.5", "--dport", "80"],
      /either --rules FILE or -f/,
      ["trace"],
    ],
  ])("bad input is one line and exit 2 (%j)", async (args, message, prefix) => {
    const r = await cli([...prefix, ...args]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err.trim().split("\n")).toHaveLength(1);
  });

  test("--ipsets: the set match consults ipset save text", async () => {
    const run = (src: string) =>
      cli([
        "trace",
        "--rules",
        "examples/trace/ipset.rules",
        "--ipsets",
        "examples/trace/blocked.ipset",
        "--proto",
        "tcp",
        "--src",
        src,
        "--dst",
        "10.1.1.1",
        "--dport",
        "80",
        "-o",
        "json",
      ]);
    const blocked = JSON.parse((await run("203.0.113.66")).out) as {
      outcomes: { verdict: string }[];
    };
    const other = JSON.parse((await run("203.0.113.67")).out) as {
      outcomes: { verdict: string }[];
    };
    expect(blocked.outcomes.map((o) => o.verdict)).toEqual(["DROP"]);
    expect(other.outcomes.map((o) => o.verdict)).toEqual(["NONE"]);
  });

  test("a rules file the parser rejects names file and line", async () => {
    const r = await cli([
      "trace",
      "--rules",
      "test/cli/commands/fixtures/trace-bad.rules",
      "--proto",
      "tcp",
      "--src",
      "1.2.3.4",
      "--dst",
      "1.2.3.5",
      "--dport",
      "80",
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/trace-bad\.rules:3:/);
  });
});
