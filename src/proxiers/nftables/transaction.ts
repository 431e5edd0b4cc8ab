/**
 * The transaction a first full sync sends to `nft -f` on a node without a kube-proxy table
 * (spec §8): `add table`; an `add`+`delete` of every base chain (so changed priorities apply);
 * `add`+`flush` of every chain; the sets and maps, with `flush` of the containers whose
 * elements kube-proxy reconciles (on an empty node listing them fails, so they are flushed);
 * then the rules and the elements. The grouping is ours: kube-proxy interleaves the same
 * operations service by service, in Go map order, to the same effect.
 */
import type { Table } from "../../netfilter/nftables/model.js";
import {
  chainAddLine,
  elementAddLine,
  ruleAddLine,
  setAddLine,
  tableAddLine,
} from "../../netfilter/nftables/knftables-text.js";
import {
  CLUSTER_IPS,
  FIREWALL_IPS,
  NO_ENDPOINT_NODEPORTS,
  NO_ENDPOINT_SERVICES,
  NODEPORT_IPS,
  SERVICE_IPS,
  SERVICE_NODEPORTS,
} from "./setup.js";

/** Containers kube-proxy resets at the start of every full sync, plus `nodeport-ips`. */
const FLUSHED: ReadonlySet<string> = new Set([
  CLUSTER_IPS,
  NODEPORT_IPS,
  SERVICE_IPS,
  FIREWALL_IPS,
  NO_ENDPOINT_SERVICES,
  NO_ENDPOINT_NODEPORTS,
  SERVICE_NODEPORTS,
]);

export function fullSyncTransaction(t: Table): string {
  const prefix = `${t.family} ${t.name}`;
  const lines = [tableAddLine(t)];
  const bases = t.chains.filter((c) => c.base !== undefined);
  for (const c of bases)
    lines.push(`add chain ${prefix} ${c.name}`, `delete chain ${prefix} ${c.name}`);
  for (const c of t.chains) lines.push(chainAddLine(t, c), `flush chain ${prefix} ${c.name}`);
  for (const s of t.sets) {
    lines.push(setAddLine(t, s));
    if (FLUSHED.has(s.name)) lines.push(`flush ${s.kind} ${prefix} ${s.name}`);
  }
  if (!t.sets.some((s) => s.name === NODEPORT_IPS)) {
    // Match-all nodePortAddresses: "add+delete" makes sure no stale set is left.
    lines.push(
      `add set ${prefix} ${NODEPORT_IPS} { type ${t.family === "ip6" ? "ipv6_addr" : "ipv4_addr"} ; comment "IPs that accept NodePort traffic" ; }`,
      `delete set ${prefix} ${NODEPORT_IPS}`,
    );
  }
  for (const c of t.chains) for (const r of c.rules) lines.push(ruleAddLine(t, c.name, r));
  for (const s of t.sets) for (const e of s.elements) lines.push(elementAddLine(t, s.name, e));
  return lines.map((l) => `${l}\n`).join("");
}
