/**
 * `domainNames` peers cannot be resolved offline (spec cluster-network-policy.md §2.4, O4). The
 * user may supply what the cluster's resolver would answer, as a map from DNS names to addresses
 * (`--dns-map FILE`, a YAML mapping `name: [ip, ...]`). A peer is resolved only when every one of
 * its names has an entry (a wildcard needs at least one name under it); otherwise verdicts that
 * depend on it are "unknown", never a silent allow or deny.
 */
import { parseIP, type IPAddress } from "../net/address.js";

/** Lower-case names without a trailing dot → addresses. */
export type DnsMap = ReadonlyMap<string, readonly IPAddress[]>;

function canonicalName(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

/** The DomainName rule: exact names match themselves; `*.x` matches one or more labels before x. */
export function domainNameMatches(pattern: string, name: string): boolean {
  const p = canonicalName(pattern);
  const n = canonicalName(name);
  if (!p.startsWith("*.")) return p === n;
  const suffix = p.slice(1); // ".example.com"
  return n.length > suffix.length && n.endsWith(suffix);
}

export interface DomainResolution {
  /** Undefined when some name has no entry. */
  readonly addresses: readonly IPAddress[] | undefined;
  readonly unresolved: readonly string[];
}

export function resolveDomainNames(
  map: DnsMap | undefined,
  names: readonly string[],
): DomainResolution {
  if (map === undefined) return { addresses: undefined, unresolved: [...names] };
  const addresses: IPAddress[] = [];
  const unresolved: string[] = [];
  for (const pattern of names) {
    let found = false;
    for (const [name, ips] of map)
      if (domainNameMatches(pattern, name)) {
        found = true;
        addresses.push(...ips);
      }
    if (!found) unresolved.push(pattern);
  }
  return { addresses: unresolved.length === 0 ? addresses : undefined, unresolved };
}

/**
 * A DNS map from decoded YAML/JSON: a mapping of names to an address or a list of addresses.
 * Returns the problems (one line each, naming the entry) instead of throwing.
 */
export function parseDnsMap(value: unknown): { map: DnsMap; problems: string[] } {
  const problems: string[] = [];
  const map = new Map<string, IPAddress[]>();
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return { map, problems: ["expected a mapping of DNS names to IP addresses"] };
  for (const [name, raw] of Object.entries(value as Record<string, unknown>)) {
    const list = Array.isArray(raw) ? (raw as unknown[]) : [raw];
    const ips: IPAddress[] = [];
    list.forEach((v, i) => {
      const ip = typeof v === "string" ? parseIP(v, "strict") : undefined;
      if (ip === undefined)
        problems.push(
          `${name}${Array.isArray(raw) ? `[${i}]` : ""}: not an IP address: ${JSON.stringify(v)}`,
        );
      else ips.push(ip);
    });
    const key = canonicalName(name);
    map.set(key, [...(map.get(key) ?? []), ...ips]);
  }
  return { map, problems };
}
