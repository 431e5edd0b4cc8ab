/**
 * Long options cut short. iptables reads a rule's words with getopt_long, which takes any
 * unambiguous start of a long option for the option (`--dp 80` is `--dport 80`, `--sou` is
 * `--source`, `--to` is DNAT's `--to-destination`; checked on the kernel). The options it
 * knows are iptables' own and those of the modules loaded so far, and of the target once
 * `-j` is read; only when none fits does iptables load the `-p` protocol's match and try again.
 * A start shared by two different options is ambiguous (`--d` with `-p tcp`: `--destination`,
 * `--dport`), while aliases of one option are one option (`--destination-p`).
 */

/** What an extension exposes: its options and their aliases. */
export interface OptionOwner {
  readonly options: Readonly<Record<string, unknown>>;
  readonly aliases?: Readonly<Record<string, string>>;
}

/** iptables' own long options (iptables 1.8.9), each with the option it stands for. */
const CORE: ReadonlyMap<string, string> = new Map([
  ["--append", "-A"],
  ["--check", "-C"],
  ["--delete", "-D"],
  ["--delete-chain", "-X"],
  ["--destination", "--destination"],
  ["--dst", "--destination"],
  ["--exact", "-x"],
  ["--flush", "-F"],
  ["--fragment", "--fragment"],
  ["--goto", "--goto"],
  ["--help", "-h"],
  ["--in-interface", "--in-interface"],
  ["--insert", "-I"],
  ["--ipv4", "-4"],
  ["--ipv6", "-6"],
  ["--jump", "--jump"],
  ["--line-numbers", "--line-numbers"],
  ["--list", "-L"],
  ["--list-rules", "-S"],
  ["--match", "--match"],
  ["--modprobe", "--modprobe"],
  ["--new-chain", "-N"],
  ["--numeric", "-n"],
  ["--out-interface", "--out-interface"],
  ["--policy", "-P"],
  ["--protocol", "--protocol"],
  ["--rename-chain", "-E"],
  ["--replace", "-R"],
  ["--set-counters", "--set-counters"],
  ["--source", "--source"],
  ["--src", "--source"],
  ["--table", "-t"],
  ["--verbose", "-v"],
  ["--version", "-V"],
  ["--wait", "-w"],
  ["--wait-interval", "-W"],
  ["--zero", "-Z"],
]);

/** `expandAbbreviation`'s answer for a start of two different options. */
export const AMBIGUOUS: unique symbol = Symbol("ambiguous");

/** Whether `word` is an option of iptables itself, spelt out. */
export function isCoreOption(word: string): boolean {
  return CORE.has(word);
}

/**
 * The option `word` (a `--` word that is no option as written) stands for among iptables' own
 * and `owners`' (undefined ones skipped), as the option's own spelling; AMBIGUOUS if it starts
 * two different options; undefined if it starts none.
 */
export function expandAbbreviation(
  word: string,
  owners: readonly (OptionOwner | undefined)[],
): string | typeof AMBIGUOUS | undefined {
  let found: string | undefined;
  let identity: string | undefined;
  const consider = (name: string, key: string, spelling: string): boolean => {
    if (!name.startsWith(word)) return true;
    if (identity !== undefined && identity !== key) return false;
    identity = key;
    found = spelling;
    return true;
  };
  for (const [name, stands] of CORE) if (!consider(name, `core${stands}`, stands)) return AMBIGUOUS;
  for (let k = 0; k < owners.length; k++) {
    const o = owners[k];
    if (o === undefined) continue;
    for (const name of Object.keys(o.options))
      if (!consider(name, `${k}${name}`, name)) return AMBIGUOUS;
    for (const [alias, name] of Object.entries(o.aliases ?? {}))
      if (!consider(alias, `${k}${name}`, name)) return AMBIGUOUS;
  }
  return found;
}
