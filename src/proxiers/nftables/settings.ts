/** One per-family nftables proxier's settings, on top of the shared ProxierSettings (spec §1). */
import type { Cluster } from "../../model/cluster.js";
import { parseCIDR, type IPFamily } from "../../net/index.js";
import { isLoopbackIP } from "../common/node-port-addresses.js";
import {
  proxierSettings,
  type ProxierOptions,
  type ProxierSettings,
} from "../common/proxier-settings.js";
import { familyWords, type NftFamilyWords } from "./family.js";

/** How the masquerade mark is printed: `0x4000` as upstream tests, `0x00004000` as kube-proxy. */
export type MarkFormat = "short" | "padded";

export interface NftablesOptions extends ProxierOptions {
  readonly masqueradeMarkFormat?: MarkFormat;
}

export interface NftSettings {
  readonly common: ProxierSettings;
  readonly words: NftFamilyWords;
  readonly masqueradeAll: boolean;
  readonly markText: string;
  /** This family's ServiceCIDR ranges, in the order received. */
  readonly serviceCIDRs: readonly string[];
  /** Addresses of `@nodeport-ips`; undefined when every local address takes NodePorts. */
  readonly nodePortIPs: readonly string[] | undefined;
}

export function nftSettings(
  cluster: Cluster,
  family: IPFamily,
  opts: NftablesOptions,
): NftSettings {
  const config = opts.proxyConfig;
  // cmd/kube-proxy (server.go): in nftables mode an empty nodePortAddresses means "primary".
  const withPrimary =
    config !== undefined && config.nodePortAddresses.length === 0
      ? { ...config, nodePortAddresses: ["primary"] }
      : config;
  const common = proxierSettings(cluster, family, {
    node: opts.node,
    ...(withPrimary !== undefined ? { proxyConfig: withPrimary } : {}),
  });
  const nft = common.config.nftables ?? { masqueradeAll: false, masqueradeBit: 14 };
  const mark = 2 ** nft.masqueradeBit;
  const hex = mark.toString(16);
  const npa = common.nodePortAddresses;
  return {
    common: { ...common, masqueradeAll: nft.masqueradeAll, masqueradeMark: mark },
    words: familyWords(family),
    masqueradeAll: nft.masqueradeAll,
    markText: opts.masqueradeMarkFormat === "padded" ? `0x${hex.padStart(8, "0")}` : `0x${hex}`,
    serviceCIDRs: serviceCIDRsOf(cluster, family),
    nodePortIPs: npa.kind === "all" ? undefined : npa.ips.filter((ip) => !isLoopbackIP(ip)),
  };
}

function serviceCIDRsOf(cluster: Cluster, family: IPFamily): string[] {
  const out: string[] = [];
  for (const sc of cluster.serviceCIDRs ?? [])
    for (const c of sc.spec?.cidrs ?? [])
      if (parseCIDR(c, "lenient")?.family === family) out.push(c);
  return out;
}
