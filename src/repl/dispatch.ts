/**
 * One REPL line → what it prints. Session commands (command-table.ts) act on the Session; every
 * other command is a CLI command line, run with the session's current objects (`-f` a snapshot
 * file) and its node options added where that command takes them.
 */
import { closest, distance } from "fastest-levenshtein";
import { parseTraceProtocol, type PacketSpec } from "../netfilter/trace/index.js";
import { resolveCli, type CliCommandSpec, type CliIO, type RunCommand } from "./cli-spec.js";
import { formatSessionHelp, SESSION_COMMANDS, sessionCommand } from "./command-table.js";
import { commandNames } from "./complete.js";
import { Session, SessionError } from "./session.js";
import { optionValue, optionValues, positionals, splitWords } from "./words.js";

export interface DispatchEnv {
  readonly session: Session;
  readonly cli: readonly CliCommandSpec[];
  readonly run: RunCommand;
  readonly io: CliIO;
  /**
   * How the CLI prints an error a user should see (`error: ` and its lines), or undefined for a
   * programmer's error: passed in by the CLI (src/cli/render-errors.ts) so that the REPL prints
   * session errors as commands print theirs without importing the CLI.
   */
  readonly errorText: (e: unknown) => string | undefined;
  /** The text typed after an `apply -f -` line (see `readsTypedText`). */
  readonly typed?: string;
}

/** Whether the line is `apply -f -`: the YAML follows on the next lines, up to a lone `.`. */
export function readsTypedText(line: string): boolean {
  const words = splitWords(line.trim());
  return (
    Array.isArray(words) &&
    words[0] === "apply" &&
    optionValues(words.slice(1), ["-f", "--filename"]).includes("-")
  );
}

/** "did you mean X?" for a mistyped command, when one is close. */
export function suggestion(word: string, names: readonly string[]): string {
  if (names.length === 0) return "";
  const best = closest(word, [...names]);
  return distance(word, best) <= Math.max(2, Math.floor(word.length / 3))
    ? ` (did you mean ${best}?)`
    : "";
}

function unknown(word: string, cli: readonly CliCommandSpec[]): string {
  return `unknown command "${word}"${suggestion(word, commandNames(cli))}; type help for the list\n`;
}

/** The CLI argument vector for a line, with the session's objects and node options added. */
export function argvFor(
  session: Session,
  spec: CliCommandSpec,
  words: readonly string[],
): string[] {
  const has = (...names: string[]): boolean =>
    words.some((w) => names.includes(w) || names.some((n) => w.startsWith(`${n}=`)));
  const extra: string[] = [];
  const o = session.options;
  const takes = (n: string): boolean => spec.options.includes(n);
  if (takes("-f") && !has("-f", "--filename", "--rules", "--snapshot"))
    extra.push("-f", session.snapshotFile());
  if (takes("--node-env") && o.nodeEnv !== undefined && !has("--node-env", "--node"))
    extra.push("--node-env", o.nodeEnv);
  if (
    takes("--node") &&
    o.node !== undefined &&
    o.nodeEnv === undefined &&
    !has("--node-env", "--node")
  )
    extra.push("--node", o.node);
  if (takes("--proxy-config") && o.proxyConfig !== undefined && !has("--proxy-config"))
    extra.push("--proxy-config", o.proxyConfig);
  if (takes("--feature-gates") && o.featureGatesText !== undefined && !has("--feature-gates"))
    extra.push("--feature-gates", o.featureGatesText);
  return [...words, ...extra];
}

/** A single-packet trace line as a packet the session's diff re-traces. */
export function tracedPacket(words: readonly string[]): PacketSpec | undefined {
  const proto = optionValue(words, ["--proto"]);
  const src = optionValue(words, ["--src"]);
  const dst = optionValue(words, ["--dst"]);
  const dport = optionValue(words, ["--dport"]);
  const sport = optionValue(words, ["--sport"]);
  // An ICMP echo request has no ports (the trace command refuses them): port 0.
  const icmp = proto?.toLowerCase() === "icmp";
  if (proto === undefined || src === undefined || dst === undefined) return undefined;
  if (dport === undefined && !icmp) return undefined;
  try {
    return {
      proto: parseTraceProtocol(proto),
      src,
      dst,
      dport: icmp ? 0 : Number(dport),
      ...(sport !== undefined ? { sport: Number(sport) } : {}),
    };
  } catch {
    return undefined;
  }
}

