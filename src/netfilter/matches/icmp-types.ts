/** ICMP and ICMPv6 type names as libxt_icmp / libxt_icmp6 know them: name → type, code range. */
export interface IcmpTypeSpec {
  readonly type: number;
  readonly codeMin: number;
  readonly codeMax: number;
}

type Row = readonly [string, number, number, number];

export const ICMP_NAMES: readonly Row[] = [
  ["any", 0xff, 0, 0xff],
  ["echo-reply", 0, 0, 0xff],
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
  ["router-advertisement", 9, 0, 0xff],
  ["router-solicitation", 10, 0, 0xff],
  ["time-exceeded", 11, 0, 0xff],
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
  ["mld-listener-query", 130, 0, 0xff],
  ["mld-listener-report", 131, 0, 0xff],
  ["mld-listener-done", 132, 0, 0xff],
  ["mld-listener-reduction", 132, 0, 0xff],
  ["router-solicitation", 133, 0, 0xff],
  ["router-advertisement", 134, 0, 0xff],
  ["neighbour-solicitation", 135, 0, 0xff],
  ["neighbor-solicitation", 135, 0, 0xff],
  ["neighbour-advertisement", 136, 0, 0xff],
  ["neighbor-advertisement", 136, 0, 0xff],
  ["redirect", 137, 0, 0xff],
];

/** `NAME`, `TYPE` or `TYPE/CODE`; undefined when neither libxt_icmp nor libxt_icmp6 would take it. */
export function parseIcmpType(s: string, names: readonly Row[]): IcmpTypeSpec | undefined {
  const named = names.find(([n]) => n.toLowerCase() === s.toLowerCase());
  if (named !== undefined) return { type: named[1], codeMin: named[2], codeMax: named[3] };
  const m = /^([0-9]{1,3})(?:\/([0-9]{1,3}))?$/.exec(s);
  if (m === null) return undefined;
  const type = Number(m[1]);
  if (type > 255) return undefined;
  if (m[2] === undefined) return { type, codeMin: 0, codeMax: 0xff };
  const code = Number(m[2]);
  return code > 255 ? undefined : { type, codeMin: code, codeMax: code };
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
