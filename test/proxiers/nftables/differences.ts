/**
 * How the nftables proxier's dataplane may legitimately differ from the iptables proxier's
 * (shared/spec/kube-proxy-nftables.md), as data. The differential property requires equal
 * endpoint sets unless one of these applies and its relation holds; differences that never
 * change the endpoint set are listed with `endpointSets: "equal"`.
 */
import type { Observed } from "../../differential/differences.js";
import type { PacketScenario } from "../../differential/scenario.js";

export interface NftDifference {
  readonly id: string;
  readonly spec: string;
  readonly summary: string;
  readonly endpointSets: "differ" | "equal";
  readonly applies?: (p: PacketScenario) => boolean;
  readonly relation?: (iptables: Observed, nftables: Observed, p: PacketScenario) => boolean;
}

export const NFT_DIFFERENCES: readonly NftDifference[] = [
  {
    id: "no-localhost-nodeports",
    spec: "§0.1 item 9, §5.4",
    summary:
      "NodePorts are never served on 127.0.0.1 / ::1 in nftables mode (iptables serves them on 127.0.0.1 with localhostNodePorts)",
    endpointSets: "differ",
    applies: (p) => p.destination === "node-port-localhost",
    relation: (_ipt, nft) => nft.endpoints.size === 0,
  },
  {
    id: "cluster-ip-other-port-rejected",
    spec: "§3.3",
    summary:
      "a ClusterIP on a port no service uses is REJECTed by cluster-ips-check (iptables lets it go on unmatched)",
    endpointSets: "equal",
  },
  {
    id: "firewall-without-endpoints",
    spec: "§5.2 item 4",
    summary:
      "LB source ranges are enforced even when the service has no endpoints (iptables writes no KUBE-FW chain then); both deliver nowhere",
    endpointSets: "equal",
  },
];

export function explainNftDisagreement(
  p: PacketScenario,
  iptables: Observed,
  nftables: Observed,
): NftDifference[] {
  return NFT_DIFFERENCES.filter(
    (d) =>
      d.endpointSets === "differ" &&
      d.applies !== undefined &&
      d.applies(p) &&
      d.relation !== undefined &&
      d.relation(iptables, nftables, p),
  );
}
