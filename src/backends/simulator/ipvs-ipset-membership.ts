/**
 * Membership tests over the IPVS proxier's own ipsets (the five set types kube-proxy uses), for
 * the tracer's `-m set` matches. Kernel semantics kept: hash types compare the protocol with
 * the port; bitmap:port matches TCP and UDP packets only (which is why SCTP NodePorts need the
 * hash:ip,port sets); hash:ip,port,net tests the third address against the CIDR.
 */
import { cidrContains, parseCIDR, parseIP, type IPAddress } from "../../net/index.js";
import type { IpsetKey, IpsetKeyPart, L4Protocol } from "../../netfilter/model.js";
import type { IpsetMembership } from "../../netfilter/trace/dataplane.js";
import type { IpvsIpset } from "../../proxiers/ipvs/index.js";
import { assertNever } from "../../util/assert-never.js";

function ipOf(part: IpsetKeyPart | undefined): IPAddress | undefined {
  if (part === undefined) return undefined;
  switch (part.kind) {
    case "ip":
    case "endpoint":
      return part.ip;
    case "port":
      return undefined;
    default:
      return assertNever(part);
  }
}

function portOf(
  part: IpsetKeyPart | undefined,
): { protocol: L4Protocol; port: number } | undefined {
  if (part === undefined) return undefined;
  switch (part.kind) {
    case "port":
    case "endpoint":
      return { protocol: part.protocol, port: part.port };
    case "ip":
      return undefined;
    default:
      return assertNever(part);
  }
}

const key = (a: IPAddress) => `${a.family}/${a.value.toString()}`;

function matcher(set: IpvsIpset): (k: IpsetKey) => boolean {
  const entries = set.entries.map((e) => e.split(","));
  switch (set.type) {
    case "bitmap:port": {
      const ports = new Set(entries.map((e) => Number(e[0])));
      return (k) => {
        const p = portOf(k[0]);
        return (
          p !== undefined && (p.protocol === "tcp" || p.protocol === "udp") && ports.has(p.port)
        );
      };
    }
    case "hash:ip": {
      const ips = new Set(entries.map((e) => key(parseIP(e[0] ?? "", "lenient")!)));
      return (k) => {
        const a = ipOf(k[0]);
        return a !== undefined && ips.has(key(a));
      };
    }
    case "hash:ip,port":
    case "hash:ip,port,ip":
    case "hash:ip,port,net": {
      const parsed = entries.map((e) => ({
        ip: key(parseIP(e[0] ?? "", "lenient")!),
        protoPort: e[1] ?? "",
        third: e[2],
      }));
      return (k) => {
        const a = ipOf(k[0]);
        const p = portOf(k[1]);
        if (a === undefined || p === undefined) return false;
        const protoPort = `${p.protocol}:${p.port}`;
        return parsed.some((e) => {
          if (e.ip !== key(a) || e.protoPort !== protoPort) return false;
          if (set.type === "hash:ip,port") return true;
          const third = ipOf(k[2]);
          if (third === undefined || e.third === undefined) return false;
          if (set.type === "hash:ip,port,ip")
            return key(parseIP(e.third, "lenient")!) === key(third);
          const cidr = parseCIDR(e.third, "lenient");
          return cidr !== undefined && cidrContains(cidr, third);
        });
      };
    }
    default:
      return assertNever(set.type);
  }
}

export function ipvsIpsetMembership(sets: readonly IpvsIpset[]): IpsetMembership {
  const byName = new Map(sets.map((s) => [s.name, matcher(s)]));
  return {
    test(name, k) {
      const m = byName.get(name);
      return m === undefined ? undefined : m(k);
    },
  };
}
