/**
 * `ipset save` / `ipset restore` text → sets. Create options the model does not need
 * (`bucketsize`, `initval`, `forceadd`, `skbinfo`, ...) are skipped; an unknown set type, an
 * entry that does not fit its set's dimensions, or a line that is neither `create` nor `add`
 * is an error `FILE:LINE: message`. Port ranges in entries expand to one entry per port, as
 * ipset stores them.
 */
import { makeCIDR, type CIDR, type IPFamily, type PortRange } from "../../net/index.js";
import { splitRestoreWords } from "../parse/words.js";
import { formatIpsetElement } from "./format.js";
import type { Issue } from "../../issue/issue.js";
import { IptablesParseError, lineIssue } from "../parse/errors.js";
import { parseAddressSpec, parseFamilyIP, parsePort } from "../matches/values.js";
import { ExtensionError } from "../matches/extension.js";
import {
  IPSET_TYPES,
  ipsetDimensions,
  type Ipset,
  type IpsetEntry,
  type IpsetEntryPart,
  type IpsetPortProtocol,
  type IpsetType,
} from "./model.js";

class LineError extends Error {}
function fail(message: string): never {
  throw new LineError(message);
}

const VALUE_OPTIONS = [
  "hashsize",
  "maxelem",
  "timeout",
  "netmask",
  "bucketsize",
  "initval",
  "markmask",
  "size",
];
const FLAG_OPTIONS = ["counters", "comment", "skbinfo", "forceadd"];

function num(s: string | undefined, what: string): number {
  if (s === undefined || !/^[0-9]+$/.test(s)) fail(`${what}: invalid value "${s ?? ""}"`);
  return Number(s);
}

function parsePortPart(
  s: string,
  bitmap: boolean,
): { protocol?: IpsetPortProtocol; ports: PortRange } {
  const colon = s.indexOf(":");
  let protocol: IpsetPortProtocol | undefined = bitmap ? undefined : "tcp";
  let portText = s;
  if (colon !== -1) {
    if (bitmap) fail(`invalid port "${s}"`);
    const p = s.slice(0, colon).toLowerCase();
    if (p !== "tcp" && p !== "udp" && p !== "sctp")
      fail(`protocol "${p}" in "${s}" is not modelled (tcp, udp, sctp)`);
    protocol = p;
    portText = s.slice(colon + 1);
  }
  const dash = portText.indexOf("-");
  const from = parsePort(dash === -1 ? portText : portText.slice(0, dash), "xtables");
  const to = dash === -1 ? from : parsePort(portText.slice(dash + 1), "xtables");
  if (from === undefined || to === undefined || from > to) fail(`invalid port "${portText}"`);
  return protocol === undefined ? { ports: { from, to } } : { protocol, ports: { from, to } };
}

function parseEntry(set: Ipset, words: readonly string[]): IpsetEntry[] {
  const dims = ipsetDimensions(set.type);
  const elem = words[0];
  if (elem === undefined) fail(`add ${set.name}: missing element`);
  const texts = elem.split(",");
  if (texts.length !== dims.length)
    fail(`add ${set.name}: "${elem}" does not match type ${set.type}`);
  const parts: (
    IpsetEntryPart | { kind: "ports"; protocol?: IpsetPortProtocol; ports: PortRange }
  )[] = [];
  texts.forEach((t, i) => {
    const d = dims[i];
    if (d === "ip") {
      const ip = parseFamilyIP(t, set.family, "ipset");
      if (ip === undefined)
        fail(
          `add ${set.name}: invalid address "${t}" (ranges and CIDRs in hash:ip are not modelled)`,
        );
      // The kernel cannot store an all-zero address as the first part of these types (ipset
      // 7.17: "Null-valued element"); hash:ip,port,ip and hash:ip,port,net take it.
      if (
        i === 0 &&
        (set.type === "hash:ip" || set.type === "hash:ip,port") &&
        BigInt(ip.value) === 0n
      )
        fail(`add ${set.name}: "${t}": a null-valued element cannot be stored in ${set.type}`);
      parts.push({ kind: "ip", ip });
    } else if (d === "net") {
      let cidr: CIDR;
      try {
        cidr = parseAddressSpec(t, set.family, "net", "ipset");
      } catch (e) {
        if (e instanceof ExtensionError) fail(`add ${set.name}: invalid network "${t}"`);
        throw e;
      }
      if (cidr.prefix === 0) fail(`add ${set.name}: zero prefix is not allowed in "${t}"`);
      parts.push({ kind: "net", cidr: makeCIDR(cidr.network, cidr.prefix) });
    } else {
      const p = parsePortPart(t, set.type === "bitmap:port");
      if (set.range !== undefined && (p.ports.from < set.range.from || p.ports.to > set.range.to))
        fail(`add ${set.name}: port "${t}" is outside the set range`);
      parts.push({ kind: "ports", ...p });
    }
  });
  let nomatch = false;
  let timeout: number | undefined;
  let comment: string | undefined;
  for (let k = 1; k < words.length; k++) {
    const w = words[k];
    if (w === "nomatch") {
      if (!dims.includes("net")) fail(`add ${set.name}: "nomatch" needs a net type`);
      nomatch = true;
    } else if (w === "timeout") {
      if (set.timeout === undefined)
        fail(`add ${set.name}: timeout cannot be used: set was created without timeout support`);
      timeout = num(words[++k], "timeout");
    } else if (w === "comment")
      comment = words[++k] ?? fail(`add ${set.name}: comment needs a value`);
    else if (w === "packets" || w === "bytes") k++;
    else fail(`add ${set.name}: unknown entry option "${w}"`);
  }
  const portIdx = parts.findIndex((p) => p.kind === "ports");
  const expand = (port: number): IpsetEntry => {
    const ps = parts.map((p): IpsetEntryPart => {
      if (p.kind !== "ports") return p;
      return p.protocol === undefined
        ? { kind: "port", port }
        : { kind: "port", protocol: p.protocol, port };
    });
    return {
      parts: ps,
      nomatch,
      ...(timeout !== undefined && { timeout }),
      ...(comment !== undefined && { comment }),
    };
  };
  if (portIdx === -1) return [expand(0)];
  const r = (parts[portIdx] as { ports: PortRange }).ports;
  const out: IpsetEntry[] = [];
  for (let p = r.from; p <= r.to; p++) out.push(expand(p));
  return out;
}

