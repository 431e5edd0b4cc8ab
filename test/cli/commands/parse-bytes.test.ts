/**
 * Issue 19 item 11: a comment that is not valid UTF-8 is printed by `parse` with its bytes as
 * they are, as iptables-save prints them (checked on the kernel), not as U+FFFD; from a file
 * and from stdin, with the comment length counted in bytes.
 */
import { afterAll, expect, test } from "@jest/globals";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withNetns } from "../../../src/backends/netns.js";
import { runCli } from "../../../src/cli/program.js";
import { kernelRulesOnly, kernelTest } from "../../helpers/kernel.js";

// Rules only: loads, checks and listings in its own namespaces, nothing timed.
kernelRulesOnly();

const dir = mkdtempSync(join(tmpdir(), "kns-parse-bytes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ascii = (s: string): Buffer => Buffer.from(s, "latin1");
/** Rules whose comments hold an invalid byte, a valid é, a truncated sequence and a lone lead byte. */
const RULES = Buffer.concat([
  ascii('*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -m comment --comment "a'),
  Buffer.from([0xff, 0x62, 0xc3, 0xa9, 0xe2, 0x82]),
  ascii('" -j ACCEPT\n-A INPUT -m comment --comment '),
  Buffer.from([0xc3, 0x28]),
  ascii(" -j ACCEPT\nCOMMIT\n"),
]);
/** What iptables-save printed for RULES on this kernel (the kernel test checks it again). */
const SAVED_RULES = Buffer.concat([
  ascii('-A INPUT -m comment --comment "a'),
  Buffer.from([0xff, 0x62, 0xc3, 0xa9, 0xe2, 0x82]),
  ascii('" -j ACCEPT\n-A INPUT -m comment --comment "'),
  Buffer.from([0xc3, 0x28]),
  ascii('" -j ACCEPT\n'),
]);

/** The -A lines of a save dump, as bytes. */
function ruleLines(save: Buffer): Buffer {
  const lines: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < save.length; i++) {
    if (save[i] !== 0x0a) continue;
    const line = save.subarray(start, i + 1);
    if (line[0] === 0x2d && line[1] === 0x41) lines.push(line);
    start = i + 1;
  }
  return Buffer.concat(lines);
}

async function parseBytes(argv: string[], stdin?: Buffer): Promise<{ code: number; out: Buffer }> {
  const out: Buffer[] = [];
  process.exitCode = undefined;
  const code = await runCli(argv, {
    stdout: (s) => out.push(Buffer.from(s, "utf8")),
    stdoutBytes: (b) => out.push(Buffer.from(b)),
    stderr: () => undefined,
    readStdin: () => (stdin ?? Buffer.alloc(0)).toString("utf8"),
    ...(stdin !== undefined && { readStdinBytes: () => stdin }),
  });
  process.exitCode = undefined;
  return { code, out: Buffer.concat(out) };
}

test("from a file and from stdin, the comment bytes come out as they went in", async () => {
  const file = join(dir, "bytes.rules");
  writeFileSync(file, RULES);
  for (const r of [await parseBytes(["parse", file]), await parseBytes(["parse", "-"], RULES)]) {
    expect(r.code).toBe(0);
    expect(ruleLines(r.out).toString("latin1")).toBe(SAVED_RULES.toString("latin1"));
  }
});

test("a comment of 255 bytes with invalid ones is accepted, 256 refused (bytes, not characters)", async () => {
  const rules = (n: number): Buffer =>
    Buffer.concat([
      ascii("*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -m comment --comment "),
      Buffer.alloc(n, 0xff),
      ascii(" -j ACCEPT\nCOMMIT\n"),
    ]);
  const file = join(dir, "long.rules");
  writeFileSync(file, rules(255));
  expect((await parseBytes(["parse", "--check", file])).code).toBe(0);
  writeFileSync(file, rules(256));
  expect((await parseBytes(["parse", "--check", file])).code).toBe(2);
});

kernelTest(
  "iptables-save prints those bytes raw (the expected output above)",
  ["root", "ip", "iptables"],
  async () => {
    await withNetns(
      1,
      ([ns]) => {
        // Bytes in and out: Netns.run speaks UTF-8 strings, which would change them.
        const inNs = (cmd: string, input: Buffer) =>
          spawnSync("ip", ["netns", "exec", ns!.name, cmd], { input });
        expect(inNs("iptables-restore", RULES).status).toBe(0);
        const saved = inNs("iptables-save", Buffer.alloc(0));
        expect(saved.status).toBe(0);
        expect(ruleLines(saved.stdout).toString("latin1")).toBe(SAVED_RULES.toString("latin1"));
      },
      "kns-bytes",
    );
  },
);
