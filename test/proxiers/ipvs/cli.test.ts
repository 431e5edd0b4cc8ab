/** `kube-netsim render ipvs` (shared/docs/interfaces.md), driven through commander. */
import { describe, expect, test } from "@jest/globals";
import { join } from "node:path";
import { runCli, type CliIO } from "../../../src/cli/program.js";
import { ACCEPTANCE_IPVS } from "./helpers.js";

const EXAMPLE = join(__dirname, "../../../examples/sctp-nodeport");

async function run(args: string[]) {
  return runRaw(["render", "ipvs", ...args]);
}

async function runRaw(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: CliIO = {
    stdout: (s) => (stdout += s),
    stderr: (s) => (stderr += s),
    readStdin: () => "",
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

describe("render ipvs", () => {
  const caseDir = join(ACCEPTANCE_IPVS, "nodeport-udp");
  const caseArgs = [
    "-f",
    join(caseDir, "cluster.yaml"),
    "--node-env",
    join(caseDir, "node.yaml"),
    "--proxy-config",
    join(caseDir, "proxy.yaml"),
  ];

  test("sections in order: # ipvs, # ipset, # iptables, # addresses", async () => {
    const r = await run(caseArgs);
    expect(r.code).toBe(0);
    const headings = r.stdout.split("\n").filter((l) => l.startsWith("# "));
    expect(headings).toEqual(["# ipvs", "# ipset", "# iptables", "# addresses"]);
    expect(r.stdout.startsWith("# ipvs\n-A -u 10.20.30.41:80 -s rr\n")).toBe(true);
    expect(r.stdout.endsWith("# addresses\n10.20.30.41/32\n")).toBe(true);
  });

  test("--only prints one section without its heading", async () => {
    const r = await run([...caseArgs, "--only", "ipvs"]);
    expect(r.stdout).toBe(
      "-A -u 10.20.30.41:80 -s rr\n-a -u 10.20.30.41:80 -r 10.180.0.1:80 -m -w 1\n" +
        "-A -u 100.101.102.103:3001 -s rr\n-a -u 100.101.102.103:3001 -r 10.180.0.1:80 -m -w 1\n",
    );
    const a = await run([...caseArgs, "--only", "addresses"]);
    expect(a.stdout).toBe("10.20.30.41/32\n");
  });

  test("--ipvs-format list prints the table as ipvsadm -Ln", async () => {
    const r = await run([...caseArgs, "--only", "ipvs", "--ipvs-format", "list"]);
    expect(r.stdout).toBe(
      "IP Virtual Server version 1.2.1 (size=4096)\n" +
        "Prot LocalAddress:Port Scheduler Flags\n" +
        "  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn\n" +
        "UDP  10.20.30.41:80 rr\n" +
        "  -> 10.180.0.1:80                Masq    1      0          0         \n" +
        "UDP  100.101.102.103:3001 rr\n" +
        "  -> 10.180.0.1:80                Masq    1      0          0         \n",
    );
  });

  test("--output json has one key per section", async () => {
    const r = await run([...caseArgs, "--output", "json"]);
    const data = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(data)).toEqual(["ipvs", "ipset", "iptables", "addresses"]);
    expect(data.addresses).toEqual(["10.20.30.41/32"]);
  });

  test("the SCTP NodePort example: one SCTP VS per node address", async () => {
    const r = await run([
      "-f",
      join(EXAMPLE, "cluster.yaml"),
      "--node-env",
      join(EXAMPLE, "node.yaml"),
      "--proxy-config",
      join(EXAMPLE, "proxy-ipvs.yaml"),
      "--only",
      "ipvs",
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n").filter((l) => l.startsWith("-A"))).toEqual([
      "-A --sctp-service 10.96.0.50:5000 -s rr",
      "-A --sctp-service 10.244.1.1:30500 -s rr",
      "-A --sctp-service 192.168.0.10:30500 -s rr",
      "-A --sctp-service 192.168.1.10:30500 -s rr",
    ]);
  });

  test("bad input: one line, exit 2", async () => {
    const r = await run(["-f", "/nonexistent.yaml", "--node-env", join(caseDir, "node.yaml")]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    const bad = await run([...caseArgs, "--output", "yaml"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--output: unsupported value "yaml"');
  });
});

describe("the worked example of docs/ipvs-proxier.md", () => {
  const traceArgs = (mode: string, src: string, dst: string, dport: number, proto = "sctp") => [
    "trace",
    "-f",
    join(EXAMPLE, "cluster.yaml"),
    "--node-env",
    join(EXAMPLE, "node.yaml"),
    "--proxy-config",
    join(EXAMPLE, `proxy-${mode}.yaml`),
    "--proto",
    proto,
    "--src",
    src,
    "--dst",
    dst,
    "--dport",
    String(dport),
    "--output",
    "json",
  ];
  const outcomes = async (args: string[]) => {
    const r = await runRaw(args);
    expect(r.stderr).toBe("");
    const data = JSON.parse(r.stdout) as {
      outcomes: {
        verdict: string;
        destination?: string;
        masquerade: boolean;
        probability: number;
      }[];
    };
    return data.outcomes.map((o) => [o.verdict, o.destination, o.masquerade, o.probability]);
  };

  test("the SCTP NodePort reaches the same endpoints, masqueraded, in both modes", async () => {
    const expected = [
      ["DNAT", "10.244.1.10:5000", true, 0.5],
      ["DNAT", "10.244.2.10:5000", true, 0.5],
    ];
    for (const mode of ["iptables", "ipvs"])
      expect(await outcomes(traceArgs(mode, "203.0.113.7", "192.168.1.10", 30500))).toEqual(
        expected,
      );
  });

  test("§9.4 and §9.1 as the document shows them", async () => {
    expect(await outcomes(traceArgs("ipvs", "127.0.0.1", "127.0.0.1", 30500))).toEqual([
      ["NONE", undefined, false, 1],
    ]);
    expect((await outcomes(traceArgs("iptables", "127.0.0.1", "127.0.0.1", 30500))).length).toBe(2);
    expect(await outcomes(traceArgs("ipvs", "10.244.1.5", "10.96.0.50", 22, "tcp"))).toEqual([
      ["REJECT", undefined, false, 1],
    ]);
  });
});
