/**
 * The four sections kube-proxy assembles one restore input from: filter chains, filter rules,
 * nat chains, nat rules. Rules are words joined by single spaces, exactly as written.
 *
 * A large cluster writes hundreds of thousands of lines. Keeping each line as its own string
 * until the end left millions of short-lived concatenation nodes alive long enough to reach the
 * old generation, and the final join then walked them all; so a section batches lines into a
 * small pending string and copies it out as UTF-8 bytes every few kilobytes, and each section
 * is decoded once, flat, and shared by the restore text and the node state.
 */

/** Pending text is copied out once it reaches this many UTF-16 units. */
const FLUSH_AT = 16 * 1024;

/** One section: newline-terminated lines, appended in order. */
export class RestoreSection {
  private bytes: Buffer = Buffer.allocUnsafe(64 * 1024);
  private used = 0;
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

  /** The section as UTF-8 bytes (a view, valid until the next push). */
  utf8(): Buffer {
    this.flush();
    return this.bytes.subarray(0, this.used);
  }

  /** The section's text, every line newline-terminated ("" when empty). */
  text(): string {
    return this.utf8().toString("utf8");
  }

  /** Whether `line` is one of the section's lines. */
  includes(line: string): boolean {
    const bytes = this.utf8();
    const first = Buffer.from(`${line}\n`, "utf8");
    return bytes.subarray(0, first.length).equals(first) || bytes.includes(`\n${line}\n`);
  }

  private flush(): void {
    const s = this.pending;
    if (s.length === 0) return;
    this.pending = "";
    // A UTF-16 unit never takes more than 3 UTF-8 bytes.
    const need = this.used + s.length * 3;
    if (need > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, this.bytes.length * 2));
      this.bytes.copy(grown, 0, 0, this.used);
      this.bytes = grown;
    }
    this.used += this.bytes.write(s, this.used, "utf8");
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
