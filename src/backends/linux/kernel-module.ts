/**
 * Whether a kernel module is in this machine's kernel right now, as the SCTP test plan's side
 * condition reads it ("if sctp.ko was not loaded before a test, it is not loaded after"):
 * /proc/modules lists loaded loadable modules; /sys/module/NAME exists for a loaded module and
 * for a built-in one that has parameters. A kernel without loadable-module support has no
 * /proc/modules: nothing can be loaded there, and /sys/module still shows what is built in.
 */
import { existsSync, readFileSync } from "node:fs";

export type ModuleState =
  | { readonly kind: "loaded"; readonly source: string }
  | { readonly kind: "absent"; readonly source: string }
  | { readonly kind: "unknown"; readonly reason: string };

export interface ModuleFiles {
  /** Default /proc/modules. */
  readonly procModules?: string;
  /** Default /sys/module. */
  readonly sysModule?: string;
}

export function kernelModuleState(name: string, files: ModuleFiles = {}): ModuleState {
  const proc = files.procModules ?? "/proc/modules";
  const sys = files.sysModule ?? "/sys/module";
  const inSys = existsSync(`${sys}/${name}`);
  if (existsSync(proc)) {
    const listed = readFileSync(proc, "utf8")
      .split("\n")
      .some((line) => line.split(" ")[0] === name);
    if (listed) return { kind: "loaded", source: proc };
    if (inSys) return { kind: "loaded", source: `${sys}/${name} (built in)` };
    return { kind: "absent", source: `${proc} and ${sys}` };
  }
  if (!existsSync(sys))
    return { kind: "unknown", reason: `neither ${proc} nor ${sys} exists on this machine` };
  return inSys
    ? { kind: "loaded", source: `${sys}/${name} (built in)` }
    : { kind: "absent", source: `${sys} (no ${proc}: this kernel cannot load modules)` };
}

export function describeModuleState(name: string, s: ModuleState): string {
  switch (s.kind) {
    case "loaded":
      return `${name} loaded (${s.source})`;
    case "absent":
      return `${name} not loaded (${s.source})`;
    case "unknown":
      return `${name}: unknown (${s.reason})`;
  }
}
