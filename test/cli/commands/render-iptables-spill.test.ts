/**
 * `render iptables` with stdout a regular file keeps a large table's rule lines in a temporary,
 * already unlinked file until it prints them (src/cli/spill-file.ts): the bytes must be exactly
 * those printed to a pipe (kept in memory), and nothing may be left in the temporary directory.
 */
import { afterAll, describe, expect, test } from "@jest/globals";
import { spawnSync } from "node:child_process";
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SpillFile, SpillFiles } from "../../../src/cli/spill-file.js";
import { NODE_ENV_YAML, servicesYaml } from "../../../bench/lib/fixtures.js";

const bin = new URL("../../../bin/kube-netsim.js", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "kns-spill-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const spillDirs = (): string[] =>
  readdirSync(tmpdir()).filter((n) => n.startsWith("kube-netsim-spill-"));

describe("SpillFiles", () => {
  test("replays what was appended, in order, from a file that is already gone", () => {
    const before = spillDirs();
    const files = new SpillFiles();
    const file = files.make();
    expect(spillDirs()).toEqual(before);
    const expected: Buffer[] = [];
    const scratch = Buffer.alloc(300_000);
    for (let i = 0; i < 12; i++) {
      // The appended view is written over right after the call, as a table's chunk is.
      const n = 1 + ((i * 97_531) % scratch.length);
      scratch.fill(0x41 + i, 0, n);
      file.append(scratch.subarray(0, n));
      expected.push(Buffer.from(scratch.subarray(0, n)));
      scratch.fill(0x21);
    }
    for (let round = 0; round < 2; round++) {
      const got: Buffer[] = [];
      file.replay((b) => got.push(Buffer.from(b)));
      expect(Buffer.concat(got).equals(Buffer.concat(expected))).toBe(true);
    }
    files.close();
  });
});

describe("SpillFile", () => {
  test("keeps the lines in memory from a failed write on (a full file system)", () => {
    // /dev/full refuses every write with ENOSPC; a short file refuses none (the control).
    for (const [path, fails] of [
      ["/dev/full", true],
      [join(dir, "spill-control"), false],
    ] as const) {
      const fd = openSync(path, "w+");
      try {
        const file = new SpillFile(fd);
        const expected: Buffer[] = [];
        const scratch = Buffer.alloc(1000);
        for (let i = 0; i < 5; i++) {
          scratch.fill(0x61 + i, 0, 100 + i);
          file.append(scratch.subarray(0, 100 + i));
          expected.push(Buffer.from(scratch.subarray(0, 100 + i)));
          scratch.fill(0x21);
        }
        const got: Buffer[] = [];
        file.replay((b) => got.push(Buffer.from(b)));
        expect({ path, same: Buffer.concat(got).equals(Buffer.concat(expected)) }).toEqual({
          path,
          same: true,
        });
        // What the failed writes left in memory is replayed as it was given, chunk by chunk.
        expect(got.length === expected.length).toBe(fails);
      } finally {
        closeSync(fd);
      }
    }
  });
});

describe("render iptables with stdout a file", () => {
  test("prints the bytes it prints to a pipe", () => {
    // 300 services × 40 endpoints: ~3 MB of restore text, past the 1 MiB a table holds.
    const manifests = join(dir, "services.yaml");
    const node = join(dir, "node.yaml");
    writeFileSync(manifests, servicesYaml(300, 40));
    writeFileSync(node, NODE_ENV_YAML);
    const args = [bin, "render", "iptables", "-f", manifests, "--node-env", node];
    const before = spillDirs();
    const out = join(dir, "out.rules");
    const fd = openSync(out, "w");
    try {
      const r = spawnSync(process.execPath, args, { stdio: ["ignore", fd, "pipe"] });
      expect(r.stderr.toString()).toBe("");
      expect(r.status).toBe(0);
    } finally {
      closeSync(fd);
    }
    const piped = spawnSync(process.execPath, args, { maxBuffer: 1 << 26 });
    expect(piped.status).toBe(0);
    const file = readFileSync(out);
    expect(file.length).toBeGreaterThan(2 << 20);
    expect(file.equals(piped.stdout)).toBe(true);
    expect(spillDirs()).toEqual(before);
  }, 120_000);
});
