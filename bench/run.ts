/**
 * `npm run bench [-- NAME... | --quick]`: runs every benchmark (or the named ones) one after the
 * other, each in its own process so that one's heap does not skew the next.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const dir = import.meta.dirname;
const args = process.argv.slice(2);
const flags = args.filter((a) => a.startsWith("--"));
const names = args.filter((a) => !a.startsWith("--"));
const all = readdirSync(dir)
  .filter((f) => f.endsWith(".ts") && f !== "run.ts" && !f.startsWith("_"))
  .map((f) => f.replace(/\.ts$/, ""))
  .sort();
const chosen = names.length > 0 ? names : all;
let failed = 0;
for (const name of chosen) {
  if (!all.includes(name)) {
    process.stderr.write(`unknown benchmark "${name}": one of ${all.join(", ")}\n`);
    process.exitCode = 2;
    continue;
  }
  process.stdout.write(`\n=== bench/${name}.ts ${flags.join(" ")}\n`);
  const r = spawnSync(process.execPath, ["--import", "tsx", join(dir, `${name}.ts`), ...flags], {
    stdio: "inherit",
  });
  if (r.status !== 0) failed++;
}
if (failed > 0) process.exitCode = 1;
