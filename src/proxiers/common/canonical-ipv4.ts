/**
 * A quick test for the usual address text: a plain dotted quad is already what `formatIP`
 * prints, so the callers (endpoints, cluster IPs: 100,000+ per large render) skip parsing it into
 * an object and printing it again.
 */

/** Four decimal octets 0-255 without leading zeros: what formatIP prints for IPv4. */
export function isCanonicalIPv4(s: string): boolean {
  let octets = 0;
  let digits = 0;
  let value = 0;
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 46; /* "." ends the last octet */
    if (c === 46) {
      if (digits === 0 || value > 255) return false;
      octets++;
      digits = 0;
      value = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits === 1 && value === 0) return false; // leading zero
      value = value * 10 + (c - 48);
      if (++digits > 3) return false;
    } else {
      return false;
    }
  }
  return octets === 4;
}
