/**
 * `kube-netsim parse FILE [--check] [--family ipv4|ipv6]`: reads iptables-save or
 * iptables-restore text (`-` is stdin) and prints it in canonical iptables-save form, the bytes
 * `iptables-save` prints once the text is loaded (without its `#` header and footer lines).
 * `--check` only validates. Errors: one `FILE:LINE: message` line each on stderr, exit 2.
 */
import type { Command } from "commander";
import type { IPFamily } from "../../net/index.js";
import { formatIptablesSave } from "../../netfilter/format/save.js";
import { parseIptables } from "../../netfilter/parse/iptables.js";
import { ValidationError } from "../../issue/validation-error.js";
import { CliError, EXIT_OK } from "../exit.js";
import { readKeepingBytes } from "../read-text.js";
import { decodeKeepingBytes, encodeKeepingBytes } from "../../util/byte-text.js";
import type { CliIO } from "../program.js";
import { inSourceOrder } from "../render-errors.js";

interface ParseOptions {
  readonly check?: boolean;
  readonly family?: string;
}

function familyOption(s: string | undefined): IPFamily | undefined {
  if (s === undefined) return undefined;
  if (s.toLowerCase() === "ipv4") return "IPv4";
  if (s.toLowerCase() === "ipv6") return "IPv6";
  throw new CliError(`--family: unsupported value "${s}": supported values: "ipv4", "ipv6"`);
}

export function runParse(file: string, opts: ParseOptions, io: CliIO): number {
  const family = familyOption(opts.family);
  let text: string;
  try {
    // Bytes that are not UTF-8 (a comment in another encoding) are kept and printed back raw,
    // as iptables-save prints them, not as U+FFFD.
    if (file !== "-") text = readKeepingBytes(file);
    else if (io.readStdinBytes !== undefined) text = decodeKeepingBytes(io.readStdinBytes());
    else text = io.readStdin();
  } catch (e) {
    throw new CliError(`${file}: cannot read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  try {
    const ruleSet = parseIptables(text, {
      file: file === "-" ? "<stdin>" : file,
      ...(family && { family }),
    });
    if (opts.check !== true) {
      const out = formatIptablesSave(ruleSet);
      if (io.stdoutBytes !== undefined) io.stdoutBytes(encodeKeepingBytes(out));
      else io.stdout(out);
    }
    return EXIT_OK;
  } catch (e) {
    // In line order, whatever order the checks found them in (printed by render-errors.ts).
    if (e instanceof ValidationError) throw new ValidationError(inSourceOrder(e.issues));
    throw e;
  }
}

export function registerParse(program: Command, io: CliIO): void {
  program
    .command("parse")
    .description(
      "parse iptables-save / iptables-restore text and print it in canonical iptables-save form",
    )
    .argument("<file>", "rules file (iptables-save output or iptables-restore input); - for stdin")
    .option("--check", "only validate; print nothing, exit 0 when valid and 2 otherwise")
    .option(
      "--family <family>",
      "address family of the rules: ipv4 or ipv6 (default: guessed from the addresses)",
    )
    .addHelpText(
      "after",
      `
Examples:
  kube-netsim parse examples/netfilter/kube-proxy.rules
  kube-netsim parse --check examples/netfilter/kube-proxy.rules
  ip6tables-save | kube-netsim parse --family ipv6 -`,
    )
    .action((file: string, opts: ParseOptions) => {
      process.exitCode = runParse(file, opts, io);
    });
}
