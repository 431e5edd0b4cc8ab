/**
 * `-j NFLOG`: `--nflog-group`, `--nflog-prefix`, `--nflog-size` (`--nflog-range`),
 * `--nflog-threshold`. No effect on the verdict; `options` holds the canonical save words.
 */
import { ARG, fail, single } from "../matches/extension.js";
import { parseUint } from "../matches/values.js";
import { saveString } from "../matches/save-string.js";
import { CONTINUE, type TargetExtension } from "./extension.js";

type Nflog = { readonly kind: "NFLOG"; readonly options: readonly string[] };

export const nflogTarget: TargetExtension<Nflog> = {
  name: "NFLOG",
  kind: "NFLOG",
  options: {
    "--nflog-group": ARG,
    "--nflog-prefix": ARG,
    "--nflog-size": ARG,
    "--nflog-range": ARG,
    "--nflog-threshold": ARG,
  },
  build(options) {
    const o = single(options, "NFLOG");
    const words: string[] = [];
    const prefix = o.get("--nflog-prefix")?.args[0];
    if (prefix !== undefined) {
      // iptables-nft 1.8.9 keeps the first 127 characters of a longer prefix, as saved back.
      // An empty prefix is refused ("Argument must have a minimum length of 1 characters").
      if (prefix === "") fail(`LOG: --nflog-prefix must not be empty`);
      words.push("--nflog-prefix", saveString(prefix.slice(0, 127)));
    }
    const g = o.get("--nflog-group")?.args[0];
    const group = g === undefined ? 0 : parseUint(g, 65535, "NFLOG --nflog-group");
    if (group !== 0) words.push("--nflog-group", `${group}`);
    if (o.has("--nflog-size") && o.has("--nflog-range"))
      fail(`NFLOG: --nflog-size and --nflog-range are exclusive`);
    const size = o.get("--nflog-size")?.args[0];
    if (size !== undefined)
      words.push("--nflog-size", `${parseUint(size, 0xffffffff, "NFLOG --nflog-size")}`);
    const range = o.get("--nflog-range")?.args[0];
    if (range !== undefined) {
      const n = parseUint(range, 0xffffffff, "NFLOG --nflog-range");
      if (n !== 0) words.push("--nflog-range", `${n}`);
    }
    const th = o.get("--nflog-threshold")?.args[0];
    if (th !== undefined) {
      const n = parseUint(th, 65535, "NFLOG --nflog-threshold");
      if (n !== 1) words.push("--nflog-threshold", `${n}`);
    }
    return { kind: "NFLOG", options: words };
  },
  format: (t) => t.options.join(" "),
  touches: () => 0,
  apply: () => CONTINUE,
};
