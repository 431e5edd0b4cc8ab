/**
 * A REPL session: the timeline of cluster snapshots (timeline.ts), the node settings the
 * session started with, and the packets traced so far. Each verb returns the text to print;
 * a refused edit throws `SessionError` and leaves the timeline as it was. File I/O here is the
 * session's own (save, apply -f, the editor's buffer, the snapshot file CLI lines read).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { makeCluster, type Cluster } from "../model/cluster.js";
import type { FeatureGates } from "../model/feature-gates.js";
import { formatIssue, inputIssue, ValidationError, type Issue } from "../model/issue.js";
import { readManifestSources } from "../model/load-files.js";
import type { PacketSpec } from "../netfilter/trace/index.js";
import { diffSnapshots, type DiffContext } from "./diff.js";
import type { NodeSettings } from "./diff-rules.js";
import { describeObject } from "./describe.js";
import {
  addEndpoint,
  deleteObjects,
  EDIT_FILE,
  EditError,
  removeEndpoint,
  setFields,
  setLabels,
} from "./edits.js";
import {
  findObject,
  keyOf,
  kindOf,
  objectsOf,
  objectsYaml,
  type SessionKind,
  type SessionObject,
} from "./objects.js";
import { rebuild, SESSION_FILE, type Edit } from "./rebuild.js";
import {
  checkpoint,
  commit,
  current,
  previous,
  redo,
  startTimeline,
  undo,
  type Timeline,
} from "./timeline.js";

/**
 * A session command refused: its usage, an object that is not there, an edit or apply the API
 * server would refuse (its issues). Bad input, as issues; `note` is a line the REPL prints after
 * them ("(nothing changed)").
 */
export class SessionError extends ValidationError {
  constructor(problem: string | readonly Issue[], note?: string) {
    super(typeof problem === "string" ? [inputIssue("invalid", problem)] : problem, note);
    this.name = "SessionError";
  }
}

/** The options the session started with (the same as every command's). */
export interface SessionOptions {
  readonly files: readonly string[];
  readonly nodeEnv?: string;
  readonly node?: string;
  readonly proxyConfig?: string;
  /** As typed (passed on to CLI lines) and parsed. */
  readonly featureGatesText?: string;
  readonly featureGates: FeatureGates;
}

export interface SessionDeps {
  /** The node and proxy settings for a snapshot (from --node-env/--node/--proxy-config). */
  readonly settings: (cluster: Cluster) => NodeSettings | { readonly error: string };
  readonly readStdin: () => string;
  /** Runs $EDITOR on a file and waits (the terminal is the editor's meanwhile). */
  readonly editFile?: (file: string) => void;
}

/** Positions inside the session's own YAML mean nothing to the user: they are dropped. */
function shownIssue(i: Issue): Issue {
  if (i.source?.file !== SESSION_FILE && i.source?.file !== EDIT_FILE) return i;
  return {
    code: i.code,
    severity: i.severity,
    message: i.message,
    path: i.path,
    ...(i.object !== undefined ? { object: i.object } : {}),
  };
}

export function defaultEditor(file: string): void {
  const editor = process.env["VISUAL"] ?? process.env["EDITOR"] ?? "vi";
  // The line editor keeps the terminal raw; the editor wants it as a shell would hand it over.
  const stdin = process.stdin;
  const wasRaw = stdin.isTTY && stdin.isRaw;
  if (wasRaw) stdin.setRawMode(false);
  try {
    const r = spawnSync(`${editor} "${file.replace(/"/g, '\\"')}"`, {
      shell: true,
      stdio: "inherit",
    });
    if (r.status !== 0)
      throw new SessionError(`editor "${editor}" exited with ${r.status ?? r.signal}`);
  } finally {
    if (wasRaw) stdin.setRawMode(true);
  }
}

export class Session {
  private timeline: Timeline;
  private readonly initial: Cluster;
  private readonly packets: PacketSpec[] = [];
  private dir: string | undefined;
  private written: Cluster | undefined;

  constructor(
    cluster: Cluster,
    readonly options: SessionOptions,
    private readonly deps: SessionDeps,
  ) {
    this.initial = cluster;
    this.timeline = startTimeline(cluster);
  }

  get cluster(): Cluster {
    return current(this.timeline).cluster;
  }

  get checkpointNames(): string[] {
    return Object.keys(this.timeline.checkpoints);
  }

  /** A file holding the current snapshot, for CLI lines (`-f FILE`). */
  snapshotFile(): string {
    this.dir ??= mkdtempSync(join(tmpdir(), "kube-netsim-repl-"));
    const file = join(this.dir, "session.yaml");
    if (this.written !== this.cluster) {
      writeFileSync(file, objectsYaml(objectsOf(this.cluster)));
      this.written = this.cluster;
    }
    return file;
  }

