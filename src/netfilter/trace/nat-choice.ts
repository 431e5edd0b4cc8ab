/**
 * Which address and port the kernel gives the first connection of a flow when a DNAT/SNAT
 * range (`--to-destination`/`--to-source a[-b][:p[-q]]`) has more than one choice.
 *
 * Facts (net/netfilter/nf_nat_core.c, `get_unique_tuple` and its helpers; checked against
 * Linux 6.18 by test/netfilter/trace/nat-choice-kernel.test.ts):
 * 1. SNAT only, and only without --random/--random-fully: when the current source address (and,
 *    if the range has ports, the source port) already lies in the range, the tuple is kept as is
 *    (`in_range`). A source already mapped by an earlier connection of the same source
 *    address/port is reused (`find_appropriate_src`); the first connection has none.
 * 2. The address (`find_best_ips_proto`): a single-address range is that address. Otherwise
 *    j = jhash2 over the four 32-bit words of the tuple's *source* address (IPv4 fills one word,
 *    the others are zero), each word read as the machine stores it (network byte order loaded
 *    as a little-endian u32 on x86), seeded with the last word of the destination address
 *    (again as stored) xor the conntrack zone id, or with 0 under --persistent. Then for each
 *    word i of the family (1 for IPv4, 4 for IPv6): word = min[i] + reciprocal_scale(j, dist),
 *    dist = max[i] - min[i] + 1 while every earlier word equalled max's, else the full 2^32 - 1
 *    ("full range") with min 0; and without --persistent j ^= destination word i afterwards:
 *    for a DNAT that is the word just chosen (the loop rewrites the destination in place), for
 *    an SNAT the destination's own word.
 *    --random and --random-fully do not change the address. For SNAT the tuple is the one
 *    after any DNAT (`nf_nat_setup_info` starts from the inverse of the current reply tuple).
 * 3. The port (`get_unique_tuple` step 3, `nf_nat_l4proto_unique_tuple`), for protocols with
 *    ports (TCP, UDP, SCTP; also DCCP/UDP-Lite, not modelled), assuming no other connection
 *    holds the resulting tuple (true for a first connection):
 *    - without --random/--random-fully: with a port range, the port is kept when it lies in the
 *      range; otherwise a DNAT takes the first port of the range (the free-port search starts
 *      at offset 0 for DNAT: "netfilter: nat: restore default DNAT behavior", Linux 6.8; from
 *      about 5.x to 6.7 it was random) and an SNAT one drawn at random (get_random_u16) from
 *      the range. Without a port range the port is kept.
 *    - with --random/--random-fully: drawn at random from the range; without a port range a
 *      DNAT keeps the port and an SNAT draws from the source port's class: 1-511 (port < 512),
 *      600-1023 (port < 1024), else 1024-65535.
 *    A one-port range gives that port whatever is random.
 *    ICMP identifiers (also "random" under --random) are not modelled: the port is returned
 *    unchanged for protocols without ports.
 */
import type { IPAddress, IPFamily, PortRange } from "../../net/index.js";
import { ipv4, ipv6 } from "../../net/index.js";
import type { L4Protocol } from "../model.js";
import type { NatRange } from "../targets/index.js";
import { jhash2, reciprocalScale } from "./jhash.js";

/** The connection as NAT sees it: for SNAT, after any DNAT. */
export interface NatTuple {
  readonly protocol: L4Protocol;
  readonly src: IPAddress;
  readonly sport: number;
  readonly dst: IPAddress;
  readonly dport: number;
}

/** `dst`: DNAT (PREROUTING/OUTPUT); `src`: SNAT/MASQUERADE (POSTROUTING/INPUT). */
export type NatManip = "dst" | "src";

export interface NatChoiceOptions {
  readonly persistent: boolean;
  readonly random: boolean;
  readonly randomFully: boolean;
  /** Conntrack zone id (`-j CT --zone`); 0 when unset. */
  readonly zone?: number;
}

/**
 * The rewritten address and port of the manipulated side (destination for DNAT, source for
 * SNAT). `exact`: the kernel's choice, deterministic. `random-port`: the address is exact, the
 * port is one the kernel draws at random from `ports` for each new connection.
 */
export type NatChoice =
  | { readonly kind: "exact"; readonly ip: IPAddress; readonly port: number }
  | { readonly kind: "random-port"; readonly ip: IPAddress; readonly ports: PortRange };

const PORT_PROTOCOLS: ReadonlySet<L4Protocol> = new Set<L4Protocol>(["tcp", "udp", "sctp"]);

/** Whether NAT translates the protocol's ports (ICMP identifiers are not modelled). */
export function hasPorts(protocol: L4Protocol): boolean {
  return PORT_PROTOCOLS.has(protocol);
}

