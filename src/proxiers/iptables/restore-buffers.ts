/**
 * The four sections kube-proxy assembles one restore input from: filter chains, filter rules,
 * nat chains, nat rules. Rules are words joined by single spaces, exactly as written.
 */

export class RestoreBuffers {
  readonly filterChains: string[] = [];
  readonly filterRules: string[] = [];
  readonly natChains: string[] = [];
  readonly natRules: string[] = [];

  static chainLine(name: string): string {
    return `:${name} - [0:0]`;
  }

  private joined: JoinedSections | undefined;

  /** Each section as newline-terminated text (computed once; the buffers are final by then). */
  sections(): JoinedSections {
    this.joined ??= {
      filterChains: joinLines(this.filterChains),
      filterRules: joinLines(this.filterRules),
      natChains: joinLines(this.natChains),
      natRules: joinLines(this.natRules),
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

function joinLines(lines: readonly string[]): string {
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

/** kube-proxy quotes a comment exactly when it contains a space. */
export function quoteComment(text: string): string {
  return text.includes(" ") ? `"${text}"` : text;
}

/** `-m comment --comment TEXT` */
export function commentArgs(text: string): string {
  return `-m comment --comment ${quoteComment(text)}`;
}