  close(): void {
    if (this.dir !== undefined) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }

  recordPacket(p: PacketSpec): void {
    this.packets.push(p);
  }

  private object(kindWord: string | undefined, ref: string | undefined): SessionObject {
    const kind = this.kind(kindWord);
    if (ref === undefined) throw new SessionError(`which ${kind}? give NAME or NAMESPACE/NAME`);
    const o = findObject(this.cluster, kind, ref);
    if (o === undefined) throw new SessionError(`${kind} "${ref}" not found`);
    return o;
  }

  private kind(word: string | undefined): SessionKind {
    if (word === undefined) throw new SessionError("which kind? e.g. svc, pods, netpol");
    const kind = kindOf(word);
    if (kind === undefined)
      throw new SessionError(
        `unknown kind "${word}" (svc, pods, eps, netpol, ns, nodes, anp, banp)`,
      );
    return kind;
  }

  private apply(edit: Edit, description: string): string {
    const r = rebuild(this.cluster, edit, this.options.featureGates);
    if (!r.ok) throw new SessionError(r.issues.map(shownIssue), "(nothing changed)");
    this.timeline = commit(this.timeline, r.cluster, description);
    const warnings = r.warnings.map((w) => `${formatIssue(shownIssue(w))}\n`).join("");
    return `${warnings}ok (${this.timeline.at}: ${description})\n`;
  }

  private edit(make: () => Edit, description: string): string {
    try {
      return this.apply(make(), description);
    } catch (e) {
      if (e instanceof EditError) throw new SessionError(e.issues);
      throw e;
    }
  }

  get(kindWord: string | undefined, ref: string | undefined, output: string | undefined): string {
    const kind = this.kind(kindWord);
    const list = ref === undefined ? objectsOf(this.cluster, kind) : [this.object(kindWord, ref)];
    if (output === "yaml") return list.map((o) => stringify(o.value)).join("---\n");
    if (output === "json")
      return `${JSON.stringify(list.length === 1 && ref !== undefined ? list[0]!.value : list.map((o) => o.value), null, 2)}\n`;
    if (output !== undefined) throw new SessionError(`-o: "${output}" is not yaml or json`);
    if (list.length === 0) return `no ${kind} objects\n`;
    return table(list.map((o) => summaryRow(o)));
  }

  describe(kindWord: string | undefined, ref: string | undefined): string {
    const o = this.object(kindWord, ref);
    return describeObject(this.cluster, o, this.deps.settings(this.cluster));
  }

  set(
    kindWord: string | undefined,
    ref: string | undefined,
    assignments: readonly string[],
    line: string,
  ): string {
    const o = this.object(kindWord, ref);
    return this.edit(() => setFields(o, assignments), line);
  }

  label(
    kindWord: string | undefined,
    ref: string | undefined,
    assignments: readonly string[],
    line: string,
  ): string {
    const o = this.object(kindWord, ref);
    return this.edit(() => setLabels(o, assignments), line);
  }

  endpoints(
    ref: string | undefined,
    verb: string | undefined,
    ip: string | undefined,
    opts: { node?: string; notReady: boolean },
    line: string,
  ): string {
    const svc = this.object("svc", ref);
    if (ip === undefined || (verb !== "add" && verb !== "remove"))
      throw new SessionError(
        "usage: endpoints SERVICE add IP [--node NODE] [--not-ready] | remove IP",
      );
    if (verb === "add")
      return this.edit(
        () =>
          addEndpoint(this.cluster, svc, {
            ip,
            ready: !opts.notReady,
            ...(opts.node !== undefined ? { nodeName: opts.node } : {}),
          }),
        line,
      );
    return this.edit(() => removeEndpoint(this.cluster, svc, ip), line);
  }

  /** `typed`: the text typed after an `apply -f -` line (the REPL's own input), read as `-`. */
  applyFiles(files: readonly string[], line: string, typed?: string): string {
    if (files.length === 0) throw new SessionError("usage: apply -f FILE|DIR|-");
    const readStdin = typed !== undefined ? (): string => typed : this.deps.readStdin;
    const { inputs, issues } = readManifestSources(files, readStdin);
    if (issues.length > 0) throw new SessionError(issues.map(shownIssue));
    if (inputs.length === 0) throw new SessionError(`no manifests in ${files.join(" ")}`);
    // One input per apply: positions stay those of each file when there is just one.
    const add =
      inputs.length === 1
        ? inputs[0]!
        : { file: files.join(","), text: inputs.map((i) => i.text).join("\n---\n") };
    return this.apply({ remove: [], add }, line);
  }

  delete(kindWord: string | undefined, ref: string | undefined, line: string): string {
    const o = this.object(kindWord, ref);
    return this.edit(() => deleteObjects(this.cluster, o), line);
  }

