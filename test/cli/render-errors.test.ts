/**
 * Every error family prints through the one renderer (src/cli/render-errors.ts): bad input as
 * `FILE:LINE:COL: Kind ns/name: field.path: message` lines (or `kube-netsim: message` where the
 * problem has no position), failures of the environment as one `kube-netsim: message` line,
 * exit 2 (interfaces.md: 2 bad input or usage), never a stack; only a programmer's error shows
 * one (exit 70). Then a few commands run on bad input, end to end.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "@jest/globals";
import { BackendError } from "../../src/backends/backend.js";
import { ScenarioError } from "../../src/backends/layout.js";
import { SnapshotError } from "../../src/backends/snapshot/read.js";
import { CliError } from "../../src/cli/exit.js";
import type { CliIO } from "../../src/cli/program.js";
import { renderError, replErrorText, reportError } from "../../src/cli/render-errors.js";
import { HostportError } from "../../src/hostports/errors.js";
import { NatRestoreError } from "../../src/hostports/nat-table.js";
import { PortmapConfigError } from "../../src/hostports/portmap.js";
import { OperationalError } from "../../src/issue/operational-error.js";
import { inputIssue, ValidationError } from "../../src/issue/validation-error.js";
import { TruthTableSyntaxError } from "../../src/jest/truth-table.js";
import { DataplaneError } from "../../src/netfilter/trace/dataplane.js";
import { TraceInputError } from "../../src/netfilter/trace/packet-spec.js";
import { TraceError } from "../../src/netfilter/trace/walk.js";
import { NftEvaluator } from "../../src/netfilter/nftables/evaluate.js";
import { parseNftables } from "../../src/netfilter/nftables/parse/file.js";
import { parseIptables } from "../../src/netfilter/parse/iptables.js";
import { IpvsUnavailableError } from "../../src/proxiers/ipvs/render.js";
import { EditError } from "../../src/repl/edits.js";
import { SessionError } from "../../src/repl/session.js";
import { drive } from "../repl/drive.js";
import { run } from "./helpers.js";

function reported(e: unknown): { code: number; err: string } {
  let err = "";
  const io: CliIO = { stdout: () => {}, stderr: (s) => (err += s), readStdin: () => "" };
  const code = reportError(e, io);
  return { code, err };
}

const STACK = /\n\s+at /;

describe("one renderer for every error family", () => {
  const cases: readonly [string, () => unknown, string][] = [
    [
      "a manifest problem (ValidationError)",
      () =>
        new ValidationError([
          inputIssue("invalid", "Invalid value: 70000: must be between 1 and 65535, inclusive", {
            source: { file: "svc.yaml", line: 9, col: 13 },
            object: { kind: "Service", namespace: "shop", name: "web" },
            path: ["spec", "ports", 0, "port"],
          }),
        ]),
      "svc.yaml:9:13: Service shop/web: spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive\n",
    ],
    [
      "rules text (IptablesParseError)",
      () => {
        try {
          parseIptables("*nat\n-A NOPE -j ACCEPT\nCOMMIT\n", { file: "node.rules" });
        } catch (e) {
          return e;
        }
        throw new Error("the rules parsed");
      },
      'node.rules:2: chain "NOPE" does not exist\n',
    ],
    [
      "a --packets cell (TraceInputError)",
      () =>
        new TraceInputError('"http" is not a port number (0-65535)', {
          source: { file: "p.tsv", line: 3 },
          path: ["destPort"],
        }),
      'p.tsv:3: destPort: "http" is not a port number (0-65535)\n',
    ],
    [
      "a packet without a position (TraceInputError)",
      () => new TraceInputError('protocol "gre": expected one of tcp, udp, sctp, icmp'),
      'kube-netsim: protocol "gre": expected one of tcp, udp, sctp, icmp\n',
    ],
    [
      "a hostport the kubelet refuses (HostportError)",
      () =>
        new HostportError({
          kind: "cannot-open-hostport",
          pod: "web_shop",
          hostPort: 8080,
          protocol: "tcp",
          hostIP: "",
          cause: "hostport is occupied",
        }),
      "kube-netsim: cannot open hostport 8080 for pod web_shop: hostport is occupied\n",
    ],
    [
      "a portmap configuration (PortmapConfigError)",
      () => new PortmapConfigError("MasqMarkBit must be between 0 and 31"),
      "kube-netsim: MasqMarkBit must be between 0 and 31\n",
    ],
    [
      "a nat table restore (NatRestoreError)",
      () => new NatRestoreError(4, "chain KUBE-HP-X does not exist"),
      "kube-netsim: iptables-restore: line 4 failed: chain KUBE-HP-X does not exist\n",
    ],
    [
      "a snapshot directory (SnapshotError)",
      () => new SnapshotError("/tmp/n: no manifest.json", "not-found"),
      "kube-netsim: /tmp/n: no manifest.json\n",
    ],
    [
      "a probes file line (ScenarioError)",
      () =>
        new ScenarioError('protocol "icmp": expected tcp, udp or sctp', {
          source: { file: "probes.tsv", line: 2 },
        }),
      'probes.tsv:2: protocol "icmp": expected tcp, udp or sctp\n',
    ],
    [
      "a node description (DataplaneError)",
      () => new DataplaneError('interface eth0: "10.0.0.300/24" is not an IP address or CIDR'),
      'kube-netsim: interface eth0: "10.0.0.300/24" is not an IP address or CIDR\n',
    ],
    [
      "a truth table (TruthTableSyntaxError)",
      () => new TruthTableSyntaxError(3, "row has 2 cells, expected 3"),
      "kube-netsim: truth table line 3: row has 2 cells, expected 3\n",
    ],
    [
      "a REPL edit (EditError)",
      () => new EditError('"spec..port" is not a field path (e.g. spec.ports[0].port)'),
      'kube-netsim: "spec..port" is not a field path (e.g. spec.ports[0].port)\n',
    ],
    [
      "a backend that cannot run here (BackendError)",
      () => new BackendError("the netns backend cannot run here: not root"),
      "kube-netsim: the netns backend cannot run here: not root\n",
    ],
    [
      "a node without IPVS (IpvsUnavailableError)",
      () => new IpvsUnavailableError("the node has no IPVS (kernel.ipvs: false)"),
      "kube-netsim: the node has no IPVS (kernel.ipvs: false)\n",
    ],
    [
      "a trace over its budget (TraceError)",
      () => new TraceError("nat/KUBE-X: chains nest deeper than 256"),
      "kube-netsim: nat/KUBE-X: chains nest deeper than 256\n",
    ],
  ];

  it.each(cases)("%s: its lines, exit 2, no stack", (_name, make, expected) => {
    const r = reported(make());
    expect(r).toEqual({ code: 2, err: expected });
    expect(r.err).not.toMatch(STACK);
  });

  it("the families are the two shared classes", () => {
    expect.hasAssertions();
    for (const [name, make] of cases) {
      const e = make();
      const family = e instanceof ValidationError || e instanceof OperationalError;
      expect([name, family]).toEqual([name, true]);
    }
  });

  it("an nftables ruleset whose jumps loop is a trace-limit failure, not a crash", () => {
    const t = parseNftables(
      `add table ip t
add chain ip t b { type filter hook input priority 0 ; policy accept ; }
add chain ip t x
add chain ip t y
add rule ip t b jump x
add rule ip t x jump y
add rule ip t y jump x`,
      "loop.nft",
    ).tables[0]!;
    const ev = new NftEvaluator(t, { isLocal: () => false });
    let thrown: unknown;
    try {
      ev.runBase("b", {
        family: "ip",
        protocol: "tcp",
        src: "10.0.0.1",
        dst: "10.0.0.2",
        sport: 40000,
        dport: 80,
        mark: 0,
        ctState: "new",
        ctStatus: [],
      });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(OperationalError);
    expect((thrown as OperationalError).code).toBe("trace-limit");
    expect(reported(thrown).err).toMatch(/^kube-netsim: chain [xy]: jumps nest deeper than \d+\n$/);
  });

  it("operational errors carry a code", () => {
    expect(new BackendError("x").code).toBe("backend-unavailable");
    expect(new IpvsUnavailableError("x").code).toBe("ipvs-unavailable");
    expect(new TraceError("x").code).toBe("trace-limit");
  });

  it("a message with a newline stays one line", () => {
    const r = reported(new BackendError("sysctl x=1: permission\ndenied"));
    expect(r.err).toBe("kube-netsim: sysctl x=1: permission\\ndenied\n");
  });

  it("warnings only exit 0; a CliError keeps its exit code", () => {
    const warning = new ValidationError([
      { ...inputIssue("unknown-field", 'unknown field "x"'), severity: "warning" },
    ]);
    expect(renderError(warning)?.exitCode).toBe(0);
    expect(reported(new CliError("verdict unknown", 3))).toEqual({
      code: 3,
      err: "kube-netsim: verdict unknown\n",
    });
  });

  it("a programmer's error is the only one with a stack (exit 70)", () => {
    const r = reported(new TypeError("x is undefined"));
    expect(r.code).toBe(70);
    expect(r.err).toMatch(/^kube-netsim: internal error: TypeError: x is undefined\n\s+at /);
    expect(renderError(new TypeError("x"))).toBeUndefined();
  });

  it("the REPL prints the same lines after `error: `, with a session error's last line", () => {
    const e = new SessionError(
      [
        inputIssue("invalid", "Invalid value: 70000", {
          object: { kind: "Service", namespace: "default", name: "s" },
          path: ["spec", "ports", 0, "port"],
        }),
      ],
      "(nothing changed)",
    );
    expect(replErrorText(e)).toBe(
      "error: Service default/s: spec.ports[0].port: Invalid value: 70000\n(nothing changed)\n",
    );
    expect(replErrorText(new TypeError("x"))).toBeUndefined();
  });
});

describe("commands on bad input: one line per problem, exit 2, no stack", () => {
  const tmp = mkdtempSync(join(tmpdir(), "kns-render-errors-"));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const file = (name: string, text: string): string => {
    const p = join(tmp, name);
    writeFileSync(p, text);
    return p;
  };

  it("trace --packets with a bad cell: FILE:LINE: column: message", async () => {
    const tsv = file(
      "bad.tsv",
      "protocol\tsourceIP\tdestIP\tdestPort\ntcp\t1.2.3.4\t5.6.7.8\t80\ntcp\t1.2.3.4\t5.6.7.8\thttp\n",
    );
    const r = await run(["trace", "--rules", "examples/trace/node.rules", "--packets", tsv]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`${tsv}:3: destPort: "http" is not a port number (0-65535)\n`);
  });

  it("trace --packets with an address the tracer refuses: placed at its row", async () => {
    const tsv = file(
      "addr.tsv",
      "protocol\tsourceIP\tdestIP\tdestPort\ngre\t1.2.3.4\t5.6.7.8\t80\n",
    );
    const r = await run(["trace", "--rules", "examples/trace/node.rules", "--packets", tsv]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`${tsv}:2: protocol: "gre": expected one of tcp, udp, sctp, icmp\n`);
  });

  it("render hostports with a portmap setting out of range", async () => {
    const r = await run([
      "render",
      "hostports",
      "-f",
      "examples/sctp-hostport/pods.yaml",
      "--node-env",
      "examples/sctp-hostport/node.yaml",
      "--impl",
      "portmap",
      "--mark-masq-bit",
      "40",
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toBe('kube-netsim: --mark-masq-bit: "40" is not 0-31\n');
  });

  it("a snapshot directory with a file that does not parse", async () => {
    const dir = mkdtempSync(join(tmp, "snap-"));
    writeFileSync(
      join(dir, "manifest.json"),
      JSON.stringify({ kind: "kube-netsim-snapshot", hostname: "n1" }),
    );
    writeFileSync(join(dir, "ip-addr.json"), "[{");
    const r = await run([
      "trace",
      "--snapshot",
      dir,
      "--proto",
      "tcp",
      "--src",
      "1.2.3.4",
      "--dst",
      "5.6.7.8",
      "--dport",
      "80",
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(new RegExp(`^kube-netsim: ${dir}/ip-addr.json: [^\\n]*JSON[^\\n]*\\n$`));
  });

  it("a snapshot directory without its manifest", async () => {
    const dir = mkdtempSync(join(tmp, "empty-"));
    const r = await run([
      "trace",
      "--snapshot",
      dir,
      "--proto",
      "tcp",
      "--src",
      "1.2.3.4",
      "--dst",
      "5.6.7.8",
      "--dport",
      "80",
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      `kube-netsim: ${dir}: no manifest.json (not a directory written by \`kube-netsim snapshot collect\`)\n`,
    );
  });

  it("policy check --dns-map: a YAML error at its position, one line per bad entry", async () => {
    const check = (map: string) =>
      run([
        "policy",
        "check",
        "-f",
        "examples/sctp-test-plan/",
        "--from",
        "default/client",
        "--to",
        "default/server",
        "--port",
        "5000",
        "--protocol",
        "SCTP",
        "--dns-map",
        map,
      ]);
    const syntax = file("dns-syntax.yaml", "a: [1.2.3.4\nb: x\n");
    const r1 = await check(syntax);
    expect(r1.code).toBe(2);
    expect(r1.err).toMatch(new RegExp(`^${syntax}:2:1: YAML syntax error: [^\\n]+\\n$`));
    const entries = file("dns-entries.yaml", "a: [x, 1.2.3.4]\nb: y\n");
    const r2 = await check(entries);
    expect(r2).toMatchObject({
      code: 2,
      err:
        `kube-netsim: --dns-map ${entries}: a[0]: not an IP address: "x"\n` +
        `kube-netsim: --dns-map ${entries}: b: not an IP address: "y"\n`,
    });
  });

  it("a REPL edit that is not one", async () => {
    const out = await drive(["set svc default/sctp-echo spec.type", "label svc default/sctp-echo"]);
    expect(out).toContain('error: "spec.type" is not field.path=value\n');
    expect(out).toContain("error: no labels given: key=value or key-\n");
    expect(out).not.toMatch(STACK);
  });
});
