/**
 * `-m recent`: one of `[!] --set|--rcheck|--update|--remove`, with `--seconds`, `--reap`,
 * `--hitcount`, `--rttl`, `--name` (default `DEFAULT`), `--mask` and `--rsource`/`--rdest`.
 *
 * `--set` always holds (it records the address; recording is the tracer's business). The checks
 * hold when the list has the masked address (seen within `--seconds` when given), which the
 * node state answers through `ctx.recentSeen`. `--hitcount` is not modelled beyond "seen".
 */
import { DST, OUTSIDE, SRC } from "../packet-fields.js";
import type { IPAddress, IPFamily } from "../../net/index.js";
import { ipv4, ipv6 } from "../../net/index.js";
import { fail, FLAG, outcome, single, type MatchExtension } from "./extension.js";
import { formatAddr } from "./format-addr.js";
import { parseIPOf, parseUint } from "./values.js";

export interface RecentMatch {
  readonly module: "recent";
  readonly action: "set" | "rcheck" | "update" | "remove";
  readonly negated: boolean;
  readonly name: string;
  readonly seconds?: number;
  readonly reap: boolean;
  readonly hitcount?: number;
  readonly rttl: boolean;
  readonly mask: IPAddress;
  readonly side: "source" | "dest";
}

export function fullMask(family: IPFamily): IPAddress {
  return family === "IPv4" ? ipv4(0xffffffff) : ipv6((1n << 128n) - 1n);
}

function applyMask(a: IPAddress, m: IPAddress): IPAddress {
  if (a.family === "IPv4" && m.family === "IPv4") return ipv4((a.value & m.value) >>> 0);
  if (a.family === "IPv6" && m.family === "IPv6") return ipv6(a.value & m.value);
  return a;
}

const ACTIONS = ["--set", "--rcheck", "--update", "--remove"] as const;

export const recentMatch: MatchExtension<RecentMatch> = {
  module: "recent",
  options: {
    "--set": { args: 0, negatable: true },
    "--rcheck": { args: 0, negatable: true },
    "--update": { args: 0, negatable: true },
    "--remove": { args: 0, negatable: true },
    "--seconds": { args: 1, negatable: false },
    "--reap": FLAG,
    "--hitcount": { args: 1, negatable: false },
    "--rttl": FLAG,
    "--name": { args: 1, negatable: false },
    "--mask": { args: 1, negatable: false },
    "--rsource": FLAG,
    "--rdest": FLAG,
  },
  build(options, env) {
    const o = single(options, "recent");
    const acts = ACTIONS.filter((a) => o.has(a));
    if (acts.length !== 1)
      fail(`recent: you must specify one of "--set", "--rcheck", "--update" or "--remove"`);
    const act = o.get(acts[0] as string) as NonNullable<ReturnType<typeof o.get>>;
    const action = act.name.slice(2) as RecentMatch["action"];
    const sec = o.get("--seconds");
    const hit = o.get("--hitcount");
    if ((sec || hit) && action !== "rcheck" && action !== "update")
      fail(`recent: "--seconds" and "--hitcount" can only be used with "--rcheck" or "--update"`);
    if (o.has("--reap") && sec === undefined) fail(`recent: "--reap" requires "--seconds"`);
    if (o.has("--rttl") && (action === "set" || action === "remove"))
      fail(`recent: option "--rttl" cannot be used together with "--${action}"`);
    // Given both, the later one counts (iptables-nft 1.8.9 saves that one).
    const sides = o.values().filter((x) => x.name === "--rsource" || x.name === "--rdest");
    const side = sides[sides.length - 1]?.name === "--rdest" ? "dest" : "source";
    const name = o.get("--name")?.args[0] ?? "DEFAULT";
    if (name === "" || name.length > 199 || name.includes("/"))
      fail(`recent: invalid --name "${name}"`);
    const maskText = o.get("--mask")?.args[0];
    const seconds =
      sec === undefined
        ? undefined
        : parseUint(sec.args[0] as string, 0xffffffff, "recent --seconds");
    if (seconds === 0) fail(`recent: "--seconds" must be greater than 0`);
    const hitcount =
      hit === undefined ? undefined : parseUint(hit.args[0] as string, 255, "recent --hitcount");
    return {
      module: "recent",
      action,
      negated: act.negated,
      name,
      ...(seconds !== undefined && { seconds }),
      reap: o.has("--reap"),
      ...(hitcount !== undefined && hitcount !== 0 && { hitcount }),
      rttl: o.has("--rttl"),
      mask:
        maskText === undefined
          ? fullMask(env.family)
          : parseIPOf(maskText, env.family, "recent --mask", "aton"),
      side,
    };
  },
  format(m) {
    const out = [`${m.negated ? "! " : ""}--${m.action}`];
    if (m.seconds !== undefined) out.push(`--seconds ${m.seconds}`);
    if (m.reap) out.push("--reap");
    if (m.hitcount !== undefined) out.push(`--hitcount ${m.hitcount}`);
    if (m.rttl) out.push("--rttl");
    out.push(
      `--name ${m.name}`,
      `--mask ${formatAddr(m.mask)}`,
      m.side === "source" ? "--rsource" : "--rdest",
    );
    return out.join(" ");
  },
  reads: (m) => (m.action === "set" ? 0 : OUTSIDE | (m.side === "source" ? SRC : DST)),
  records: (m) =>
    m.action === "set" || m.action === "update" ? { list: m.name, address: m.side } : undefined,
  evaluate(m, p, ctx) {
    if (m.action === "set") return outcome(!m.negated);
    const addr = applyMask(m.side === "source" ? p.src : p.dst, m.mask);
    return outcome(ctx.recentSeen(m.name, addr, m.seconds) !== m.negated);
  },
};
