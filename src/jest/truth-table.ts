/**
 * `toMatchTruthTable`: the cluster's policy verdicts against a grid written as the upstream
 * e2e suite prints its TruthTable (`-` then the destination pods, one row per source pod,
 * `.` = allowed, `X` = blocked; tabs or spaces). Several grids may follow each other, each
 * headed `PROTOCOL/PORT:` as `kube-netsim policy matrix --output text` prints them; a grid with
 * no heading is for `options.protocol`/`options.port` (default TCP/80, upstream's default probe).
 * On failure it prints the expected and the observed grid and a comparison grid (`.` agree,
 * `X` differ), like upstream's ValidateOrFail.
 */
import type { Cluster } from "../model/cluster.js";
import { parseProtocol, type Protocol } from "../net/port.js";
import type { CompiledPolicies } from "../policy/compiled.js";
import { computePolicyMatrix, matrixVerdict } from "../policy/matrix.js";
import {
  inputFailure,
  isPolicySubject,
  wrongReceived,
  type MatcherContextLike,
  type MatcherResult,
} from "./context.js";
import { inputIssue, ValidationError } from "../issue/validation-error.js";

export interface TruthTableOptions {
  readonly port?: number;
  readonly protocol?: string;
}

export interface TruthGrid {
  readonly protocol: Protocol;
  readonly port: number;
  /** Destination pods (`ns/pod`), in column order. */
  readonly to: readonly string[];
  /** Source pods (`ns/pod`), in row order. */
  readonly from: readonly string[];
  /** `cells[i][j]`: from[i] may connect to to[j]. */
  readonly cells: readonly (readonly boolean[])[];
}

/** A truth table that does not read (`syntax`); the message names its line. */
export class TruthTableSyntaxError extends ValidationError {
  constructor(line: number, message: string) {
    super([inputIssue("syntax", `truth table line ${line}: ${message}`)]);
    this.name = "TruthTableSyntaxError";
  }
}

const PROBE_HEADING = /^([A-Za-z]+)\/(\d+):$/;

/** Reads one or more grids. Throws TruthTableSyntaxError naming the line. */
export function parseTruthTable(text: string, options: TruthTableOptions = {}): TruthGrid[] {
  const grids: TruthGrid[] = [];
  const defProtocol = parseProtocol(options.protocol ?? "TCP");
  if (defProtocol === undefined)
    throw new TruthTableSyntaxError(
      0,
      `protocol "${String(options.protocol)}": supported values: "TCP", "UDP", "SCTP"`,
    );
  let probe: { protocol: Protocol; port: number } = {
    protocol: defProtocol,
    port: options.port ?? 80,
  };
  let current: { to: string[]; from: string[]; cells: boolean[][] } | undefined;
  const finish = (): void => {
    if (current !== undefined) grids.push({ ...probe, ...current });
    current = undefined;
  };
  text.split("\n").forEach((raw, i) => {
    const line = i + 1;
    const words = raw
      .trim()
      .split(/\s+/)
      .filter((w) => w !== "");
    if (words.length === 0) return finish();
    const heading = words.length === 1 ? PROBE_HEADING.exec(words[0] as string) : null;
    if (heading !== null) {
      finish();
      const protocol = parseProtocol(heading[1] as string);
      if (protocol === undefined)
        throw new TruthTableSyntaxError(line, `unknown protocol "${heading[1]}"`);
      probe = { protocol, port: Number(heading[2]) };
      return;
    }
    if (words[0] === "-") {
      finish();
      current = { to: words.slice(1), from: [], cells: [] };
      if (current.to.length === 0)
        throw new TruthTableSyntaxError(line, "a header `-` with no destination pods");
      return;
    }
    if (current === undefined)
      throw new TruthTableSyntaxError(
        line,
        "expected a header line starting with `-` before the rows",
      );
    const [from, ...marks] = words as [string, ...string[]];
    if (marks.length !== current.to.length)
      throw new TruthTableSyntaxError(
        line,
        `row ${from} has ${marks.length} cells, the header names ${current.to.length} pods`,
      );
    const row = marks.map((m) => {
      if (m === ".") return true;
      if (m === "X" || m === "x") return false;
      throw new TruthTableSyntaxError(line, `cell "${m}": expected "." (allowed) or "X" (blocked)`);
    });
    current.from.push(from);
    current.cells.push(row);
  });
  finish();
  if (grids.length === 0)
    throw new TruthTableSyntaxError(
      1,
      "no grid (a header line starting with `-`, then one row per pod)",
    );
  return grids;
}

