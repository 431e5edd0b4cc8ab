/**
 * `kube-netsim render hostports`, driven through commander as the CLI does (the subcommand is
 * mounted on a bare `render` command so this file only depends on the hostports area).
 */
import { describe, expect, test } from "@jest/globals";
import { Command, CommanderError } from "commander";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registerRenderHostports } from "../../src/cli/commands/render-hostports.js";
import { CliError } from "../../src/cli/exit.js";
import type { CliIO } from "../../src/cli/program.js";
import { ValidationError } from "../../src/model/issue.js";
import { ACCEPTANCE_DIR } from "../helpers/shared.js";

/** program.ts's mapping of errors to exit codes (bad input 2), without loading every command. */
function exitCodeOf(e: unknown, io: CliIO): number {
  if (e instanceof CommanderError) return 2;
  if (e instanceof ValidationError || e instanceof CliError) {
    io.stderr(`${e.message}\n`);
    return e instanceof CliError ? e.exitCode : 2;
  }
  throw e;
}

const EX = join(__dirname, "../../examples/sctp-hostport");
const ACC = join(ACCEPTANCE_DIR, "hostports/hostport-manager-ipv4");

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: CliIO = {
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
    readStdin: () => "",
  };
  const program = new Command("kube-netsim")
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  registerRenderHostports(program.command("render").exitOverride(), io);
  let code = 0;
  try {
    await program.parseAsync(args, { from: "user" });
  } catch (e) {
    code = exitCodeOf(e, io);
  }
  return { code, out, err };
}

const base = [
  "render",
  "hostports",
  "-f",
  join(EX, "pods.yaml"),
  "--node-env",
  join(EX, "node.yaml"),
];

describe("render hostports", () => {
  test("kubenet text: iptables-restore input with the SCTP pod's rules", async () => {
    const r = await run([...base, "--format", "restore"]);
    expect(r.code).toBe(0);
    expect(r.out.startsWith("*nat\n")).toBe(true);
    expect(r.out).toContain(
      '-A KUBE-HOSTPORTS -m comment --comment "sctp-server_default hostport 5060" -m sctp -p sctp --dport 5060 -j KUBE-HP-',
    );
    expect(r.out.trimEnd().endsWith("COMMIT")).toBe(true);
  });

  test("--report sockets,modules: TCP/UDP sockets only, no sctp module", async () => {
    const r = await run([...base, "--report", "sockets,modules"]);
    expect(r.out).toContain("# IPv4 * 80 tcp\n# IPv4 * 81 udp\n");
    expect(r.out).not.toMatch(/^# IPv4 \* 5060/m);
    expect(r.out).toContain("# xt_sctp\tiptables-match\t-m sctp\n");
    expect(r.out).toContain("# sctp module needed: no\n");
  });

  test("--impl portmap --output json", async () => {
    const r = await run([...base, "--impl", "portmap", "--output", "json", "--report", "sockets"]);
    const data = JSON.parse(r.out) as {
      impl: string;
      sockets: unknown[];
      families: { restore: string }[];
    };
    expect(data.impl).toBe("portmap");
    expect(data.sockets).toEqual([]);
    expect(data.families[0]?.restore).toContain("-j CNI-HOSTPORT-DNAT");
  });

  test("a pod whose Add fails is a warning on stderr, the rest is rendered", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kns-hp-"));
    const nodeEnv = join(dir, "node.yaml");
    writeFileSync(
      nodeEnv,
      "apiVersion: kube-netsim.dev/v1alpha1\nkind: NodeEnvironment\nnodeName: test-node\nnodeIPs: [192.168.0.2]\n",
    );
    try {
      const r = await run([
        "render",
        "hostports",
        "-f",
        join(ACC, "cluster.yaml"),
        "--node-env",
        nodeEnv,
      ]);
      expect(r.code).toBe(0);
      expect(r.err.split("\n")).toContain(
        "kube-netsim: warning: pod ns1/pod2 (IPv4): cannot open hostport 8081 for pod pod2_ns1: hostport is occupied",
      );
      expect(r.out).toContain('--comment "pod6_ns1 hostport 9999"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("no node is bad input with one clear line", async () => {
    const r = await run(["render", "hostports", "-f", join(EX, "pods.yaml")]);
    expect(r.code).toBe(2);
    expect(r.err).toBe("no node given: use --node-env FILE or --node NAME\n");
  });

  test("the default (--format save) prints what iptables-save shows once loaded", async () => {
    const r = await run(base);
    expect(r.code).toBe(0);
    // As the real iptables-save printed it for these rules (kernel.test.ts checks the whole text).
    expect(r.out).toContain(
      '-A KUBE-HOSTPORTS -p sctp -m comment --comment "sctp-server_default hostport 5060" -m sctp --dport 5060 -j KUBE-HP-DDIBXYVDNF7EM4UN\n',
    );
    expect(r.out).toContain(":KUBE-MARK-MASQ - [0:0]\n");
  });

  test("bad --report value is bad input", async () => {
    const r = await run([...base, "--report", "bogus"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--report: unsupported value "bogus"');
  });
});

describe("render hostports through the real program", () => {
  test("is a subcommand of render", async () => {
    const { runCli } = await import("../../src/cli/program.js");
    let out = "";
    const code = await runCli(base, {
      stdout: (s) => (out += s),
      stderr: () => undefined,
      readStdin: () => "",
    });
    expect(code).toBe(0);
    expect(out).toContain("-j KUBE-HP-");
  });
});
