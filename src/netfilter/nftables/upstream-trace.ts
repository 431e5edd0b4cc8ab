/**
 * kube-proxy's nftables unit-test tracer (`tracePacket` in pkg/proxy/nftables/helpers_test.go,
 * spec §9), over our evaluator: `filter-prerouting-pre-dnat` (stop on a verdict), then
 * `nat-prerouting`; the destination becomes the first DNAT target's address (the port is
 * kept, as upstream does); then `filter-forward` (stop on a verdict) and `filter-input`, always
 * both. Outputs: DNAT destinations in vmap order, then DROP / REJECT, joined with ", ";
 * `masq`: some branch passed `mark-for-masquerade`. `ct state` is new.
 */
import { canonicalIP, joinHostPort } from "../../net/index.js";
import { NftEvaluator, type Branch } from "./evaluate.js";
import type { NftPacket } from "./match-atom.js";
import type { Table } from "./model.js";

export interface UpstreamNftPacket {
  readonly protocol: string;
  readonly sourceIP: string;
  readonly destIP: string;
  readonly destPort: number;
}

export interface UpstreamNftResult {
  readonly output: string;
  readonly masq: boolean;
  /** `chain#n` of every rule that matched, over all branches, in walk order. */
  readonly path: readonly string[];
}

export function traceNftUpstreamStyle(
  table: Table,
  localIPs: readonly string[],
  flow: UpstreamNftPacket,
): UpstreamNftResult {
  const local = new Set(localIPs.map((ip) => canonicalIP(ip) ?? ip));
  const isLocal = (ip: string): boolean => local.has(canonicalIP(ip) ?? ip);
  const ev = new NftEvaluator(table, { isLocal });
  let packet: NftPacket = {
    family: table.family === "ip6" ? "ip6" : "ip",
    protocol: flow.protocol === "" ? "tcp" : flow.protocol,
    src: flow.sourceIP,
    dst: flow.destIP,
    sport: 40000,
    dport: flow.destPort,
    mark: 0,
    ctState: "new",
    ctStatus: [],
  };
  const outputs: string[] = [];
  const path: string[] = [];
  let masq = false;
  const note = (branches: readonly Branch[]): boolean => {
    let verdict = false;
    for (const b of branches) {
      path.push(...b.path);
      if (b.path.some((p) => p.startsWith("mark-for-masquerade#"))) masq = true;
      if (b.final.kind === "drop" || b.final.kind === "reject") {
        outputs.push(b.final.kind.toUpperCase());
        verdict = true;
      }
    }
    return verdict;
  };
  if (note(ev.runBase("filter-prerouting-pre-dnat", packet)))
    return { output: outputs.join(", "), masq, path };
  const nat = ev.runBase("nat-prerouting", packet);
  note(nat);
  const dnats = nat.flatMap((b) =>
    b.final.kind === "nat" && b.final.nat.kind === "dnat" && b.final.nat.address !== undefined
      ? [{ address: b.final.nat.address, port: b.final.nat.port }]
      : [],
  );
  for (const d of dnats)
    outputs.push(d.port === undefined ? d.address : joinHostPort(d.address, d.port));
  const first = dnats[0];
  if (first !== undefined) packet = { ...packet, dst: first.address };
  if (!note(ev.runBase("filter-forward", packet))) note(ev.runBase("filter-input", packet));
  return { output: outputs.join(", "), masq, path };
}
