/** Ports, port ranges and the three Kubernetes protocols. */

export type Protocol = "TCP" | "UDP" | "SCTP";
export const PROTOCOLS: readonly Protocol[] = ["TCP", "UDP", "SCTP"];

/** The lower-case spelling iptables, ipvsadm and trace output use. */
export type LowerProtocol = "tcp" | "udp" | "sctp";

export function isProtocol(s: unknown): s is Protocol {
  return s === "TCP" || s === "UDP" || s === "SCTP";
}

export function toLowerProtocol(p: Protocol): LowerProtocol {
  return p.toLowerCase() as LowerProtocol;
}

/** Accepts any case (`tcp`, `TCP`, `Sctp`) and returns the Kubernetes spelling. */
export function parseProtocol(s: string): Protocol | undefined {
  const up = s.toUpperCase();
  return isProtocol(up) ? up : undefined;
}

export interface PortRange {
  readonly from: number;
  readonly to: number;
}

export function isValidPort(n: unknown): n is number {
  return typeof n === "number" && Number.isInteger(n) && n >= 1 && n <= 65535;
}

/** Parses a decimal port 0..65535 with no sign, spaces or leading zeros. */
export function parsePortNumber(s: string): number | undefined {
  if (!/^(0|[1-9][0-9]{0,4})$/.test(s)) return undefined;
  const n = Number(s);
  return n <= 65535 ? n : undefined;
}

/** `80`, or `1000:2000` (iptables) / `1000-2000` (ipset) ranges. */
export function parsePortRange(s: string, separator: ":" | "-" = ":"): PortRange | undefined {
  const i = s.indexOf(separator);
  if (i === -1) {
    const p = parsePortNumber(s);
    return p === undefined ? undefined : { from: p, to: p };
  }
  const from = i === 0 ? 0 : parsePortNumber(s.slice(0, i));
  const to = i === s.length - 1 ? 65535 : parsePortNumber(s.slice(i + 1));
  if (from === undefined || to === undefined || from > to) return undefined;
  return { from, to };
}

export function portInRange(port: number, r: PortRange): boolean {
  return port >= r.from && port <= r.to;
}

/** IANA service names as the API server validates them (`IsValidPortName`). */
export function portNameProblems(name: string): string[] {
  const problems: string[] = [];
  if (name.length > 15) problems.push("must be no more than 15 characters");
  if (!/^[-a-z0-9]+$/.test(name))
    problems.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(name)) problems.push("must contain at least one letter (a-z)");
  if (name.includes("--")) problems.push("must not contain consecutive hyphens");
  if (name.startsWith("-") || name.endsWith("-"))
    problems.push("must not begin or end with a hyphen");
  return problems;
}
