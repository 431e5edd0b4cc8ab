/**
 * The one place the CLI (and the REPL, src/repl/dispatch.ts) turns errors into text and exit
 * codes. Two families reach it (src/issue/):
 * - `ValidationError`, bad input: manifests, config files, iptables/ipset/ipvsadm/nft text, a
 *   packet or probe file, a snapshot directory, a hostport or portmap setting, a REPL edit. Each
 *   issue prints as one line, `FILE:LINE[:COL]: Kind ns/name: field.path: message` (parts that
 *   are unknown left out, user text escaped: `formatIssue`); an issue with no position begins
 *   with `kube-netsim: ` instead, as every other error line does. Exit 2 when one is an error.
 * - `OperationalError`, the environment cannot do it (a backend that cannot run here, a node
 *   without IPVS, a trace over its budget): `kube-netsim: message`, one line, exit 2.
 * The CLI's own `CliError` (usage, unreadable files) prints the same way as an operational
 * error, with its exit code. Anything else is a programmer's error: `internal error` with the
 * stack, exit 70. Commands do not catch and restate these: they throw, and `reportError` prints.
 *
 * Errors from rendering that are the input's fault are reported as such (exit 2), never as an
 * internal error:
 * - rules text that does not parse means the input led kube-proxy to write rules
 *   iptables-restore would refuse;
 * - with `--validation warn` the objects the API server would refuse are kept; when a generator
 *   cannot handle one of them, the message says the input is invalid and names the failure.
 */
import { CommanderError } from "commander";
import type { Cluster } from "../model/cluster.js";
import { errorsOf, escapeControl, formatIssue, type Issue } from "../issue/issue.js";
import { OperationalError } from "../issue/operational-error.js";
import { ValidationError } from "../issue/validation-error.js";
import { CliError, EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_OK } from "./exit.js";
import type { ManifestOptions } from "./load.js";
import type { CliIO } from "./program.js";

/** What a program's error lines begin with when they hold no position. */
export const PROGRAM_PREFIX = "kube-netsim: ";

/** One issue as a line: its position first when it has one, else the program's name. */
export function issueLine(issue: Issue): string {
  const line = formatIssue(issue);
  return issue.source !== undefined ? line : `${PROGRAM_PREFIX}${line}`;
}

/** One line per issue, in the order given. */
export function issueLines(issues: readonly Issue[]): string[] {
  return issues.map(issueLine);
}

/** Issues in source order (line, column), as a reader goes through a file. */
export function inSourceOrder(issues: readonly Issue[]): Issue[] {
  return [...issues].sort(
    (a, b) =>
      (a.source?.line ?? 0) - (b.source?.line ?? 0) || (a.source?.col ?? 0) - (b.source?.col ?? 0),
  );
}

/** Prints every issue on stderr; exit 2 when one is an error, 0 for warnings only. */
export function reportIssues(issues: readonly Issue[], io: CliIO): number {
  io.stderr(
    issueLines(issues)
      .map((l) => `${l}\n`)
      .join(""),
  );
  return errorsOf(issues).length > 0 ? EXIT_BAD_INPUT : EXIT_OK;
}

/** A warning that is about no input position (a pod the hostport manager refused). */
export function warningLine(message: string): string {
  return `${PROGRAM_PREFIX}warning: ${escapeControl(message)}`;
}

/** An error as the lines to print and the exit code. */
export interface RenderedError {
  /** Issue lines (each as `issueLine` prints it), or a message (the CliError's lines). */
  readonly lines: readonly string[];
  /** The lines begin as they print (issue lines); else the first gets the program prefix. */
  readonly prefixed: boolean;
  readonly exitCode: number;
}

/**
 * The text and exit code of an error a user should see, or undefined for a programmer's error.
 * A `ValidationError` may add a line after its issues (`note`, the REPL's "(nothing changed)").
 */
export function renderError(e: unknown): RenderedError | undefined {
  if (e instanceof ValidationError) {
    return {
      lines: [...issueLines(e.issues), ...(e.note !== undefined ? [e.note] : [])],
      prefixed: true,
      exitCode: errorsOf(e.issues).length > 0 ? EXIT_BAD_INPUT : EXIT_OK,
    };
  }
  // One problem, one line: user text in a message cannot start a line of its own.
  if (e instanceof OperationalError)
    return { lines: [escapeControl(e.message)], prefixed: false, exitCode: EXIT_BAD_INPUT };
  if (e instanceof CliError)
    return {
      lines: (e.lines ?? [e.message]).map(escapeControl),
      prefixed: false,
      exitCode: e.exitCode,
    };
  return undefined;
}

/** Prints an error thrown by a command on stderr and returns the exit code. */
export function reportError(e: unknown, io: CliIO): number {
  if (e instanceof CommanderError) {
    // help and version are "errors" to commander; they already printed.
    if (
      e.code === "commander.helpDisplayed" ||
      e.code === "commander.version" ||
      e.code === "commander.help"
    )
      return EXIT_OK;
    return EXIT_BAD_INPUT;
  }
  const r = renderError(e);
  if (r === undefined) {
    const err = e instanceof Error ? e : new Error(String(e));
    io.stderr(`${PROGRAM_PREFIX}internal error: ${err.stack ?? err.message}\n`);
    return EXIT_INTERNAL;
  }
  io.stderr(`${r.prefixed ? "" : PROGRAM_PREFIX}${r.lines.join("\n")}\n`);
  return r.exitCode;
}

/**
 * The REPL's text for an error from a session command or edit (`error: ` and the lines, the
 * issues without the program prefix), or undefined for a programmer's error.
 */
export function replErrorText(e: unknown): string | undefined {
  const r = renderError(e);
  if (r === undefined) return undefined;
  const lines = r.lines.map((l) =>
    l.startsWith(PROGRAM_PREFIX) ? l.slice(PROGRAM_PREFIX.length) : l,
  );
  return `error: ${lines.join("\n")}\n`;
}

export function withRenderInputErrors<T>(
  opts: ManifestOptions,
  cluster: Cluster,
  render: () => T,
): T {
  try {
    return render();
  } catch (e) {
    // The cluster is loaded already: rules text refused here is the rules written for it.
    if (e instanceof ValidationError && e.issues.every((i) => i.code === "syntax"))
      throw CliError.lines([
        "the rules kube-proxy would write for this input do not load (iptables-restore would refuse them):",
        ...issueLines(e.issues),
      ]);
    if (e instanceof Error && opts.validation === "warn" && cluster.warnings.length > 0)
      throw new CliError(
        `cannot render input the API server would refuse (see the warnings above; --validation warn keeps it): ${e.message}`,
      );
    throw e;
  }
}
