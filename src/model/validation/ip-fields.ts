/**
 * IP and CIDR fields as the API server validates them (apimachinery util/validation/ip.go):
 * values are parsed "sloppily" (leading zeros read as decimal, IPv4-mapped IPv6 accepted), then,
 * with the StrictIPCIDRValidation feature gate on (kube-netsim's default, as in current
 * Kubernetes), leading zeros, IPv4-mapped addresses and CIDR bits beyond the prefix are errors.
 * With the gate off they are the warnings older API servers returned. Non-canonical IPv6 text is
 * always a warning.
 */
import {
  bitLength,
  formatCIDR,
  formatIP,
  isIPv4Mapped,
  makeCIDR,
  parseIP,
  parseIPv4Value,
  parseIPv6Value,
  type CIDR,
  type IPAddress,
} from "../../net/index.js";
import { displayFieldPath } from "../issue.js";
import { invalid, type FieldIssue, type FieldPath } from "./field-issue.js";

export interface IPCheck {
  readonly issues: FieldIssue[];
  /** The parsed value when it parses at all (even if strict validation rejected it). */
  readonly ip?: IPAddress;
}

function warning(path: FieldPath, message: string): FieldIssue {
  return { code: "invalid", severity: "warning", message, path };
}

/** Sloppy parse keeping the IPv4-mapped form apart (Go's ParseIPSloppy + To4 rules). */
function parseSloppy(s: string): { ip: IPAddress; mapped: boolean; strict: boolean } | undefined {
  if (!s.includes(":")) {
    // A dotted quad is strict unless an octet has a leading zero; one that parses strictly has
    // the value the lenient parse gives, so the common case parses once.
    const strictIP = parseIP(s, "strict");
    if (strictIP !== undefined) return { ip: strictIP, mapped: false, strict: true };
    const lenient = parseIP(s, "lenient");
    return lenient === undefined ? undefined : { ip: lenient, mapped: false, strict: false };
  }
  const ip = parseIP(s, "lenient");
  if (ip === undefined) return undefined;
  const mapped = s.includes(":") && isIPv4Mapped(parseIPv6Value(s, "lenient") ?? 0n);
  const strictValue = s.includes(":") ? parseIPv6Value(s, "strict") : parseIP(s, "strict");
  return { ip, mapped, strict: strictValue !== undefined };
}

export const VALID_IP_MESSAGE = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

/** `IsValidIPForLegacyField` + `GetWarningsForIP`. */
export function checkIP(path: FieldPath, value: string, strict: boolean): IPCheck {
  const p = parseSloppy(value);
  if (p === undefined) return { issues: [invalid(path, value, VALID_IP_MESSAGE)] };
  const issues: FieldIssue[] = [];
  if (!p.strict || p.mapped) {
    if (strict) {
      if (!p.strict) issues.push(invalid(path, value, "must not have leading 0s"));
      else issues.push(invalid(path, value, "must not be an IPv4-mapped IPv6 address"));
    } else
      issues.push(
        warning(
          path,
          `${displayFieldPath(path)}: non-standard IP address ${JSON.stringify(value)} will be considered invalid in a future Kubernetes release: use ${JSON.stringify(formatIP(p.ip))}`,
        ),
      );
  } else if (p.ip.family === "IPv6" && formatIP(p.ip) !== value) {
    issues.push(
      warning(
        path,
        `${displayFieldPath(path)}: IPv6 address ${JSON.stringify(value)} should be in RFC 5952 canonical format (${JSON.stringify(formatIP(p.ip))})`,
      ),
    );
  }
  return { issues, ip: p.ip };
}

export interface CIDRCheck {
  readonly issues: FieldIssue[];
  readonly cidr?: CIDR;
}

export const VALID_CIDR_MESSAGE = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";

