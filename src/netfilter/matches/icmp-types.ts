/**
 * ICMP and ICMPv6 type names as libxt_icmp / libip6t_icmp6 of iptables 1.8.9 know them: name →
 * type, code range (every name is checked on the kernel; 1.8.9 has no mld-listener-* names).
 */
import { parseCNumber } from "./values.js";

export interface IcmpTypeSpec {
  readonly type: number;
  readonly codeMin: number;
  readonly codeMax: number;
}

type Row = readonly [string, number, number, number];

export const ICMP_NAMES: readonly Row[] = [
  ["any", 0xff, 0, 0xff],
  ["echo-reply", 0, 0, 0xff],
  ["pong", 0, 0, 0xff],
  ["destination-unreachable", 3, 0, 0xff],
  ["network-unreachable", 3, 0, 0],
  ["host-unreachable", 3, 1, 1],
  ["protocol-unreachable", 3, 2, 2],
  ["port-unreachable", 3, 3, 3],
  ["fragmentation-needed", 3, 4, 4],
  ["source-route-failed", 3, 5, 5],
  ["network-unknown", 3, 6, 6],
  ["host-unknown", 3, 7, 7],
  ["network-prohibited", 3, 9, 9],
  ["host-prohibited", 3, 10, 10],
  ["TOS-network-unreachable", 3, 11, 11],
  ["TOS-host-unreachable", 3, 12, 12],
  ["communication-prohibited", 3, 13, 13],
  ["host-precedence-violation", 3, 14, 14],
  ["precedence-cutoff", 3, 15, 15],
  ["source-quench", 4, 0, 0xff],
  ["redirect", 5, 0, 0xff],
  ["network-redirect", 5, 0, 0],
  ["host-redirect", 5, 1, 1],
  ["TOS-network-redirect", 5, 2, 2],
  ["TOS-host-redirect", 5, 3, 3],
  ["echo-request", 8, 0, 0xff],
  ["ping", 8, 0, 0xff],
  ["router-advertisement", 9, 0, 0xff],
  ["router-solicitation", 10, 0, 0xff],
  ["time-exceeded", 11, 0, 0xff],
  ["ttl-exceeded", 11, 0, 0xff],
  ["ttl-zero-during-transit", 11, 0, 0],
  ["ttl-zero-during-reassembly", 11, 1, 1],
  ["parameter-problem", 12, 0, 0xff],
  ["ip-header-bad", 12, 0, 0],
  ["required-option-missing", 12, 1, 1],
  ["timestamp-request", 13, 0, 0xff],
  ["timestamp-reply", 14, 0, 0xff],
  ["address-mask-request", 17, 0, 0xff],
  ["address-mask-reply", 18, 0, 0xff],
];

export const ICMPV6_NAMES: readonly Row[] = [
  ["destination-unreachable", 1, 0, 0xff],
  ["no-route", 1, 0, 0],
  ["communication-prohibited", 1, 1, 1],
  ["beyond-scope", 1, 2, 2],
  ["address-unreachable", 1, 3, 3],
  ["port-unreachable", 1, 4, 4],
  ["failed-policy", 1, 5, 5],
  ["reject-route", 1, 6, 6],
  ["packet-too-big", 2, 0, 0xff],
  ["time-exceeded", 3, 0, 0xff],
  ["ttl-exceeded", 3, 0, 0xff],
  ["ttl-zero-during-transit", 3, 0, 0],
  ["ttl-zero-during-reassembly", 3, 1, 1],
  ["parameter-problem", 4, 0, 0xff],
  ["bad-header", 4, 0, 0],
  ["unknown-header-type", 4, 1, 1],
  ["unknown-option", 4, 2, 2],
  ["echo-request", 128, 0, 0xff],
  ["ping", 128, 0, 0xff],
  ["echo-reply", 129, 0, 0xff],
  ["pong", 129, 0, 0xff],
  ["router-solicitation", 133, 0, 0xff],
  ["router-advertisement", 134, 0, 0xff],
  ["neighbour-solicitation", 135, 0, 0xff],
  ["neighbor-solicitation", 135, 0, 0xff],
  ["neighbour-advertisement", 136, 0, 0xff],
  ["neighbor-advertisement", 136, 0, 0xff],
  ["redirect", 137, 0, 0xff],
];

/**
 * `NAME`, `TYPE` or `TYPE/CODE`, as libxt_icmp and libip6t_icmp6 read it; undefined when they
 * refuse it. A name may be cut short and written in any case, as long as it is the start of
 * exactly one name in the table (`echo-req`; `echo` is ambiguous); numbers are libxtables
 * numbers up to 255 (`010` is 8, `0x8` is 8, `08` is refused).
 */
export function parseIcmpType(s: string, names: readonly Row[]): IcmpTypeSpec | undefined {
  const lower = s.toLowerCase();
  const named = names.filter(([n]) => n.toLowerCase().startsWith(lower));
  if (named.length === 1) {
    const [, type, codeMin, codeMax] = named[0] as Row;
    return { type, codeMin, codeMax };
  }
  if (named.length > 1) return undefined;
  const slash = s.indexOf("/");
  const type = parseCNumber(slash === -1 ? s : s.slice(0, slash));
  if (type === undefined || type > 255) return undefined;
  if (slash === -1) return { type, codeMin: 0, codeMax: 0xff };
  const code = parseCNumber(s.slice(slash + 1));
  return code === undefined || code > 255 ? undefined : { type, codeMin: code, codeMax: code };
}

/** The save form: `any`, `TYPE`, or `TYPE/CODE` (only the low code is printed). */
export function formatIcmpType(t: IcmpTypeSpec, withAny: boolean): string {
  if (withAny && t.type === 0xff) return "any";
  return t.codeMin === 0 && t.codeMax === 0xff ? `${t.type}` : `${t.type}/${t.codeMin}`;
}

export function icmpTypeHolds(
  t: IcmpTypeSpec,
  type: number | undefined,
  code: number | undefined,
  withAny: boolean,
): boolean {
  if (withAny && t.type === 0xff) return true;
  return type === t.type && (code ?? 0) >= t.codeMin && (code ?? 0) <= t.codeMax;
}