export function formatTruthGrid(g: TruthGrid): string {
  const lines = [`${g.protocol}/${g.port}:`, ["-", ...g.to].join("\t")];
  g.from.forEach((f, i) =>
    lines.push([f, ...(g.cells[i] ?? []).map((c) => (c ? "." : "X"))].join("\t")),
  );
  return lines.join("\n");
}

/** The observed grid over the same pods and probe as `expected`. */
export function observeTruthGrid(
  cluster: Cluster | CompiledPolicies,
  expected: TruthGrid,
): TruthGrid {
  const m = computePolicyMatrix(cluster, {
    ports: [expected.port],
    protocols: [expected.protocol],
  });
  const verdict = (from: string, to: string): boolean => {
    const v = matrixVerdict(m, from, to, expected.port, expected.protocol);
    if (v === "unknown")
      throw new ValidationError([
        inputIssue(
          "invalid",
          `${from} -> ${to}: the verdict depends on unresolved domainNames (pass a DNS map to the policy options)`,
        ),
      ]);
    if (v !== undefined) return v;
    const unknown = m.pods.includes(from) ? to : from;
    throw new ValidationError([
      inputIssue("not-found", `pod ${unknown} is not in the cluster (pods: ${m.pods.join(", ")})`),
    ]);
  };
  const cells = expected.from.map((f) => expected.to.map((t) => verdict(f, t)));
  return { ...expected, cells };
}

function comparisonGrid(a: TruthGrid, b: TruthGrid): TruthGrid {
  return { ...a, cells: a.cells.map((row, i) => row.map((c, j) => c === b.cells[i]?.[j])) };
}

export function toMatchTruthTable(
  this: MatcherContextLike,
  received: unknown,
  grid: string,
  options?: TruthTableOptions,
): MatcherResult {
  if (!isPolicySubject(received))
    return wrongReceived("toMatchTruthTable", "a Cluster (loadCluster or cluster())", received);
  let pairs: { expected: TruthGrid; observed: TruthGrid }[];
  try {
    pairs = parseTruthTable(grid, options).map((expected) => ({
      expected,
      observed: observeTruthGrid(received, expected),
    }));
  } catch (err) {
    return inputFailure("toMatchTruthTable", err);
  }
  const differing = pairs.filter((p) =>
    p.expected.cells.some((row, i) => row.some((c, j) => c !== p.observed.cells[i]?.[j])),
  );
  const pass = differing.length === 0;
  return {
    pass,
    message: () =>
      pass
        ? `expected the truth table not to match, but every cell agrees:\n\n${pairs.map((p) => formatTruthGrid(p.observed)).join("\n\n")}`
        : differing
            .map((p) => {
              const wrong = p.expected.cells.flatMap((row, i) =>
                row.flatMap((c, j) =>
                  c === p.observed.cells[i]?.[j]
                    ? []
                    : [
                        `  ${p.expected.from[i]} -> ${p.expected.to[j]}: expected ${c ? "allowed" : "blocked"}, observed ${c ? "blocked" : "allowed"}`,
                      ],
                ),
              );
              return [
                `expected:\n${formatTruthGrid(p.expected)}`,
                `observed:\n${formatTruthGrid(p.observed)}`,
                `comparison (. agree, X differ):\n${formatTruthGrid(comparisonGrid(p.expected, p.observed))}`,
                `${wrong.length} cell(s) differ:\n${wrong.join("\n")}`,
              ].join("\n\n");
            })
            .join("\n\n"),
  };
}
