/**
 * `-j LOG`: `--log-prefix`, `--log-level`, `--log-tcp-sequence`, `--log-tcp-options`,
 * `--log-ip-options`, `--log-uid`, `--log-macdecode`. No effect on the verdict; `options` holds
 * the canonical save words.
 */
import { ARG, fail, FLAG, single } from "../matches/extension.js";
import { saveString } from "../matches/save-string.js";
import { parseCNumber } from "../matches/values.js";
import { CONTINUE, type TargetExtension } from "./extension.js";

type Log = { readonly kind: "LOG"; readonly options: readonly string[] };

/** The level names libxt_LOG knows, as written (case matters; checked on the kernel). */
const LEVELS: ReadonlyMap<string, number> = new Map([
  ["emerg", 0],
  ["panic", 0],
  ["alert", 1],
  ["crit", 2],
  ["error", 3],
  ["warning", 4],
  ["notice", 5],
  ["info", 6],
  ["debug", 7],
]);
const FLAGS = [
  "--log-tcp-sequence",
  "--log-tcp-options",
  "--log-ip-options",
  "--log-uid",
  "--log-macdecode",
];

/** `--log-level`: a libxtables number up to 7 (`04`, `0x4`), or a name. */
function level(s: string): number {
  const n = parseCNumber(s);
  if (n !== undefined && n <= 7) return n;
  const named = LEVELS.get(s);
  if (named === undefined) fail(`LOG: log level "${s}" unknown`);
  return named;
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
      // An empty prefix is refused ("Argument must have a minimum length of 1 characters").
      if (prefix === "") fail(`LOG: --log-prefix must not be empty`);
      words.push("--log-prefix", saveString(prefix.slice(0, 29)));
    }
    const lv = o.get("--log-level")?.args[0];
    const n = lv === undefined ? 4 : level(lv);
    if (n !== 4) words.push("--log-level", `${n}`);
    for (const f of FLAGS) if (o.has(f)) words.push(f);
    return { kind: "LOG", options: words };
  },
  format: (t) => t.options.join(" "),
  touches: () => 0,
  apply: () => CONTINUE,
};