export function natRangeChoice(
  range: NatRange,
  tuple: NatTuple,
  manip: NatManip,
  opts: NatChoiceOptions,
): NatChoice {
  const family = tuple.src.family;
  if (tuple.dst.family !== family)
    throw new Error(`NAT tuple mixes ${family} and ${tuple.dst.family} addresses`);
  if (range.ipFrom !== undefined && range.ipFrom.family !== family)
    throw new Error(`NAT range is ${range.ipFrom.family}, the connection ${family}`);
  const randomAll = opts.random || opts.randomFully;
  const hasPorts = PORT_PROTOCOLS.has(tuple.protocol);
  const ports = hasPorts ? range.ports : undefined;
  const curPort = manip === "dst" ? tuple.dport : tuple.sport;

  // Step 1: an SNAT whose source already fits the range keeps it.
  if (manip === "src" && !randomAll && addrInRange(tuple.src, range) && portIn(curPort, ports))
    return { kind: "exact", ip: tuple.src, port: tuple.sport };

  // Step 2: the address.
  const ip = chooseAddress(range, tuple, manip, family, opts);

  // Step 3: the port.
  if (!hasPorts) return { kind: "exact", ip, port: curPort };
  if (!randomAll) {
    if (ports === undefined || portIn(curPort, ports)) return { kind: "exact", ip, port: curPort };
    // The search for a free port starts at offset 0 for a DNAT, at a random one for an SNAT.
    return manip === "dst" ? { kind: "exact", ip, port: ports.from } : randomPort(ip, ports);
  }
  if (ports !== undefined) return randomPort(ip, ports);
  if (manip === "dst") return { kind: "exact", ip, port: curPort };
  return randomPort(ip, portClass(curPort));
}

/** Whether the range has more than one address, so that the address is chosen by a hash. */
export function hashesAddress(range: NatRange): boolean {
  const { ipFrom, ipTo } = range;
  return ipFrom !== undefined && ipTo !== undefined && ipTo.value !== ipFrom.value;
}

function randomPort(ip: IPAddress, ports: PortRange): NatChoice {
  return ports.from === ports.to
    ? { kind: "exact", ip, port: ports.from }
    : { kind: "random-port", ip, ports };
}

/** The source-port class an SNAT without a port range stays in (nf_nat_l4proto_unique_tuple). */
export function portClass(port: number): PortRange {
  if (port < 512) return { from: 1, to: 511 };
  if (port < 1024) return { from: 600, to: 1023 };
  return { from: 1024, to: 65535 };
}

function portIn(port: number, ports: PortRange | undefined): boolean {
  return ports === undefined || (port >= ports.from && port <= ports.to);
}

function addrInRange(a: IPAddress, range: NatRange): boolean {
  if (range.ipFrom === undefined) return true;
  const to = range.ipTo ?? range.ipFrom;
  return a.value >= range.ipFrom.value && a.value <= to.value;
}

function chooseAddress(
  range: NatRange,
  tuple: NatTuple,
  manip: NatManip,
  family: IPFamily,
  opts: NatChoiceOptions,
): IPAddress {
  const min = range.ipFrom;
  if (min === undefined) return manip === "dst" ? tuple.dst : tuple.src;
  const max = range.ipTo ?? min;
  if (max.value === min.value) return min;
  const words = family === "IPv4" ? 1 : 4;
  const minW = numericWords(min);
  const maxW = numericWords(max);
  const dstStored = storedWords(tuple.dst);
  const seed = opts.persistent ? 0 : (dstStored[words - 1]! ^ (opts.zone ?? 0)) >>> 0;
  let j = jhash2(storedWords(tuple.src), seed);
  let fullRange = false;
  const out: number[] = [];
  for (let i = 0; i < words; i++) {
    const lo = fullRange ? 0 : minW[i]!;
    const dist = fullRange ? 0xffffffff : (maxW[i]! - minW[i]! + 1) >>> 0;
    const w = (lo + reciprocalScale(j, dist)) >>> 0;
    out.push(w);
    if (w !== maxW[i]) fullRange = true;
    // The kernel xors in the tuple's destination word i *after* writing word i; for DNAT the
    // word it writes is that destination word, so the chosen word goes in, not the original.
    const dstWord = manip === "dst" ? byteSwap(w) : dstStored[i]!;
    if (!opts.persistent) j = (j ^ dstWord) >>> 0;
  }
  return fromNumericWords(out, family);
}

/** The address as 32-bit numbers in network order (the value of each word), always 4 words. */
function numericWords(a: IPAddress): number[] {
  if (a.family === "IPv4") return [a.value, 0, 0, 0];
  const out: number[] = [];
  for (let i = 3; i >= 0; i--) out.push(Number((a.value >> BigInt(32 * i)) & 0xffffffffn));
  return out;
}

/**
 * The words as the kernel's hash reads them: each 4-byte group of the address in memory
 * (network order) loaded as a little-endian u32, i.e. byte-swapped numeric words.
 */
function storedWords(a: IPAddress): number[] {
  return numericWords(a).map(byteSwap);
}

function byteSwap(w: number): number {
  return (
    (((w & 0xff) << 24) | ((w & 0xff00) << 8) | ((w >>> 8) & 0xff00) | ((w >>> 24) & 0xff)) >>> 0
  );
}

function fromNumericWords(words: readonly number[], family: IPFamily): IPAddress {
  if (family === "IPv4") return ipv4(words[0]!);
  let v = 0n;
  for (const w of words) v = (v << 32n) | BigInt(w);
  return ipv6(v);
}