function helpText(cli: readonly CliCommandSpec[]): string {
  const lines = ["Session commands:"];
  for (const c of SESSION_COMMANDS) lines.push(`  ${c.usage.padEnd(44)} ${c.summary}`);
  lines.push("", "kube-netsim commands (run on the session's objects and node):");
  for (const c of cli) if (c.name !== "repl") lines.push(`  ${c.name.padEnd(44)} ${c.summary}`);
  lines.push(
    "",
    "help COMMAND for one command; Tab completes; exit (or .exit, quit, Ctrl-D) leaves.",
  );
  return `${lines.join("\n")}\n`;
}

async function help(words: readonly string[], env: DispatchEnv): Promise<string> {
  const name = words[1];
  if (name === undefined) return helpText(env.cli);
  const s = sessionCommand(name);
  if (s !== undefined) return formatSessionHelp(s);
  if (name === "repl") return "repl: you are in it; exit or Ctrl-D leaves\n";
  if (resolveCli(env.cli, words.slice(1)) === undefined) return unknown(name, env.cli);
  await env.run([...words.slice(1), "--help"], env.io);
  return "";
}

function session(
  words: readonly string[],
  line: string,
  s: Session,
  typed: string | undefined,
): string {
  const [cmd, ...rest] = words;
  const args = positionals(rest, ["-o", "--output", "--node", "-f", "--filename"]);
  switch (cmd) {
    case "get":
      return s.get(args[0], args[1], optionValue(rest, ["-o", "--output"]));
    case "describe":
      return s.describe(args[0], args[1]);
    case "set":
      return s.set(args[0], args[1], args.slice(2), line);
    case "label":
      return s.label(args[0], args[1], args.slice(2), line);
    case "endpoints":
      return s.endpoints(
        args[0],
        args[1],
        args[2],
        {
          ...(optionValue(rest, ["--node"]) !== undefined
            ? { node: optionValue(rest, ["--node"]) as string }
            : {}),
          notReady: rest.includes("--not-ready"),
        },
        line,
      );
    case "apply":
      return s.applyFiles(optionValues(rest, ["-f", "--filename"]), line, typed);
    case "delete":
      return s.delete(args[0], args[1], line);
    case "edit":
      return s.editInEditor(args[0], args[1], line);
    case "undo":
      return s.undo();
    case "redo":
      return s.redo();
    case "history":
      return s.history();
    case "checkpoint":
      return s.checkpoint(args[0]);
    case "reset":
      return s.reset(args[0], line);
    case "diff":
      return s.diff(args[0]);
    case "save":
      return s.save(args[0]);
    case "session":
      return s.describeSession();
    default:
      throw new SessionError(`not a session command: ${cmd ?? ""}`);
  }
}

/** Runs one line; returns what to print (CLI commands print through env.io themselves). */
export async function dispatch(line: string, env: DispatchEnv): Promise<string> {
  const split = splitWords(line.trim());
  if (!Array.isArray(split)) return `error: ${split.error}\n`;
  const words = split;
  const first = words[0];
  if (first === undefined) return "";
  if (first === "help" || first === "--help" || first === "-h") return help(words, env);
  if (first === "repl")
    return "already in the REPL (nested sessions are not supported); exit leaves it\n";
  if (sessionCommand(first) !== undefined) {
    try {
      return session(words, line.trim(), env.session, env.typed);
    } catch (e) {
      // Printed as the CLI prints errors, after `error: `.
      const text = env.errorText(e);
      if (text !== undefined) return text;
      throw e;
    }
  }
  const resolved = resolveCli(env.cli, words);
  if (resolved === undefined) return unknown(first, env.cli);
  if (first === "trace") {
    const p = tracedPacket(words);
    if (p !== undefined) env.session.recordPacket(p);
  }
  const code = await env.run(argvFor(env.session, resolved.spec, words), env.io);
  return code !== 0 ? `(exit ${code})\n` : "";
}
