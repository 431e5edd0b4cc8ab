/**
 * Issue 19 items 4 and the small ones, for `trace`: every option is honoured or refused (batch
 * mode reads --in-interface and --origin as defaults for its rows, and its optional
 * inInterface / origin / sourcePort columns), an empty interface name and addresses with
 * leading zeros (octal to iptables) are refused.
 */
import { afterAll, describe, expect, test } from "@jest/globals";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../../src/cli/program.js";

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

const dir = mkdtempSync(join(tmpdir(), "kns-trace-options-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

/** Packets arriving on cbr0 are dropped; the node's addresses are those of examples/trace. */
const RULES = file(
  "in.rules",
  "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n-A FORWARD -i cbr0 -j DROP\nCOMMIT\n",
);
const base = ["trace", "--rules", RULES, "--node-env", "examples/trace/node.yaml"];
const ONE = ["--proto", "tcp", "--src", "203.0.113.2", "--dst", "172.30.0.44", "--dport", "80"];

const verdicts = (out: string) =>
  out
    .trim()
    .split("\n")
    .map((l) => (JSON.parse(l) as { outcomes: { verdict: string }[] }).outcomes[0]!.verdict);

describe("trace --packets", () => {
  test("honours --in-interface as every row's default, and the inInterface column", async () => {
    const tsv = file(
      "p.tsv",
      "protocol\tsourceIP\tdestIP\tdestPort\tinInterface\n" +
        "tcp\t203.0.113.2\t172.30.0.44\t80\t\n" +
        "tcp\t203.0.113.2\t172.30.0.44\t80\teth0\n" +
        "tcp\t203.0.113.2\t172.30.0.44\t80\tcbr0\n",
    );
    const plain = await cli([...base, "--packets", tsv, "-o", "json"]);
    expect(plain.err).toBe("");
    expect(verdicts(plain.out)).toEqual(["NONE", "NONE", "DROP"]);
    const onCbr0 = await cli([...base, "--packets", tsv, "--in-interface", "cbr0", "-o", "json"]);
    expect(verdicts(onCbr0.out)).toEqual(["DROP", "NONE", "DROP"]);
    // The same as tracing each alone.
    const alone = await cli([...base, ...ONE, "--in-interface", "cbr0", "-o", "json"]);
    expect(verdicts(alone.out.replace(/\n(?!$)/g, ""))).toEqual(["DROP"]);
  });

  test("the origin and sourcePort columns", async () => {
    const tsv = file(
      "o.tsv",
      "protocol\tsourceIP\tdestIP\tdestPort\torigin\tsourcePort\n" +
        "tcp\t192.168.0.2\t172.30.0.44\t80\tremote\t1234\n" +
        "tcp\t192.168.0.2\t172.30.0.44\t80\t\t\n",
    );
    const r = await cli([...base, "--packets", tsv, "-o", "json"]);
    expect(r.err).toBe("");
    const rows = r.out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { origin: string; packet: { sport: number } });
    expect(rows.map((x) => [x.origin, x.packet.sport])).toEqual([
      ["remote", 1234],
      ["local", 40000],
    ]);
    const bad = file(
      "b.tsv",
      "protocol\tsourceIP\tdestIP\tdestPort\torigin\ntcp\t1.2.3.4\t5.6.7.8\t80\tsideways\n",
    );
    expect(await cli([...base, "--packets", bad])).toMatchObject({
      code: 2,
      err: expect.stringContaining('b.tsv:2: origin: "sideways" is not remote or local'),
    });
  });

  test("an ICMP row leaves its port cells empty, as an ICMP trace takes no --sport/--dport", async () => {
    const tsv = file(
      "icmp.tsv",
      "protocol\tsourceIP\tdestIP\tdestPort\tsourcePort\n" +
        "icmp\t203.0.113.2\t172.30.0.44\t\t\n" +
        "icmp\t203.0.113.2\t172.30.0.44\t\t\n",
    );
    const r = await cli([...base, "--packets", tsv, "-o", "json"]);
    expect(r.err).toBe("");
    const rows = r.out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { packet: { proto: string } });
    expect(rows.map((x) => x.packet.proto)).toEqual(["icmp", "icmp"]);
    // The same packet as the one-packet form gives.
    const alone = await cli([
      ...base,
      ...["--proto", "icmp", "--src", "203.0.113.2", "--dst", "172.30.0.44", "-o", "json"],
    ]);
    const packetOf = (line: string) => (JSON.parse(line) as { packet: unknown }).packet;
    expect(packetOf(alone.out)).toEqual(packetOf(r.out.split("\n")[0]!));
    for (const [cells, column] of [
      ["53\t", "destPort"],
      ["\t4000", "sourcePort"],
    ] as const) {
      const bad = file(
        "icmp-bad.tsv",
        `protocol\tsourceIP\tdestIP\tdestPort\tsourcePort\nicmp\t1.2.3.4\t5.6.7.8\t${cells}\n`,
      );
      expect(await cli([...base, "--packets", bad])).toMatchObject({
        code: 2,
        err: expect.stringContaining(
          `icmp-bad.tsv:2: ${column}: an ICMP packet (an echo request) has no ports`,
        ),
      });
    }
    const noPort = file(
      "tcp-empty.tsv",
      "protocol\tsourceIP\tdestIP\tdestPort\ntcp\t1.2.3.4\t5.6.7.8\t\n",
    );
    expect(await cli([...base, "--packets", noPort])).toMatchObject({
      code: 2,
      err: expect.stringContaining(
        "tcp-empty.tsv:2: destPort: a tcp packet needs a destination port",
      ),
    });
  });

  test.each([
    ["--proto", "tcp", "protocol"],
    ["--src", "1.2.3.4", "sourceIP"],
    ["--sport", "1", "sourcePort"],
    ["--dst", "1.2.3.4", "destIP"],
    ["--dport", "80", "destPort"],
  ])("refuses %s, which describes one packet", async (option, value, column) => {
    const tsv = file("q.tsv", "protocol\tsourceIP\tdestIP\tdestPort\ntcp\t1.2.3.4\t5.6.7.8\t80\n");
    const r = await cli([...base, "--packets", tsv, option, value]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      `${option} describes one packet: with --packets, give it in the "${column}" column`,
    );
  });
});

