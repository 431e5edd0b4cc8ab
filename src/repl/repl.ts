/**
 * `kube-netsim repl`: an interactive shell over the CLI. Every kube-netsim command works as a
 * line (`render iptables`, `trace --proto sctp ...`, `policy matrix`), with the session's
 * manifests, node environment and proxy config filled in. Session commands start with a dot.
 */
import * as nodeRepl from "node:repl";
import type { Readable, Writable } from "node:stream";
import { runCli, type CliIO } from "../cli/program.js";
import {
  EMPTY_STATE,
  addFiles,
  argvFor,
  removeFiles,
  setSetting,
  splitWords,
  type ReplState,
} from "./session.js";

export interface ReplOptions {
  readonly input: Readable;
  readonly output: Writable;
  readonly files?: readonly string[];
  readonly terminal?: boolean;
  readonly readStdin?: () => string;
}

const COMMAND_WORDS = ["validate", "render", "trace", "policy", "parse", "help"];
const SUBCOMMAND_WORDS = ["iptables", "ipvs", "hostports", "check", "matrix", "diff", "lint"];

export function startRepl(opts: ReplOptions): Promise<void> {
  let state: ReplState = addFiles(EMPTY_STATE, opts.files ?? []);
  const write = (s: string): void => {
    opts.output.write(s);
  };
  const io: CliIO = {
    stdout: write,
    stderr: write,
    readStdin: opts.readStdin ?? (() => ""),
  };
  write(
    `kube-netsim repl: type a command (e.g. "render iptables"), .help for session commands, .exit to leave\n`,
  );
  const server = nodeRepl.start({
    prompt: "kube-netsim> ",
    input: opts.input,
    output: opts.output,
    terminal: opts.terminal ?? false,
    completer: (line: string): [string[], string] => {
      const words = line.split(/\s+/);
      const last = words[words.length - 1] ?? "";
      const pool = words.length <= 1 ? COMMAND_WORDS : SUBCOMMAND_WORDS;
      return [pool.filter((w) => w.startsWith(last)), last];
    },
    eval: (cmd, _context, _file, callback) => {
      const words = splitWords(cmd.trim());
      if (!Array.isArray(words)) {
        write(`error: ${words.error}\n`);
        callback(null, undefined);
        return;
      }
      if (words.length === 0) {
        callback(null, undefined);
        return;
      }
      const argv = words[0] === "help" ? ["--help"] : argvFor(state, words);
      runCli(argv, io)
        .then((code) => {
          if (code !== 0) write(`(exit ${code})\n`);
          callback(null, undefined);
        })
        .catch((e: unknown) => callback(e instanceof Error ? e : new Error(String(e)), undefined));
    },
    writer: () => "",
  });
  server.defineCommand("load", {
    help: "Add manifest files or folders to the session: .load FILE...",
    action(arg: string) {
      state = addFiles(state, arg.split(/\s+/).filter(Boolean));
      write(`files: ${state.files.join(" ")}\n`);
      this.displayPrompt();
    },
  });
  server.defineCommand("unload", {
    help: "Remove manifest files from the session: .unload FILE...",
    action(arg: string) {
      state = removeFiles(state, arg.split(/\s+/).filter(Boolean));
      write(`files: ${state.files.join(" ")}\n`);
      this.displayPrompt();
    },
  });
  server.defineCommand("node", {
    help: "Use this NodeEnvironment file for render/trace: .node FILE (no argument clears it)",
    action(arg: string) {
      state = setSetting(state, "nodeEnv", arg.trim() === "" ? undefined : arg.trim());
      write(`node environment: ${state.nodeEnv ?? "(none)"}\n`);
      this.displayPrompt();
    },
  });
  server.defineCommand("proxy", {
    help: "Use this KubeProxyConfiguration for render/trace: .proxy FILE (no argument clears it)",
    action(arg: string) {
      state = setSetting(state, "proxyConfig", arg.trim() === "" ? undefined : arg.trim());
      write(`proxy config: ${state.proxyConfig ?? "(none)"}\n`);
      this.displayPrompt();
    },
  });
  server.defineCommand("session", {
    help: "Show the session's files and settings",
    action() {
      write(
        `files: ${state.files.join(" ") || "(none)"}\nnode environment: ${state.nodeEnv ?? "(none)"}\nproxy config: ${state.proxyConfig ?? "(none)"}\n`,
      );
      this.displayPrompt();
    },
  });
  return new Promise((resolve) => server.on("exit", () => resolve()));
}
