/** `kube-netsim render iptables` end to end (through runCli, no subprocess). */
import { join } from "node:path";
import { describe, expect, test } from "@jest/globals";
import { runCli } from "../../../src/cli/program.js";
import { ACCEPTANCE } from "./helpers.js";
import { caseArgs } from "../../helpers/case-args.js";

async function cli(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCli(args, {
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
    readStdin: () => "",
  });
  return { code, out, err };
}

const EX = join(__dirname, "../../../examples/sctp-service");
const base = [
  "render",
  "iptables",
  "-f",
  EX,
  "--node-env",
  join(EX, "node.yaml"),
  "--proxy-config",
  join(EX, "proxy.yaml"),
];

describe("render iptables", () => {
  test("restore (default): filter then nat, SCTP rules", async () => {
    const r = await cli(base);
    expect(r.code).toBe(0);
    expect(r.out.startsWith("*filter\n:KUBE-SERVICES - [0:0]\n")).toBe(true);
    expect(r.out).toContain(
      '-A KUBE-SERVICES -m comment --comment "default/sctp-echo:sctp cluster IP" -m sctp -p sctp -d 10.96.0.50 --dport 9999 -j KUBE-SVC-',
    );
    expect(r.out).toContain("-j MASQUERADE --random-fully\n");
    expect(r.out.endsWith("COMMIT\n")).toBe(true);
  });

  test("save: canonical form with the built-in jumps", async () => {
    const r = await cli([...base, "--format", "save"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES\n',
    );
    expect(r.out).toContain("-d 10.96.0.50/32 -p sctp -m comment");
  });

  test("padded mark and json output", async () => {
    const r = await cli([...base, "--mark-format", "padded", "--output", "json"]);
    expect(r.code).toBe(0);
    const data = JSON.parse(r.out) as { families: { family: string; restore: string }[] };
    expect(data.families[0]!.family).toBe("IPv4");
    expect(data.families[0]!.restore).toContain("--or-mark 0x00004000");
  });

  test("acceptance input with --validation", async () => {
    const dir = join(ACCEPTANCE, "clusterip-sctp");
    const r = await cli(["render", "iptables", ...caseArgs(dir)]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("-m sctp -p sctp -d 172.30.0.42 --dport 53");
  });

  test("bad usage: exit 2 with one line", async () => {
    const r = await cli([...base, "--family", "IPv6"]);
    expect(r.code).toBe(2);
    expect(r.err).toBe("kube-netsim: --family IPv6: the node's families are IPv4\n");
    const missing = await cli(["render", "iptables", "-f", EX]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("no node given");
  });
});
