/**
 * `-m sctp`: ports and `--chunk-types {all|any|only} CHUNK,...` (chunk flags are not modelled
 * and are an error). A Packet carries no chunk list: the first packet of an association is
 * taken to be an INIT chunk alone, later ones a DATA chunk.
 */
import type { PortRange } from "../../net/index.js";
import type { Negatable, Packet } from "../model.js";
import { fail, outcome, single, type MatchExtension } from "./extension.js";
import {
  PORT_ALIASES,
  portOption,
  portReads,
  portsHold,
  singlePort,
  requireProtocol,
} from "./port-match.js";
import { formatPortRange } from "./values.js";

export interface SctpChunkTypes {
  readonly mode: "all" | "any" | "only";
  /** Chunk type numbers, ascending. Empty means NONE; all 256 are never stored (ALL is the name). */
  readonly chunks: readonly number[];
  readonly all: boolean;
}

export interface SctpMatch {
  readonly module: "sctp";
  readonly sport?: Negatable<PortRange>;
  readonly dport?: Negatable<PortRange>;
  readonly chunkTypes?: Negatable<SctpChunkTypes>;
}

export const SCTP_CHUNK_NAMES: readonly (readonly [string, number])[] = [
  ["DATA", 0],
  ["INIT", 1],
  ["INIT_ACK", 2],
  ["SACK", 3],
  ["HEARTBEAT", 4],
  ["HEARTBEAT_ACK", 5],
  ["ABORT", 6],
  ["SHUTDOWN", 7],
  ["SHUTDOWN_ACK", 8],
  ["ERROR", 9],
  ["COOKIE_ECHO", 10],
  ["COOKIE_ACK", 11],
  ["ECN_ECNE", 12],
  ["ECN_CWR", 13],
  ["SHUTDOWN_COMPLETE", 14],
  ["I_DATA", 64],
  ["RE_CONFIG", 130],
  ["PAD", 132],
  ["ASCONF", 193],
  ["ASCONF_ACK", 128],
  ["FORWARD_TSN", 192],
  ["I_FORWARD_TSN", 194],
];

function parseChunkTypes(mode: string, list: string): SctpChunkTypes {
  const m = mode.toLowerCase();
  if (m !== "all" && m !== "any" && m !== "only")
    fail(`sctp: --chunk-types: bad match type "${mode}"`);
  if (list.toUpperCase() === "ALL") return { mode: m, chunks: [], all: true };
  if (list.toUpperCase() === "NONE") return { mode: m, chunks: [], all: false };
  const chunks = new Set<number>();
  for (const part of list.split(",")) {
    if (part.includes(":")) fail(`sctp: --chunk-types: chunk flags are not supported ("${part}")`);
    const c = SCTP_CHUNK_NAMES.find(([n]) => n === part.toUpperCase());
    if (c === undefined) fail(`sctp: --chunk-types: unknown chunk type "${part}"`);
    chunks.add(c[1]);
  }
  return { mode: m, chunks: [...chunks].sort((a, b) => a - b), all: false };
}

function formatChunkTypes(c: SctpChunkTypes): string {
  if (c.all) return `${c.mode} ALL`;
  if (c.chunks.length === 0) return `${c.mode} NONE`;
  const names = c.chunks.map(
    (n) => (SCTP_CHUNK_NAMES.find(([, v]) => v === n) as readonly [string, number])[0],
  );
  return `${c.mode} ${names.join(",")}`;
}

function chunksHold(c: SctpChunkTypes, p: Packet): boolean {
  const present = p.ctState.includes("NEW") ? [1] : [0];
  const wanted = (t: number): boolean => c.all || c.chunks.includes(t);
  switch (c.mode) {
    case "any":
      return present.some(wanted);
    case "only":
      return present.every(wanted);
    case "all":
      return c.all ? false : c.chunks.every((t) => present.includes(t));
  }
}

function formatPort(name: string, r: Negatable<PortRange> | undefined): string[] {
  // Unlike tcp/udp, libxt_sctp keeps a "given" flag, so 0:65535 is printed.
  return r === undefined ? [] : [`${r.negated ? "! " : ""}${name} ${formatPortRange(r.value)}`];
}

export const sctpMatch: MatchExtension<SctpMatch> = {
  module: "sctp",
  options: {
    "--sport": { args: 1, negatable: true },
    "--dport": { args: 1, negatable: true },
    "--chunk-types": { args: 2, negatable: true },
  },
  aliases: PORT_ALIASES,
  build(options, env) {
    requireProtocol(env, "sctp", "SCTP");
    const o = single(options, "sctp");
    const sport = o.get("--sport");
    const dport = o.get("--dport");
    const ct = o.get("--chunk-types");
    return {
      module: "sctp",
      ...(sport && { sport: portOption(sport, "sctp") }),
      ...(dport && { dport: portOption(dport, "sctp") }),
      ...(ct && {
        chunkTypes: {
          value: parseChunkTypes(ct.args[0] as string, ct.args[1] as string),
          negated: ct.negated,
        },
      }),
    };
  },
  format(m) {
    const out = [...formatPort("--sport", m.sport), ...formatPort("--dport", m.dport)];
    if (m.chunkTypes)
      out.push(
        `${m.chunkTypes.negated ? "! " : ""}--chunk-types ${formatChunkTypes(m.chunkTypes.value)}`,
      );
    return out.join(" ");
  },
  // Chunk types are read from the conntrack state (always compared).
  protocol: "sctp",
  destinationPort: (m) => singlePort(m.dport),
  reads: (m) => portReads(m.sport, m.dport),
  evaluate(m, p) {
    if (p.protocol !== "sctp" || p.fragment || !portsHold(p, m.sport, m.dport))
      return outcome(false);
    if (m.chunkTypes && chunksHold(m.chunkTypes.value, p) === m.chunkTypes.negated)
      return outcome(false);
    return outcome(true);
  },
};