describe("trace: an option is honoured or refused", () => {
  test.each([
    [["--node", "n"], "--node goes with -f"],
    [["--proxy-config", "x.yaml"], "--proxy-config goes with -f"],
    [["--validation", "warn"], "--validation goes with -f"],
    [["--feature-gates", "SCTPSupport=true"], "--feature-gates goes with -f"],
    [["--upstream", "--in-interface", "eth0"], "--in-interface is not read by --upstream"],
    [["--upstream", "--origin", "remote"], "--origin is not read by --upstream"],
    [["--upstream", "--sport", "5"], "--sport is not read by --upstream"],
    [["--upstream", "--naive"], "--naive is not read by --upstream"],
  ])("with --rules: %j", async (extra, message) => {
    const r = await cli([
      ...base,
      ...ONE.filter((w) => !extra.includes(w) || w !== "--sport"),
      ...extra,
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
  });

  test("--ipsets with -f", async () => {
    const r = await cli(["trace", "-f", "examples", "--ipsets", "x", ...ONE]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("--ipsets goes with --rules");
  });

  test("--in-interface '' is refused", async () => {
    const r = await cli([...base, ...ONE, "--in-interface", ""]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("--in-interface: an interface name cannot be empty");
  });

  test("--in-interface for a packet generated on the node is refused (it arrives on none)", async () => {
    const r = await cli([
      ...base,
      ...ONE.map((w) => (w === "203.0.113.2" ? "192.168.0.2" : w)),
      "--in-interface",
      "eth0",
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("give --origin remote");
    const remote = await cli([
      ...base,
      ...ONE.map((w) => (w === "203.0.113.2" ? "192.168.0.2" : w)),
      "--in-interface",
      "cbr0",
      "--origin",
      "remote",
    ]);
    expect(remote.code).toBe(0);
    expect(remote.out).toContain("DROP");
  });

  test.each(["010.0.0.1", "10.0.0.01", "0.0.0.00"])(
    "--src %s (octal to iptables, decimal to others) is refused as ambiguous",
    async (src) => {
      const r = await cli([...base, ...ONE.map((w) => (w === "203.0.113.2" ? src : w))]);
      expect(r.code).toBe(2);
      expect(r.err).toContain(`--src: "${src}" has a number with a leading zero`);
    },
  );

  test("0.0.0.0 and 10.0.0.1 are not ambiguous", async () => {
    for (const src of ["0.0.0.0", "10.0.0.1"])
      expect((await cli([...base, ...ONE.map((w) => (w === "203.0.113.2" ? src : w))])).code).toBe(
        0,
      );
  });
});
