/**
 * Tab completion by position: the command; then that command's subcommands and options (CLI
 * commands) or its arguments (session commands: kinds, object names of the kind just named,
 * field paths for `set`, checkpoints); file paths after -f/--node-env/... and for `save`.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Cluster } from "../model/cluster.js";
import { formatFieldPath } from "../model/issue.js";
import { isRecord } from "../util/plain.js";
import { FILE_OPTIONS, resolveCli, type CliCommandSpec } from "./cli-spec.js";
import { SESSION_COMMANDS, sessionCommand, type ArgKind } from "./command-table.js";
import { findObject, KIND_NAMES, kindOf, objectsOf, refOf } from "./objects.js";
import { positionals, splitWords } from "./words.js";

export interface CompletionContext {
  readonly cli: readonly CliCommandSpec[];
  readonly cluster: Cluster;
  readonly checkpoints: readonly string[];
  /** Directory entries for a path prefix (default: the file system). */
  readonly listFiles?: (prefix: string) => string[];
}

export function commandNames(cli: readonly CliCommandSpec[]): string[] {
  return [...SESSION_COMMANDS.map((c) => c.name), ...cli.map((c) => c.name)].filter(
    (n) => n !== "repl",
  );
}

export function listFiles(prefix: string): string[] {
  const slash = prefix.lastIndexOf("/");
  const shown = prefix.slice(0, slash + 1);
  const base = prefix.slice(slash + 1);
  let names: string[];
  try {
    names = readdirSync(shown === "" ? "." : shown);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(base) && (base.startsWith(".") || !n.startsWith(".")))
    .sort()
    .map((n) => {
      let isDir: boolean;
      try {
        isDir = statSync(join(shown === "" ? "." : shown, n)).isDirectory();
      } catch {
        isDir = false;
      }
      return `${shown}${n}${isDir ? "/" : ""}`;
    });
}

function fieldPaths(v: unknown, path: (string | number)[], out: string[]): void {
  if (path.length > 0) out.push(formatFieldPath(path));
  if (Array.isArray(v)) v.forEach((x, i) => fieldPaths(x, [...path, i], out));
  else if (isRecord(v)) for (const [k, x] of Object.entries(v)) fieldPaths(x, [...path, k], out);
}

function argCandidates(arg: ArgKind, before: readonly string[], ctx: CompletionContext): string[] {
  switch (arg.kind) {
    case "object-kind":
      return [...KIND_NAMES];
    case "object": {
      const kind = arg.of === "Service" ? "Service" : kindOf(before[before.length - 1] ?? "");
      return kind === undefined ? [] : objectsOf(ctx.cluster, kind).map(refOf);
    }
    case "field": {
      const kind = kindOf(before[before.length - 2] ?? "");
      const o =
        kind === undefined
          ? undefined
          : findObject(ctx.cluster, kind, before[before.length - 1] ?? "");
      const out: string[] = [];
      if (o !== undefined) fieldPaths(o.value, [], out);
      return out.filter((p) => p !== "kind" && p !== "apiVersion").map((p) => `${p}=`);
    }
    case "file":
      return [];
    case "checkpoint":
      return [...ctx.checkpoints];
    case "command":
      return commandNames(ctx.cli);
    case "words":
      return [...arg.words];
  }
}

/** Candidates that complete `fragment` (the word under the cursor), readline's contract. */
export function complete(line: string, ctx: CompletionContext): [string[], string] {
  const split = splitWords(line);
  const words = Array.isArray(split) ? split : line.trim().split(/\s+/);
  const endsInSpace = line === "" || /\s$/.test(line);
  const fragment = endsInSpace ? "" : (words[words.length - 1] ?? "");
  const before = endsInSpace ? words : words.slice(0, -1);
  const files = ctx.listFiles ?? listFiles;
  const pick = (pool: readonly string[]): [string[], string] => [
    [...new Set(pool)].filter((w) => w.startsWith(fragment)),
    fragment,
  ];

  if (before.length === 0) return pick(commandNames(ctx.cli));
  const prev = before[before.length - 1] as string;
  if (FILE_OPTIONS.has(prev)) return [files(fragment), fragment];

  const session = sessionCommand(before[0] as string);
  if (session !== undefined) {
    if (fragment.startsWith("-")) return pick(session.options);
    const args = positionals(before.slice(1), ["-o", "--output", "--node"]);
    const arg = session.args[Math.min(args.length, session.args.length - 1)];
    if (arg === undefined || (args.length >= session.args.length && arg.kind !== "field"))
      return session.name === "save" ? [files(fragment), fragment] : pick([]);
    if (arg.kind === "file") return [files(fragment), fragment];
    return pick(argCandidates(arg, [before[0] as string, ...args], ctx));
  }

  const resolved = resolveCli(ctx.cli, before);
  if (resolved === undefined) return pick([]);
  const { spec, depth } = resolved;
  const rest = before.slice(depth);
  if (rest.length === 0 && spec.subcommands.length > 0 && !fragment.startsWith("-"))
    return pick(spec.subcommands.map((s) => s.name));
  return pick(spec.options);
}
