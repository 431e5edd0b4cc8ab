/**
 * `snapshot diff` in IPVS mode: the addresses on kube-ipvs0. kube-proxy's IPVS proxier binds
 * every service address it serves (ClusterIPs, external IPs, load-balancer ingress IPs) to its
 * dummy interface as a host address, so that the node accepts packets to them and IPVS sees
 * them in INPUT. At each sync each family's proxier also unbinds the addresses of its family
 * bound there that it no longer serves (`superfluousAddresses`, the bound ones minus the active
 * ones, in pkg/proxy/ipvs/proxier.go), where "bound" leaves out loopback and IPv6 link-local
 * addresses (netlink_linux.go `GetLocalAddresses`). So: an expected address missing there
 * leaves the virtual server unreachable from the node's INPUT path; an extra one, of a family
 * the node runs, is one kube-proxy would remove. Addresses are compared, not prefix lengths (as
 * kube-proxy does). The interfaces come from the snapshot's `ip -j addr`; a snapshot without
 * it is not judged on this point.
 */
import type { ServicePortIndex } from "./service-port-index.js";
import { DUMMY_DEVICE, isValidNodeAddress } from "../../proxiers/ipvs/node-addresses.js";
import { formatIP, parseCIDROrHost, type IPFamily } from "../../net/index.js";
import type { Drift, DriftPart } from "./diff.js";
import type { Snapshot } from "./read.js";

/** Canonical address → the text as bound (`10.96.0.1/32`), for the addresses kube-proxy counts. */
function byAddress(bound: readonly string[], families: readonly IPFamily[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const text of bound) {
    const c = parseCIDROrHost(text);
    if (c === undefined) continue;
    const ip = formatIP(c.address);
    if (families.some((f) => isValidNodeAddress(ip, f)) && !out.has(ip)) out.set(ip, text);
  }
  return out;
}

export function diffIpvsAddresses(
  expected: readonly string[],
  snapshot: Snapshot,
  families: readonly IPFamily[],
  index: ServicePortIndex,
): DriftPart {
  const drifts: Drift[] = [];
  const part: DriftPart = { drifts, foreignRules: 0, foreignChains: [], servicePorts: [] };
  if (snapshot.interfaces.length === 0) return part;
  const dummy = snapshot.interfaces.find((i) => i.name === DUMMY_DEVICE);
  const want = byAddress(expected, families);
  const have = byAddress(dummy?.addresses ?? [], families);
  const add = (ip: string, text: string, kind: "missing-address" | "extra-address"): void => {
    const service = index.serviceAt(ip);
    const owner = service === undefined ? "" : ` (${service})`;
    drifts.push({
      kind,
      family: ip.includes(":") ? "IPv6" : "IPv4",
      table: "interface",
      chain: DUMMY_DEVICE,
      element: text,
      message:
        kind === "missing-address"
          ? `${DUMMY_DEVICE}: missing address ${text}${owner}`
          : `${DUMMY_DEVICE}: address kube-proxy would unbind: ${text}${owner}`,
    });
  };
  for (const [ip, text] of want) if (!have.has(ip)) add(ip, text, "missing-address");
  for (const [ip, text] of have) if (!want.has(ip)) add(ip, text, "extra-address");
  return part;
}
