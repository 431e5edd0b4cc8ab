/**
 * The four sections kube-proxy assembles one restore input from: filter chains, filter rules,
 * nat chains, nat rules. Rules are words joined by single spaces, exactly as written.
 *
 * A large cluster writes hundreds of thousands of lines. Kept one string each until the end,
 * their concatenation trees outlived the young generation and the final join walked millions
 * of nodes; so a section appends lines to a pending string and, every FLUSH_AT characters,
 * makes V8 copy it into one flat chunk (reading a character of a concatenation does): the
 * concatenation nodes die young, and the section is joined from a few thousand flat chunks.
 */

/** UTF-16 units per flat chunk; measured: 8-32 Ki beat both smaller and larger chunks. */
const FLUSH_AT = 16 * 1024;

/** One section: newline-terminated lines, appended in order. */
export class RestoreSection {
  /** Flat chunks, each a run of whole lines. */
  private readonly chunks: string[] = [];
  private pending = "";
  private lineCount = 0;

  /** Appends one line (without its newline). */
  push(line: string): void {
    this.pending += line;
    this.pending += "\n";
    this.lineCount++;
    if (this.pending.length >= FLUSH_AT) this.flush();
  }

  /** Lines written so far. */
  get length(): number {
    return this.lineCount;
  }

  /** The section's text, every line newline-terminated ("" when empty). */
  text(): string {
    this.flush();
    return this.chunks.length === 1 ? (this.chunks[0] as string) : this.chunks.join("");
  }

  /** Whether `line` is one of the section's lines. */
  includes(line: string): boolean {
    this.flush();
    // Chunks end at line ends, so a line never straddles two.
    const first = `${line}\n`;
    const inner = `\n${line}\n`;
    return this.chunks.some((c) => c.startsWith(first) || c.includes(inner));
  }

  private flush(): void {
    const s = this.pending;
    if (s.length === 0) return;
    this.pending = "";
    s.charCodeAt(0); // flattens the concatenation in place
    this.chunks.push(s);
  }
}

export class RestoreBuffers {
  readonly filterChains = new RestoreSection();
  readonly filterRules = new RestoreSection();
  readonly natChains = new RestoreSection();
  readonly natRules = new RestoreSection();

  static chainLine(name: string): string {
    return `:${name} - [0:0]`;
  }

  private joined: JoinedSections | undefined;

  /** Each section as newline-terminated text (computed once; the buffers are final by then). */
  sections(): JoinedSections {
    this.joined ??= {
      filterChains: this.filterChains.text(),
      filterRules: this.filterRules.text(),
      natChains: this.natChains.text(),
      natRules: this.natRules.text(),
    };
    return this.joined;
  }

  /** The iptables-restore input: `*filter` … `COMMIT`, then `*nat` … `COMMIT`. */
  text(): string {
    const s = this.sections();
    return `*filter\n${s.filterChains}${s.filterRules}COMMIT\n*nat\n${s.natChains}${s.natRules}COMMIT\n`;
  }
}

export interface JoinedSections {
  readonly filterChains: string;
  readonly filterRules: string;
  readonly natChains: string;
  readonly natRules: string;
}

/** kube-proxy quotes a comment exactly when it contains a space. */
export function quoteComment(text: string): string {
  return text.includes(" ") ? `"${text}"` : text;
}

/** `-m comment --comment TEXT` */
export function commentArgs(text: string): string {
  return `-m comment --comment ${quoteComment(text)}`;
}