function parseCreate(
  words: readonly string[],
): { -readonly [K in keyof Ipset]: Ipset[K] } & { entries: IpsetEntry[] } {
  const [name, type] = words;
  if (name === undefined || type === undefined) fail(`create: expected "create NAME TYPE ..."`);
  if (name.length > 31) fail(`create: set name "${name}" too long (31 chars max)`);
  if (!(IPSET_TYPES as readonly string[]).includes(type))
    fail(`create ${name}: unknown or unmodelled set type "${type}"`);
  const set: { -readonly [K in keyof Ipset]: Ipset[K] } & { entries: IpsetEntry[] } = {
    name,
    type: type as IpsetType,
    family: "IPv4",
    hashsize: 1024,
    maxelem: 65536,
    counters: false,
    comment: false,
    entries: [],
  };
  for (let k = 2; k < words.length; k++) {
    const w = words[k] as string;
    if (w === "family") {
      const f = words[++k];
      if (f !== "inet" && f !== "inet6") fail(`create ${name}: invalid family "${f ?? ""}"`);
      set.family = f === "inet" ? "IPv4" : "IPv6";
    } else if (w === "range" && type === "bitmap:port") {
      const r = words[++k] ?? "";
      const dash = r.indexOf("-");
      const from = parsePort(dash === -1 ? r : r.slice(0, dash), "xtables");
      const to = dash === -1 ? from : parsePort(r.slice(dash + 1), "xtables");
      if (from === undefined || to === undefined || from > to)
        fail(`create ${name}: invalid range "${r}"`);
      set.range = { from, to };
    } else if (w === "hashsize") set.hashsize = num(words[++k], "hashsize");
    else if (w === "maxelem") set.maxelem = num(words[++k], "maxelem");
    else if (w === "timeout") set.timeout = num(words[++k], "timeout");
    else if (w === "counters") set.counters = true;
    else if (w === "comment") set.comment = true;
    else if (VALUE_OPTIONS.includes(w)) k++;
    else if (!FLAG_OPTIONS.includes(w)) {
      // Unknown trailing create options (newer ipset versions) are skipped, with their value when
      // the next word is not itself a keyword.
    }
  }
  if (type === "bitmap:port" && set.range === undefined)
    fail(`create ${name}: bitmap:port needs "range FROM-TO"`);
  return set;
}

export function parseIpsetSave(text: string, file = "<input>"): readonly Ipset[] {
  const sets = new Map<string, ReturnType<typeof parseCreate>>();
  const issues: Issue[] = [];
  const elementIndex = new Map<string, Map<string, number>>();
  const lines = text.split("\n");
  lines.forEach((raw, i) => {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "" || line.startsWith("#")) return;
    try {
      const { words } = splitRestoreWords(line);
      const [cmd, ...rest] = words;
      if (cmd === "create" || cmd === "-N" || cmd === "n") {
        const s = parseCreate(rest);
        if (sets.has(s.name)) fail(`create ${s.name}: set already exists`);
        sets.set(s.name, s);
      } else if (cmd === "add" || cmd === "-A" || cmd === "a") {
        const s = sets.get(rest[0] ?? "");
        if (s === undefined) fail(`add: set "${rest[0] ?? ""}" does not exist`);
        let index = elementIndex.get(s.name);
        if (index === undefined) elementIndex.set(s.name, (index = new Map<string, number>()));
        for (const e of parseEntry(s, rest.slice(1))) addEntry(s, e, index);
      } else fail(`unknown ipset command "${cmd ?? ""}"`);
    } catch (e) {
      if (e instanceof LineError) issues.push(lineIssue(file, i + 1, e.message));
      else throw e;
    }
  });
  if (issues.length > 0) throw new IptablesParseError(issues);
  return [...sets.values()];
}

/**
 * Adds an element the way `ipset -exist restore` (kube-proxy's call) does: an element already in
 * the set (the same after masking, e.g. 1.2.3.4/1 and 0.0.0.0/1) is not added twice; its
 * options (nomatch, timeout, comment) are updated instead.
 */
function addEntry(s: { entries: IpsetEntry[] }, e: IpsetEntry, index: Map<string, number>): void {
  const key = formatIpsetElement(e);
  const at = index.get(key);
  if (at === undefined) {
    index.set(key, s.entries.length);
    s.entries.push(e);
  } else s.entries[at] = e;
}

export function familyWord(f: IPFamily): string {
  return f === "IPv4" ? "inet" : "inet6";
}