/** `IsValidCIDRForLegacyField` + `GetWarningsForCIDR` (ParseCIDRSloppy also allows a 0-padded prefix). */
export function checkCIDR(path: FieldPath, value: string, strict: boolean): CIDRCheck {
  const slash = value.indexOf("/");
  const bad = { issues: [invalid(path, value, VALID_CIDR_MESSAGE)] };
  if (slash === -1) return bad;
  const addrText = value.slice(0, slash);
  const prefixText = value.slice(slash + 1);
  const p = parseSloppy(addrText);
  if (p === undefined || !/^[0-9]{1,3}$/.test(prefixText)) return bad;
  const prefix = Number(prefixText);
  if (prefix > (p.mapped ? 128 : bitLength(p.ip.family))) return bad;
  // An IPv4-mapped address with a /96+ prefix is an IPv4 CIDR to Go.
  const effPrefix = p.mapped ? prefix - 96 : prefix;
  if (effPrefix < 0) return bad;
  const cidr = makeCIDR(p.ip, effPrefix);
  const issues: FieldIssue[] = [];
  const leadingZeros = !p.strict || (prefixText.length > 1 && prefixText.startsWith("0"));
  const hostBits = cidr.address.value !== cidr.network.value;
  const where = displayFieldPath(path);
  if (strict) {
    if (leadingZeros)
      issues.push(invalid(path, value, "must not have leading 0s in IP or prefix length"));
    else if (p.mapped)
      issues.push(invalid(path, value, "must not have an IPv4-mapped IPv6 address"));
    else if (hostBits)
      issues.push(invalid(path, value, "must not have bits set beyond the prefix length"));
  } else {
    if (hostBits)
      issues.push(
        warning(
          path,
          `${where}: CIDR value ${JSON.stringify(value)} is ambiguous in this context (should be ${JSON.stringify(formatCIDR(cidr))} or ${JSON.stringify(`${formatIP(cidr.address)}/${bitLength(cidr.family)}`)}?)`,
        ),
      );
    if (leadingZeros || p.mapped)
      issues.push(
        warning(
          path,
          `${where}: non-standard CIDR value ${JSON.stringify(value)} will be considered invalid in a future Kubernetes release: use ${JSON.stringify(formatCIDR(cidr))}`,
        ),
      );
  }
  if (
    issues.length === 0 &&
    cidr.family === "IPv6" &&
    `${formatIP(cidr.address)}/${prefix}` !== value
  )
    issues.push(
      warning(
        path,
        `${where}: IPv6 CIDR value ${JSON.stringify(value)} should be in RFC 5952 canonical format (${JSON.stringify(`${formatIP(cidr.address)}/${prefix}`)})`,
      ),
    );
  return { issues, cidr };
}

/**
 * Whether `text` is an IPv4 address checkEndpointIP has nothing to say about for an IPv4
 * endpoint: a dotted quad without leading zeros (valid in strict and lenient validation alike)
 * that nonSpecialIPProblems accepts. Most endpoint addresses are: this answers without the
 * objects the general check builds (a load checks every address of every slice).
 */
export function isOrdinaryIPv4(text: string): boolean {
  const v = parseIPv4Value(text, "strict");
  return (
    v !== undefined && v !== 0 && v >>> 24 !== 127 && v >>> 16 !== 0xa9fe && v >>> 8 !== 0xe00000
  );
}

/** `ValidateNonSpecialIP`: endpoint addresses may not be unspecified, loopback or link-local. */
export function nonSpecialIPProblems(ip: IPAddress, text: string): string[] {
  const errs: string[] = [];
  if (ip.family === "IPv4") {
    const v = ip.value;
    if (v === 0) errs.push(`may not be unspecified (${text})`);
    if (v >>> 24 === 127) errs.push("may not be in the loopback range (127.0.0.0/8, ::1/128)");
    if (v >>> 16 === 0xa9fe)
      errs.push("may not be in the link-local range (169.254.0.0/16, fe80::/10)");
    if (v >>> 8 === 0xe00000)
      errs.push("may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)");
  } else {
    const v = ip.value;
    if (v === 0n) errs.push(`may not be unspecified (${text})`);
    if (v === 1n) errs.push("may not be in the loopback range (127.0.0.0/8, ::1/128)");
    if (v >> 118n === 0x3fan)
      errs.push("may not be in the link-local range (169.254.0.0/16, fe80::/10)");
    if (((v >> 112n) & 0xff0fn) === 0xff02n)
      errs.push("may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)");
  }
  return errs;
}
