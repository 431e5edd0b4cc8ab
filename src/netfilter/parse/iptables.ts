/**
 * The iptables-save / iptables-restore text parser.
 *
 * It reads both what `iptables-save` prints and what `iptables-restore` accepts (what
 * kube-proxy writes): `*table`, `:CHAIN POLICY [p:b]`, `[p:b] -A CHAIN ...`, `-I CHAIN [N]`,
 * `-N`, `-X`, `-F`, `-P`, `COMMIT`, `#` comments. The result is the state the kernel would hold
 * after `iptables-restore` of the text into empty tables, with these iptables-nft v1.8.9 rules
 * (checked against the real tool):
 * - a second `*table` section replaces the table; declaring an existing user chain again
 *   flushes it; declaring a built-in chain again only sets its policy;
 * - `-N` of an existing chain, `-A`/`-I`/`-F`/`-X` of a missing one, `-X` of a referenced or
 *   built-in chain, a jump to a chain missing at COMMIT, a path of more than 15 nested jumps
 *   from a built-in chain (so any loop one reaches; see nesting.ts), a line outside
 *   `*table ... COMMIT`, and a missing final COMMIT are errors.
 * Every problem is collected with its line; the parse fails with one `IptablesParseError` (a
 * `ValidationError`). The pieces: restore-reader.ts reads the lines into tables (chain-line.ts
 * the chain declarations, rule.ts and shapes.ts the rules), table-checks.ts checks each table
 * at COMMIT, table-builder.ts holds a table while it is read.
 *
 * The `upstream-test` dialect reads fixtures written for kube-proxy's fake iptables
 * (`ParseIPTablesDump` in k8s.io/kubernetes pkg/util/iptables/testing), which are not always valid
 * iptables-restore input. It accepts exactly two things the strict parser rejects:
 * - a built-in chain declared with policy `-` (`:INPUT - [0:0]`; the fake declares every chain
 *   that way): the chain keeps its current policy (ACCEPT unless set);
 * - bare words right after a `--comment VALUE` (`--comment kubernetes service portals`): they are
 *   skipped, so the comment is the first word, as in the fake. `Rule.written` keeps every word.
 * Everything else is checked as in the default `iptables-restore` dialect.
 */
import type { IPFamily } from "../../net/index.js";
import type { RuleSet } from "../model.js";
import { IptablesParseError, lineIssue } from "./errors.js";
import { RestoreReader } from "./restore-reader.js";

export interface ParseIptablesOptions {
  /** Named in error messages. Default `<input>`. */
  readonly file?: string;
  /** Default: IPv6 when the text's addresses say so, else IPv4. */
  readonly family?: IPFamily;
  /** Stop after this many issues. Default 50. */
  readonly maxIssues?: number;
  /**
   * `iptables-restore` (default): what the real tool accepts. `upstream-test`: also what
   * kube-proxy's test fake accepts in its fixtures (see the file comment for the exact list).
   */
  readonly dialect?: IptablesDialect;
  /**
   * Read rules of a kind already seen by their shape (see shapes.ts): the same result, faster
   * on large dumps. Default true; false reads every rule word by word (the reference the
   * shortcut is tested against).
   */
  readonly shapes?: boolean;
}

export type IptablesDialect = "iptables-restore" | "upstream-test";

/** Guesses the family from the first addresses in the text (cheap: looks at `-s`/`-d` values). */
export function sniffFamily(text: string): IPFamily {
  const re = / (?:-s|-d|--to-destination|--to-source) \[?([0-9a-fA-F:.]+)/g;
  for (let k = 0; k < 50; k++) {
    const m = re.exec(text);
    if (m === null) break;
    const v = m[1] as string;
    if (v.includes(":") && !/^[0-9.]+:/.test(v)) return "IPv6";
    if (/^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+/.test(v)) return "IPv4";
  }
  return "IPv4";
}

export function parseIptables(text: string, opts: ParseIptablesOptions = {}): RuleSet {
  const file = opts.file ?? "<input>";
  // iptables-restore refuses it too ("line 1 failed"); named here rather than as a bad line.
  if (text.charCodeAt(0) === 0xfeff)
    throw new IptablesParseError([
      lineIssue(
        file,
        1,
        "the input starts with a UTF-8 byte order mark (U+FEFF), which iptables-restore refuses: save the file without it",
      ),
    ]);
  const family = opts.family ?? sniffFamily(text);
  const maxIssues = opts.maxIssues ?? 50;
  const reader = new RestoreReader({
    file,
    family,
    upstreamTest: opts.dialect === "upstream-test",
    shapes: opts.shapes !== false,
  });
  const issues = reader.issues;
  let lineNo = 0;
  let pos = 0;
  const len = text.length;
  while (pos < len && issues.length < maxIssues) {
    let end = text.indexOf("\n", pos);
    if (end === -1) end = len;
    let line = text.slice(pos, end);
    pos = end + 1;
    lineNo++;
    // iptables-restore reads a line with fgets and then works on it as a C string: a NUL byte
    // ends the line there, and what follows it (up to the newline) is ignored. A line that is
    // left blank that way is a rule line without a command (a blank line is only skipped when it
    // is exactly "\n"); checked against iptables-restore in test/netfilter/parse/nul.test.ts.
    const nul = line.indexOf("\0");
    if (nul !== -1 && line.slice(0, nul).trim() === "") {
      reader.issueAt(
        lineNo,
        `a NUL byte at column ${nul + 1} ends the line, leaving no command: iptables-restore refuses it ("no command specified")`,
      );
      continue;
    }
    if (nul !== -1) line = line.slice(0, nul);
    if (line.endsWith("\r")) line = line.slice(0, -1);
    reader.readLine(line, lineNo);
  }
  const open = reader.openTable;
  if (open !== undefined && issues.length < maxIssues)
    reader.issueAt(lineNo + 1, `COMMIT expected for table "${open}"`);
  if (issues.length > 0) throw new IptablesParseError(issues);
  return { family, tables: reader.tables() };
}

/** The name in interfaces.md. */
export const parseIptablesSave = parseIptables;
