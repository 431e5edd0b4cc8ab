/**
 * `kube-netsim repl`: the interactive shell. A Session holds the cluster snapshots; every line
 * goes through `dispatch`; Tab goes to `complete`. Line history is kept in
 * $XDG_STATE_HOME/kube-netsim/repl_history (~/.local/state/... by default) when on a terminal.
 */
import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import * as nodeRepl from "node:repl";
import type { Readable, Writable } from "node:stream";
import type { Cluster } from "../model/cluster.js";
import type { CliCommandSpec, CliIO, RunCommand } from "./cli-spec.js";
import { complete } from "./complete.js";
import type { NodeSettings } from "./diff-rules.js";
import { dispatch, readsTypedText } from "./dispatch.js";
import { objectsOf } from "./objects.js";
import { Session, type SessionOptions } from "./session.js";

export interface ReplOptions {
  readonly input: Readable;
  readonly output: Writable;
  readonly terminal?: boolean;
  readonly cluster: Cluster;
  readonly session: SessionOptions;
  /** The node settings for a snapshot, or why there are none. */
  readonly settings: (cluster: Cluster) => NodeSettings | { readonly error: string };
  readonly cli: readonly CliCommandSpec[];
  readonly run: RunCommand;
  /** How the CLI prints a user's error (see DispatchEnv.errorText). */
  readonly errorText: (e: unknown) => string | undefined;
  readonly readStdin?: () => string;
  /** Where line history is kept; undefined: nowhere. */
  readonly historyFile?: string;
  readonly editFile?: (file: string) => void;
}

/** $XDG_STATE_HOME/kube-netsim/repl_history, or ~/.local/state/kube-netsim/repl_history. */
export function historyPath(env: NodeJS.ProcessEnv = process.env): string {
  const state =
    env["XDG_STATE_HOME"] !== undefined && env["XDG_STATE_HOME"] !== ""
      ? env["XDG_STATE_HOME"]
      : join(env["HOME"] ?? homedir(), ".local", "state");
  return join(state, "kube-netsim", "repl_history");
}

export function startRepl(opts: ReplOptions): Promise<void> {
  const write = (s: string): void => {
    opts.output.write(s);
  };
  const io: CliIO = { stdout: write, stderr: write, readStdin: opts.readStdin ?? (() => "") };
  const session = new Session(opts.cluster, opts.session, {
    settings: opts.settings,
    readStdin: io.readStdin,
    ...(opts.editFile !== undefined ? { editFile: opts.editFile } : {}),
  });
  write(
    `kube-netsim repl: ${objectsOf(opts.cluster).length} objects loaded; help lists the commands, Tab completes, exit leaves\n`,
  );
  let queue: Promise<void> = Promise.resolve();
  const server = nodeRepl.start({
    prompt: "kube-netsim> ",
    input: opts.input,
    output: opts.output,
    terminal: opts.terminal ?? false,
    completer: (line: string): [string[], string] =>
      complete(line, {
        cli: opts.cli,
        cluster: session.cluster,
        checkpoints: session.checkpointNames,
      }),
    ignoreUndefined: true,
    eval: (cmd, _context, _file, callback) => {
      // Piped input delivers lines before the previous one finished: run them in order.
      queue = queue
        .then(() =>
          dispatch(cmd, { session, cli: opts.cli, run: opts.run, errorText: opts.errorText, io }),
        )
        .then((text) => {
          write(text);
          callback(null, undefined);
        })
        .catch((e: unknown) => {
          write(`internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
          callback(null, undefined);
        });
    },
  });
  // `apply -f -`: the lines up to a lone `.` (or EOF) are the YAML, read here before node:repl
  // sees them (it would take `.` for one of its dot commands).
  let typing: { line: string; lines: string[] } | undefined;
  const finishTyping = (): void => {
    if (typing === undefined) return;
    const { line, lines } = typing;
    typing = undefined;
    const typed = lines.length === 0 ? "" : `${lines.join("\n")}\n`;
    queue = queue
      .then(() =>
        dispatch(line, {
          session,
          cli: opts.cli,
          run: opts.run,
          errorText: opts.errorText,
          io,
          typed,
        }),
      )
      .then(write)
      .catch((e: unknown) => {
        write(`internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      });
  };
  const [onLine] = server.listeners("line") as ((line: string) => void)[];
  // After `exit`, lines already typed (or piped) behind it are not run.
  let leaving = false;
  if (onLine !== undefined) {
    server.removeListener("line", onLine);
    server.on("line", (text: string) => {
      // `exit` and `quit` leave, as `.exit` does (what a shell user types first), once the
      // lines before them have printed.
      if (leaving) return;
      if (typing === undefined && /^\s*(exit|quit)\s*$/.test(text)) {
        leaving = true;
        queue = queue.then(() => server.close());
        return;
      }
      if (typing === undefined && !readsTypedText(text)) {
        onLine.call(server, text);
        return;
      }
      if (typing === undefined) typing = { line: text, lines: [] };
      else if (text.trim() === ".") finishTyping();
      else typing.lines.push(text);
      const prompt = typing === undefined ? "kube-netsim> " : "...> ";
      queue = queue.then(() => {
        server.setPrompt(prompt);
        server.displayPrompt();
      });
    });
  }
  // node:repl's JavaScript-session dot commands mean nothing here (.help and .exit stay).
  const builtins = server.commands as Record<string, unknown>;
  for (const name of ["editor", "load", "save", "clear", "break"]) delete builtins[name];
  if (opts.terminal === true && opts.historyFile !== undefined) {
    const file = opts.historyFile;
    try {
      mkdirSync(dirname(file), { recursive: true });
      server.setupHistory(file, (err) => {
        if (err !== null) write(`(history not kept: ${err.message})\n`);
      });
    } catch (e) {
      write(`(history not kept: ${e instanceof Error ? e.message : String(e)})\n`);
    }
  }
  return new Promise((resolve) =>
    server.on("exit", () => {
      finishTyping();
      void queue.then(() => {
        session.close();
        resolve();
      });
    }),
  );
}
