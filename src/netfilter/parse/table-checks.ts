/**
 * The checks iptables-restore makes when a table is committed, each on its own, each returning
 * issues: how deep chains nest (nesting.ts), which targets the hooks that reach a chain allow,
 * and whether every jump names an existing user chain. `commitIssues` runs them in the kernel's
 * order: the hook check only when nesting is fine (it walks the jumps).
 */
import type { Issue } from "../../issue/issue.js";
import { BUILTIN_CHAINS } from "../model.js";
import { targetExtension, UNMODELLED_TARGETS } from "../registry.js";
import type { ChainBuilder } from "./chain-builder.js";
import { lineIssue } from "./errors.js";
import { MAX_JUMPS, nestsTooDeep } from "./nesting.js";
import { jumpedTo, jumpOf, type TableBuilder } from "./table-builder.js";

/** Where the table is committed: the file, and the COMMIT line (for rules without a line). */
export interface CommitAt {
  readonly file: string;
  readonly line: number;
}

export function commitIssues(t: TableBuilder, at: CommitAt): Issue[] {
  const nesting = nestingIssue(t, at);
  const issues = nesting !== undefined ? [nesting] : hookIssues(t, at);
  // Otherwise every jump was checked as it was read (see TableBuilder.unresolved).
  if (t.unresolved) issues.push(...jumpIssues(t, at));
  return issues;
}

/**
 * Targets used in a chain that a built-in hook reaches (through -j and -g) where the target's
 * extension does not allow that hook, as the kernel validates.
 */
export function hookIssues(t: TableBuilder, at: CommitAt): Issue[] {
  // Bit k of a builder's `reach` is hook k of the table's built-in chains.
  const hooksOf = BUILTIN_CHAINS[t.name];
  // Recursion is shallow: nestingIssue has refused paths of more than MAX_JUMPS jumps.
  const visit = (b: ChainBuilder, bit: number): void => {
    if ((b.reach & bit) !== 0) return;
    b.reach |= bit;
    for (const r of b.rules) {
      const next = jumpedTo(t, r);
      if (next !== undefined) visit(next, bit);
    }
  };
  for (const b of t.chains.values()) b.reach = 0;
  hooksOf.forEach((hook, k) => visit(t.chains.get(hook) as ChainBuilder, 1 << k));
  const issues: Issue[] = [];
  for (const b of t.chains.values()) {
    const bits = b.reach;
    if (bits === 0) continue;
    for (const r of b.rules) {
      const kind = r.target?.kind;
      if (
        kind === undefined ||
        kind === "jump" ||
        kind === "ACCEPT" ||
        kind === "DROP" ||
        kind === "RETURN"
      )
        continue;
      const ext = targetExtension(kind);
      const allowed = ext?.hooks;
      if (ext === undefined || allowed === undefined) continue;
      const bad = hooksOf.find((h, k) => (bits & (1 << k)) !== 0 && !allowed.includes(h));
      if (bad !== undefined)
        issues.push(
          lineIssue(
            at.file,
            r.line ?? at.line,
            `target "${ext.name}" is not valid in the ${bad} hook (only ${allowed.join(", ")})`,
          ),
        );
    }
  }
  return issues;
}

/** The chains `chain`'s rules up to line `upTo` jump to (built-in ones aside: an error). */
function jumpsUpTo(t: TableBuilder, upTo: number) {
  return (chain: ChainBuilder, visit: (to: ChainBuilder) => void): void => {
    for (const r of chain.rules) {
      if ((r.line ?? 0) > upTo) continue;
      const to = jumpedTo(t, r);
      if (to !== undefined && !to.builtin) visit(to);
    }
  };
}

/** An issue if a path from a built-in chain nests too deep (see nesting.ts). */
export function nestingIssue(t: TableBuilder, at: CommitAt): Issue | undefined {
  const bases = [...t.chains.values()].filter((b) => b.builtin);
  if (!nestsTooDeep(bases, jumpsUpTo(t, Infinity))) return undefined;
  // iptables-restore names the first rule, in line order, after which some path is too deep.
  const jumps: { line: number; chain: string; to: string }[] = [];
  for (const b of t.chains.values())
    for (const r of b.rules) {
      const to = jumpOf(r);
      if (to !== undefined) jumps.push({ line: r.line ?? 0, chain: b.name, to });
    }
  jumps.sort((a, b) => a.line - b.line);
  let lo = 0;
  let hi = jumps.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (nestsTooDeep(bases, jumpsUpTo(t, (jumps[mid] as (typeof jumps)[0]).line))) hi = mid;
    else lo = mid + 1;
  }
  const j = jumps[lo] as (typeof jumps)[0];
  return lineIssue(
    at.file,
    j.line,
    `rule in chain "${j.chain}": the jump to "${j.to}" nests chains deeper than the kernel allows (${MAX_JUMPS} jumps from a built-in chain) or closes a loop (iptables-restore: "Too many links")`,
  );
}

/** Jumps to a chain the committed table does not have, or to a built-in chain. */
export function jumpIssues(t: TableBuilder, at: CommitAt): Issue[] {
  const issues: Issue[] = [];
  for (const c of t.chains.values()) {
    for (const r of c.rules) {
      const to = jumpOf(r);
      if (to === undefined) continue;
      const target = t.chains.get(to);
      const line = r.line ?? at.line;
      if (target === undefined)
        issues.push(
          lineIssue(
            at.file,
            line,
            UNMODELLED_TARGETS.has(to)
              ? `target "${to}" is not modelled by kube-netsim`
              : `chain "${to}" does not exist (jump from chain "${c.name}")`,
          ),
        );
      else if (target.builtin)
        issues.push(lineIssue(at.file, line, `cannot jump to built-in chain "${to}"`));
    }
  }
  return issues;
}