  editInEditor(kindWord: string | undefined, ref: string | undefined, line: string): string {
    const o = this.object(kindWord, ref);
    const editFile = this.deps.editFile ?? defaultEditor;
    this.dir ??= mkdtempSync(join(tmpdir(), "kube-netsim-repl-"));
    const file = join(this.dir, `${o.kind.toLowerCase()}-${o.name}.yaml`);
    const before = stringify(o.value);
    writeFileSync(file, before);
    editFile(file);
    const after = readFileSync(file, "utf8");
    rmSync(file, { force: true });
    if (after === before) return "edit cancelled, no changes made\n";
    return this.apply({ remove: [keyOf(o)], add: { file, text: after } }, line);
  }

  undo(): string {
    const t = undo(this.timeline);
    if (t === undefined) throw new SessionError("nothing to undo");
    const undone = current(this.timeline).description;
    this.timeline = t;
    return `undone: ${undone}\n`;
  }

  redo(): string {
    const t = redo(this.timeline);
    if (t === undefined) throw new SessionError("nothing to redo");
    this.timeline = t;
    return `redone: ${current(this.timeline).description}\n`;
  }

  history(): string {
    const names = Object.entries(this.timeline.checkpoints);
    return `${this.timeline.revisions
      .map((r, i) => {
        const marks = names
          .filter(([, c]) => c === r)
          .map(([n]) => ` [${n}]`)
          .join("");
        return `${i === this.timeline.at ? "*" : " "} ${i}: ${r.description}${marks}`;
      })
      .join("\n")}\n`;
  }

  checkpoint(name: string | undefined): string {
    if (name === undefined || name === "") throw new SessionError("usage: checkpoint NAME");
    this.timeline = checkpoint(this.timeline, name);
    return `checkpoint ${name} = ${this.timeline.at}: ${current(this.timeline).description}\n`;
  }

  private checkpointCluster(name: string): Cluster {
    const c = this.timeline.checkpoints[name];
    if (c === undefined)
      throw new SessionError(
        `no checkpoint "${name}"${this.checkpointNames.length > 0 ? ` (have: ${this.checkpointNames.join(", ")})` : ""}`,
      );
    return c.cluster;
  }

  reset(name: string | undefined, line: string): string {
    const target = name === undefined ? this.initial : this.checkpointCluster(name);
    this.timeline = commit(this.timeline, target, line);
    return `ok (${this.timeline.at}: ${line})\n`;
  }

  diff(name: string | undefined): string {
    const before =
      name !== undefined ? this.checkpointCluster(name) : previous(this.timeline)?.cluster;
    if (before === undefined) return "no earlier state to compare with (make an edit first)\n";
    const ctx: DiffContext = { settings: this.deps.settings, packets: this.packets };
    return diffSnapshots(before, this.cluster, ctx);
  }

  save(file: string | undefined): string {
    if (file === undefined) throw new SessionError("usage: save FILE");
    const objects = objectsOf(this.cluster);
    writeFileSync(file, objectsYaml(objects));
    return `wrote ${objects.length} objects to ${file}\n`;
  }

  describeSession(): string {
    const o = this.options;
    return [
      `sources: ${o.files.join(" ") || "(none)"}`,
      `node environment: ${o.nodeEnv ?? "(none)"}${o.node !== undefined ? `  node: ${o.node}` : ""}`,
      `proxy config: ${o.proxyConfig ?? "(kube-proxy defaults)"}`,
      `feature gates: ${o.featureGatesText ?? "(defaults)"}`,
      `state: ${this.timeline.at}: ${current(this.timeline).description}`,
      "",
    ].join("\n");
  }
}

export function emptyCluster(): Cluster {
  return makeCluster({});
}

function summaryRow(o: SessionObject): string[] {
  const v = o.value as {
    spec?: {
      type?: string;
      clusterIP?: string;
      ports?: { port: number; protocol?: string }[];
      nodeName?: string;
    };
    status?: { podIP?: string };
    endpoints?: unknown[];
  };
  const base = [o.namespace ?? "", o.name];
  switch (o.kind) {
    case "Service":
      return [
        ...base,
        v.spec?.type ?? "ClusterIP",
        v.spec?.clusterIP ?? "",
        (v.spec?.ports ?? []).map((p) => `${p.port}/${p.protocol ?? "TCP"}`).join(","),
      ];
    case "Pod":
      return [...base, v.status?.podIP ?? "", v.spec?.nodeName ?? ""];
    case "EndpointSlice":
      return [...base, `${(v.endpoints ?? []).length} endpoints`];
    default:
      return base;
  }
}

function table(rows: readonly string[][]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
        .join("  ")
        .trimEnd(),
    )
    .map((l) => `${l}\n`)
    .join("");
}
