/**
 * The REPL's own commands as data: usage, help, and what each word position holds (which the
 * completer and `help CMD` read). The CLI's commands join them at run time (see cli-spec.ts).
 */

/** What a positional word is, for completion. */
export type ArgKind =
  | { readonly kind: "object-kind" }
  /** An object of the kind named `at` words earlier (or of a fixed kind). */
  | { readonly kind: "object"; readonly of: "previous" | "Service" }
  | { readonly kind: "field" }
  | { readonly kind: "file" }
  | { readonly kind: "checkpoint" }
  | { readonly kind: "command" }
  | { readonly kind: "words"; readonly words: readonly string[] };

export interface SessionCommand {
  readonly name: string;
  readonly usage: string;
  readonly summary: string;
  readonly args: readonly ArgKind[];
  readonly options: readonly string[];
  /** Options whose value is a file path. */
  readonly fileOptions?: readonly string[];
  /** More for `help CMD`. */
  readonly detail?: string;
}

const KIND: ArgKind = { kind: "object-kind" };
const OBJECT: ArgKind = { kind: "object", of: "previous" };

export const SESSION_COMMANDS: readonly SessionCommand[] = [
  {
    name: "get",
    usage: "get KIND [NAME] [-o yaml|json]",
    summary: "list objects of a kind (svc, pods, netpol, eps, ns, nodes, anp, banp), or print one",
    args: [KIND, OBJECT],
    options: ["-o", "--output"],
  },
  {
    name: "describe",
    usage: "describe KIND NAME",
    summary: "an object; for a Service its ports, endpoints and the rules kube-proxy writes for it",
    args: [KIND, OBJECT],
    options: [],
  },
  {
    name: "set",
    usage: "set KIND NAME field.path=value...",
    summary:
      "change fields (value is YAML; field=null removes it), e.g. set svc default/web spec.externalTrafficPolicy=Local",
    args: [KIND, OBJECT, { kind: "field" }],
    options: [],
  },
  {
    name: "label",
    usage: "label KIND NAME key=value... | key-",
    summary: "set or remove labels",
    args: [KIND, OBJECT],
    options: [],
  },
  {
    name: "endpoints",
    usage: "endpoints SERVICE add IP [--node NODE] [--not-ready] | endpoints SERVICE remove IP",
    summary: "add an endpoint to a Service's EndpointSlice, or remove one",
    args: [
      { kind: "object", of: "Service" },
      { kind: "words", words: ["add", "remove"] },
    ],
    options: ["--node", "--not-ready"],
  },
  {
    name: "apply",
    usage: "apply -f FILE|DIR|-",
    summary: "add objects, replacing those with the same kind, namespace and name",
    args: [],
    options: ["-f", "--filename"],
    fileOptions: ["-f", "--filename"],
    detail:
      "With -f - the YAML is typed on the following lines (prompt ...>), ending at a line holding\n" +
      "only . (or Ctrl-D, which also ends the session); it is checked like a file, positions given\n" +
      "as <stdin>:LINE:COL of the typed text, and an invalid document changes nothing.",
  },
  {
    name: "delete",
    usage: "delete KIND NAME",
    summary: "remove an object (a Service takes its EndpointSlices with it)",
    args: [KIND, OBJECT],
    options: [],
  },
  {
    name: "edit",
    usage: "edit KIND NAME",
    summary: "open the object's YAML in $EDITOR (or $VISUAL, else vi); validated when you save",
    args: [KIND, OBJECT],
    options: [],
  },
  { name: "undo", usage: "undo", summary: "go back one edit", args: [], options: [] },
  { name: "redo", usage: "redo", summary: "redo an undone edit", args: [], options: [] },
  { name: "history", usage: "history", summary: "the session's edits", args: [], options: [] },
  {
    name: "checkpoint",
    usage: "checkpoint NAME",
    summary: "name the current state (for diff NAME and reset NAME)",
    args: [{ kind: "checkpoint" }],
    options: [],
  },
  {
    name: "reset",
    usage: "reset [CHECKPOINT]",
    summary: "back to the loaded state (or a checkpoint), as a new edit that undo reverts",
    args: [{ kind: "checkpoint" }],
    options: [],
  },
  {
    name: "diff",
    usage: "diff [CHECKPOINT]",
    summary:
      "objects, rendered rules and verdicts: now against the previous state (or a checkpoint)",
    args: [{ kind: "checkpoint" }],
    options: [],
  },
  {
    name: "save",
    usage: "save FILE",
    summary: "write the current objects as YAML that -f loads back",
    args: [{ kind: "file" }],
    options: [],
  },
  {
    name: "session",
    usage: "session",
    summary: "the session's sources, node and proxy settings",
    args: [],
    options: [],
  },
  {
    name: "help",
    usage: "help [COMMAND]",
    summary: "this list, or one command's help",
    args: [{ kind: "command" }],
    options: [],
  },
];

export function sessionCommand(name: string): SessionCommand | undefined {
  return SESSION_COMMANDS.find((c) => c.name === name);
}

export function formatSessionHelp(c: SessionCommand): string {
  return `Usage: ${c.usage}\n\n${c.summary}\n${c.detail !== undefined ? `\n${c.detail}\n` : ""}`;
}
