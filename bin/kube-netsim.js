#!/usr/bin/env node
// Launcher. In a clone (src/ present, tsx installed by `npm ci`) it runs the TypeScript sources,
// so the CLI is never a stale build; in the installed package (no src/) it runs the compiled
// ESM build in dist/esm, which `npm pack` (prepack) builds.
import { existsSync } from "node:fs";

const source = new URL("../src/cli/main.ts", import.meta.url);
const built = new URL("../dist/esm/cli/main.js", import.meta.url);

async function sourceLoader() {
  if (!existsSync(source)) return undefined;
  try {
    return await import("tsx/esm/api");
  } catch {
    return undefined; // no tsx: a production install of a clone; use the build
  }
}

const tsx = await sourceLoader();
if (tsx) {
  tsx.register();
  await import(source.href);
} else if (existsSync(built)) {
  await import(built.href);
} else {
  process.stderr.write(
    "kube-netsim: dist/ is not built; run `npm run build` (or `npm ci` in a clone)\n",
  );
  process.exit(2);
}
