/** `ipset save` text (without the random `bucketsize`/`initval` newer kernels add). */
import { formatAddr } from "../matches/format-addr.js";
import { familyWord } from "./parse.js";
import type { Ipset, IpsetEntry, IpsetEntryPart } from "./model.js";

function part(p: IpsetEntryPart): string {
  switch (p.kind) {
    case "ip":
      return formatAddr(p.ip);
    case "net": {
      const full = p.cidr.family === "IPv4" ? 32 : 128;
      return p.cidr.prefix === full
        ? formatAddr(p.cidr.network)
        : `${formatAddr(p.cidr.network)}/${p.cidr.prefix}`;
    }
    case "port":
      return p.protocol === undefined ? `${p.port}` : `${p.protocol}:${p.port}`;
  }
}

function quote(s: string): string {
  return `"${s}"`;
}

/** The element an entry stands for (`10.0.0.0/8,tcp:80`): its identity in the set. */
export function formatIpsetElement(e: IpsetEntry): string {
  return e.parts.map(part).join(",");
}

export function formatIpsetEntry(set: Ipset, e: IpsetEntry): string {
  let out = `add ${set.name} ${formatIpsetElement(e)}`;
  if (e.nomatch) out += " nomatch";
  // In a set with timeouts every entry has one: its own or the set's default. (The kernel
  // saves the seconds left; this prints the seconds given.)
  const timeout = e.timeout ?? set.timeout;
  if (timeout !== undefined) out += ` timeout ${timeout}`;
  if (e.comment !== undefined) out += ` comment ${quote(e.comment)}`;
  return out;
}

export function formatIpsetCreate(s: Ipset): string {
  let out = `create ${s.name} ${s.type}`;
  if (s.type === "bitmap:port") out += ` range ${s.range?.from ?? 0}-${s.range?.to ?? 65535}`;
  else out += ` family ${familyWord(s.family)} hashsize ${s.hashsize} maxelem ${s.maxelem}`;
  if (s.timeout !== undefined) out += ` timeout ${s.timeout}`;
  if (s.counters) out += " counters";
  if (s.comment) out += " comment";
  return out;
}

export function formatIpsetSave(sets: readonly Ipset[]): string {
  // Lines collected and joined into one flat string: a text grown line by line (`out +=`) is a
  // tree of every line's pieces, all kept until it is printed.
  const lines: string[] = [];
  for (const s of sets) {
    lines.push(formatIpsetCreate(s));
    for (const e of s.entries) lines.push(formatIpsetEntry(s, e));
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}
