import { afterAll, describe, expect } from "@jest/globals";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fc, test } from "@fast-check/jest";
import { readText, readUtf8 } from "../../src/cli/read-text.js";
import { CliError } from "../../src/cli/exit.js";

const dir = mkdtempSync(join(tmpdir(), "kns-read-text-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("readUtf8", () => {
  // Any bytes (a BOM, invalid and truncated sequences included) decode as Node's own
  // readFileSync(file, "utf8") decodes them.
  test.prop([fc.uint8Array({ maxLength: 64 })], { numRuns: 200 })(
    "decodes bytes as readFileSync(file, 'utf8')",
    (bytes) => {
      const file = join(dir, "bytes");
      writeFileSync(file, bytes);
      expect(readUtf8(file)).toBe(readFileSync(file, "utf8"));
    },
  );
  test("a missing file is a CliError that names it", () => {
    expect(() => readText(join(dir, "missing.rules"), "rules file")).toThrow(
      new CliError(`rules file ${join(dir, "missing.rules")}: no such file or directory`),
    );
  });
});
