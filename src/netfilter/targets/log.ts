/**
 * `-j LOG`: `--log-prefix`, `--log-level`, `--log-tcp-sequence`, `--log-tcp-options`,
 * `--log-ip-options`, `--log-uid`, `--log-macdecode`. No effect on the verdict; `options` holds
 * the canonical save words.
 */
import { ARG, fail, FLAG, single } from "../matches/extension.js";
import { saveString } from "../matches/save-string.js";
import type { TargetExtension } from "./extension.js";

type Log = { readonly kind: "LOG"; readonly options: readonly string[] };

const LEVELS = ["emerg", "alert", "crit", "error", "warning", "notice", "info", "debug"];
const FLAGS = [
  "--log-tcp-sequence",
  "--log-tcp-options",
  "--log-ip-options",
  "--log-uid",
  "--log-macdecode",
];

function level(s: string): number {
  if (/^[0-7]$/.test(s)) return Number(s);
  const alias: Record<string, string> = { panic: "emerg", err: "error", warn: "warning" };
  const i = LEVELS.indexOf(alias[s.toLowerCase()] ?? s.toLowerCase());
  if (i === -1) fail(`LOG: log level "${s}" unknown`);
  return i;
}

export const logTarget: TargetExtension<Log> = {
  name: "LOG",
  kind: "LOG",
  options: {
    "--log-prefix": ARG,
    "--log-level": ARG,
    ...Object.fromEntries(FLAGS.map((f) => [f, FLAG])),
  },
  build(options) {
    const o = single(options, "LOG");
    const words: string[] = [];
    const prefix = o.get("--log-prefix")?.args[0];
    if (prefix !== undefined) {
      // iptables-nft 1.8.9 keeps the first 29 characters of a longer prefix (the kernel's
      // 30-byte field), as saved back; the legacy tool refuses it instead.
      if (prefix !== "") words.push("--log-prefix", saveString(prefix.slice(0, 29)));
    }
    const lv = o.get("--log-level")?.args[0];
    if (lv !== undefined && level(lv) !== 4) words.push("--log-level", `${level(lv)}`);
    for (const f of FLAGS) if (o.has(f)) words.push(f);
    return { kind: "LOG", options: words };
  },
  format: (t) => t.options.join(" "),
};
