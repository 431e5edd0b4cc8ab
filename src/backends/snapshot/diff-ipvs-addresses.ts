/**
 * `snapshot diff` in IPVS mode: the addresses on kube-ipvs0. kube-proxy's IPVS proxier binds
 * every service address it serves (ClusterIPs, external IPs, load-balancer ingress IPs) to its
 * dummy interface as a host address, so that the node accepts packets to them and IPVS sees
 * them in INPUT; at each sync it also unbinds what it no longer serves (`legacyBindAddrs` in
 * pkg/proxy/ipvs/proxier.go). An address missing there leaves the virtual server unreachable
 * from the node's own INPUT path; an extra one is an address kube-proxy would remove.
 * Compared as canonical addresses and prefix lengths; the node's interface list comes from the
 * snapshot's `ip -j addr` (a snapshot without it is not judged on this point).
 */
import type { ServicePortIndex } from "./service-port-index.js";
import { DUMMY_DEVICE } from "../../proxiers/ipvs/node-addresses.js";
import { formatIP, parseCIDROrHost } from "../../net/index.js";
import type { Drift, DriftPart } from "./diff.js";
import type { Snapshot } from "./read.js";

/** `10.96.0.1/32` in canonical text (the address as bound, its prefix), or the text when it does not parse. */
function canonical(bound: string): string {
  const c = parseCIDROrHost(bound);
  return c === undefined ? bound : `${formatIP(c.address)}/${c.prefix}`;
}

export function diffIpvsAddresses(
  expected: readonly string[],
  snapshot: Snapshot,
  index: ServicePortIndex,
): DriftPart {
  const drifts: Drift[] = [];
  const none: DriftPart = { drifts, foreignRules: 0, foreignChains: [], servicePorts: [] };
  if (snapshot.interfaces.length === 0) return none;
  const dummy = snapshot.interfaces.find((i) => i.name === DUMMY_DEVICE);
  const want = new Set(expected.map(canonical));
  const have = new Set((dummy?.addresses ?? []).map(canonical));
  const add = (address: string, kind: "missing-address" | "extra-address"): void => {
    const c = parseCIDROrHost(address);
    const service = c === undefined ? undefined : index.serviceAt(formatIP(c.address));
    const owner = service === undefined ? "" : ` (${service})`;
    drifts.push({
      kind,
      family: c?.address.family ?? "IPv4",
      table: "interface",
      chain: DUMMY_DEVICE,
      element: address,
      message:
        kind === "missing-address"
          ? `${DUMMY_DEVICE}: missing address ${address}${owner}`
          : `${DUMMY_DEVICE}: address kube-proxy would unbind: ${address}${owner}`,
    });
  };
  for (const a of [...want].sort()) if (!have.has(a)) add(a, "missing-address");
  for (const a of [...have].sort()) if (!want.has(a)) add(a, "extra-address");
  return none;
}
