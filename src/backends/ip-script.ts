/**
 * A topology's set-up as one shell script run by one process. Spawning from a big Node.js
 * process (a jest worker, the CLI) forks a process of a few hundred MB: tens of ms of CPU per
 * spawn, mostly system time, so a scenario built with one `ip` process per command (dozens per
 * namespace) spent seconds in forks alone. Here consecutive `ip` commands for one namespace go to
 * one `ip -n NS -batch -`, and sysctls to one `ip netns exec NS sysctl`, in the order they were
 * added; the shell's own forks are small. The first failing command stops the script and is named
 * in the error, as a failing `ip` call was before.
 */
import { spawnSync } from "node:child_process";
import type { Netns } from "./netns.js";

type Step =
  | { readonly kind: "ip"; readonly ns: string; readonly lines: string[][] }
  | { readonly kind: "sysctl"; readonly ns: string; readonly settings: readonly string[] };

/**
 * `ip -batch` splits its lines at white space and reads quotes and `#`: an argument holding one
 * would change the command (a kernel interface name never does; see dev_valid_name).
 */
const UNSAFE = /[\s"'\\#]/;

function checked(word: string): string {
  if (word === "" || UNSAFE.test(word))
    throw new Error(`cannot pass ${JSON.stringify(word)} to ip: empty or holds a blank or quote`);
  return word;
}

const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

export class IpScript {
  private readonly steps: Step[] = [];

  /** `ip -n NS ARGS` (ARGS without global options such as -4/-6: write `default` as 0.0.0.0/0 or ::/0). */
  ip(ns: Netns, args: readonly string[]): this {
    const line = args.map(checked);
    const last = this.steps.at(-1);
    if (last?.kind === "ip" && last.ns === ns.name) last.lines.push(line);
    else this.steps.push({ kind: "ip", ns: checked(ns.name), lines: [line] });
    return this;
  }

  /** A veth cable: `name` inside `ns`, its peer `peer` inside `peerNs`. */
  veth(ns: Netns, name: string, peerNs: Netns, peer: string): this {
    return this.ip(ns, [
      "link",
      "add",
      name,
      "type",
      "veth",
      "peer",
      "name",
      peer,
      "netns",
      peerNs.name,
    ]);
  }

  /** `sysctl -q -w` of `key=value` settings inside the namespace. */
  sysctl(ns: Netns, settings: readonly string[]): this {
    if (settings.length > 0) this.steps.push({ kind: "sysctl", ns: ns.name, settings });
    return this;
  }

  /** Runs every step in order in one shell; throws naming the first command that failed. */
  run(): void {
    if (this.steps.length === 0) return;
    const script = ["set -e"];
    this.steps.forEach((s, k) => {
      script.push(`echo '@${k}' >&2`);
      if (s.kind === "sysctl")
        script.push(`ip netns exec ${quote(s.ns)} sysctl -q -w ${s.settings.map(quote).join(" ")}`);
      else
        script.push(
          `ip -n ${quote(s.ns)} -batch - <<'KNS_EOF'`,
          ...s.lines.map((l) => l.join(" ")),
          "KNS_EOF",
        );
    });
    const r = spawnSync("sh", ["-c", script.join("\n")], { encoding: "utf8" });
    if (r.status === 0) return;
    throw new Error(this.failure(r.stderr ?? "", r.error));
  }

  /** `ip -n NS ARGS: ERROR` for the command that failed, from the markers on stderr. */
  private failure(stderr: string, error: Error | undefined): string {
    const lines = stderr.split("\n");
    let at = -1;
    let from = 0;
    lines.forEach((l, i) => {
      const m = /^@([0-9]+)$/.exec(l);
      if (m !== null) [at, from] = [Number(m[1]), i + 1];
    });
    const step = this.steps[at];
    const output = lines.slice(from).filter((l) => l.trim() !== "");
    if (step === undefined) return `ip set-up failed: ${stderr.trim() || String(error)}`;
    if (step.kind === "sysctl")
      return `sysctl -q -w ${step.settings.join(" ")} failed in ${step.ns}: ${output.join("; ")}`;
    const failed = /^Command failed -:([0-9]+)$/.exec(output.at(-1) ?? "");
    const line = step.lines[Number(failed?.[1] ?? "0") - 1];
    const why = output.filter((l) => !l.startsWith("Command failed -:")).join("; ");
    return line !== undefined
      ? `ip -n ${step.ns} ${line.join(" ")}: ${why}`
      : `ip -n ${step.ns} -batch failed: ${why || String(error)}`;
  }
}
