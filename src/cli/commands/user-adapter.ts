/**
 * A user's adapter module (`conformance --adapter file.js`) is the user's code: when importing it
 * throws, or its `nodeState` throws, that is a fault of the input, reported as one line that
 * names the module, what failed and where in the user's file (exit 2), not as kube-netsim's
 * internal error with our stack. The message is the user's error's own.
 */
import { pathToFileURL } from "node:url";
import type { ConformanceAdapter } from "../../testing/conformance/adapter.js";
import { importModule } from "../../util/import-module.js";
import { CliError } from "../exit.js";

/** `file:line:col` of the first stack frame inside `path`, when the error has one. */
function frameIn(err: unknown, path: string): string | undefined {
  const stack = err instanceof Error ? err.stack : undefined;
  if (stack === undefined) return undefined;
  const url = pathToFileURL(path).href;
  for (const line of stack.split("\n").slice(1)) {
    const m = /\(?((?:file:\/\/)?\/[^()\s]*?):(\d+):(\d+)\)?\s*$/.exec(line);
    if (m === null) continue;
    const file = m[1]!;
    if (file === url || file === path) return `${path}:${m[2]}:${m[3]}`;
  }
  return undefined;
}

/** The error as the user would name it: `TypeError: x is not a function`, and where. */
function described(err: unknown, path: string): string {
  const what =
    err instanceof Error ? `${err.name}: ${err.message}` : `a non-Error value: ${String(err)}`;
  const at = frameIn(err, path);
  return at === undefined ? what : `${what} (at ${at})`;
}

/** The module's exports; a module that fails to load or throws at its top level is a CliError. */
export async function importAdapterModule(
  name: string,
  path: string,
): Promise<Record<string, unknown>> {
  try {
    return (await importModule(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (e) {
    throw new CliError(`--adapter ${name}: the module failed to load: ${described(e, path)}`);
  }
}

/** The adapter with its `nodeState` failures reported as the module's, not as ours. */
export function guardedAdapter(
  name: string,
  path: string,
  adapter: ConformanceAdapter,
): ConformanceAdapter {
  const nodeState: ConformanceAdapter["nodeState"] = async (input) => {
    try {
      return await adapter.nodeState(input);
    } catch (e) {
      throw new CliError(
        `--adapter ${name}: adapter "${adapter.name}" nodeState failed: ${described(e, path)}`,
      );
    }
  };
  return {
    name: adapter.name,
    features: adapter.features,
    ...(adapter.proxier === undefined ? {} : { proxier: adapter.proxier }),
    nodeState,
  };
}
