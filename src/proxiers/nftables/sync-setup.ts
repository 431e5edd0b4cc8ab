/**
 * The setup part of a full sync, in the order kube-proxy adds it to the transaction
 * (pkg/proxy/nftables/proxier.go `setupNFTables`, commit 531be812): the table; once per process
 * an `add`+`delete` of every base chain (so changed priorities apply); `add`+`flush` of every
 * base chain; for each entry of `nftablesJumpChains` the target chain (`add`+`flush` the first
 * time) and the jump rule; the other top-level chains; the masquerade rules; `cluster-ips` and
 * the `cluster-ips-check` rules; `nodeport-ips` (`add`+`delete` when every address takes
 * NodePorts, else `flush` and refill); the no-endpoint maps, `reject-chain` and the check rules;
 * `firewall-ips` and `firewall-check`; the dispatch maps and the `services` rules. The element
 * containers are then read back (`readOrReset`), which only flushes one if listing fails, a
 * failure this model does not have.
 *
 * The rule texts come from `addSetup` (one definition of what the rules say); this file only
 * decides the order.
 */
import { TableBuilder } from "../../netfilter/nftables/builder.js";
import type { Chain, NamedSet, Table } from "../../netfilter/nftables/model.js";
import {
  addSetup,
  BASE_CHAINS,
  CLUSTER_IPS,
  FIREWALL_IPS,
  MARK_FOR_MASQUERADE,
  NO_ENDPOINT_NODEPORTS,
  NO_ENDPOINT_SERVICES,
  NODEPORT_IPS,
  REJECT_CHAIN,
  SERVICE_IPS,
  SERVICE_NODEPORTS,
  TABLE_COMMENT,
  TABLE_NAME,
} from "./setup.js";
import type { NftSettings } from "./settings.js";
import type { NftOperation, SetDecl } from "./sync-operations.js";

/** `nftablesJumpChains` upstream: [target chain, base chain it is jumped to from]. */
const JUMP_CHAINS: readonly (readonly [string, string])[] = [
  ["nodeport-endpoints-check", "filter-input"],
  ["service-endpoints-check", "filter-input"],
  ["service-endpoints-check", "filter-forward"],
  ["service-endpoints-check", "filter-output"],
  ["firewall-check", "filter-prerouting-pre-dnat"],
  ["firewall-check", "filter-output-pre-dnat"],
  ["services", "nat-output"],
  ["services", "nat-prerouting"],
  ["masquerading", "nat-postrouting"],
  ["cluster-ips-check", "filter-forward"],
  ["cluster-ips-check", "filter-output"],
];

const OTHER_TOP_LEVEL = ["services", "cluster-ips-check", "masquerading", MARK_FOR_MASQUERADE];

/** The setup objects of one family, as `addSetup` defines them. */
export function setupTable(s: NftSettings): Table {
  const b = new TableBuilder(s.words.word, TABLE_NAME, TABLE_COMMENT);
  addSetup(b, s);
  return b.build();
}

/** A set's declaration without its elements. */
export function decl(s: NamedSet): SetDecl {
  return {
    kind: s.kind,
    name: s.name,
    keyType: s.keyType,
    flags: s.flags,
    ...(s.valueType !== undefined ? { valueType: s.valueType } : {}),
    ...(s.timeout !== undefined ? { timeout: s.timeout } : {}),
    ...(s.comment !== undefined ? { comment: s.comment } : {}),
  };
}

/**
 * The setup operations of a full sync. `firstSync`: the process has not yet done its one-time
 * `add`+`delete` of the base chains.
 */
export function setupOperations(s: NftSettings, firstSync: boolean): NftOperation[] {
  const t = setupTable(s);
  const chain = (name: string): Chain => {
    const c = t.chains.find((x) => x.name === name);
    if (c === undefined) throw new Error(`setup: no chain ${name}`);
    return c;
  };
  const ops: NftOperation[] = [{ kind: "add-table", comment: TABLE_COMMENT }];
  if (firstSync)
    for (const bc of BASE_CHAINS)
      ops.push({ kind: "add-chain", name: bc.name }, { kind: "delete-chain", name: bc.name });
  for (const bc of BASE_CHAINS) {
    const c = chain(bc.name);
    ops.push(
      { kind: "add-chain", name: c.name, ...(c.base !== undefined ? { base: c.base } : {}) },
      { kind: "flush-chain", name: c.name },
    );
  }
  const created = new Set<string>();
  const ensure = (name: string): void => {
    if (created.has(name)) return;
    created.add(name);
    ops.push({ kind: "add-chain", name }, { kind: "flush-chain", name });
  };
  const rulesOf = (name: string): void => {
    for (const rule of chain(name).rules) ops.push({ kind: "add-rule", chain: name, rule });
  };
  for (const [target, from] of JUMP_CHAINS) {
    ensure(target);
    const rule = chain(from).rules.find((r) => {
      const last = r.statements[r.statements.length - 1];
      return (
        last?.kind === "verdict" && last.verdict.kind === "jump" && last.verdict.chain === target
      );
    });
    if (rule === undefined) throw new Error(`setup: no jump from ${from} to ${target}`);
    ops.push({ kind: "add-rule", chain: from, rule });
  }
  for (const name of OTHER_TOP_LEVEL) ensure(name);
  rulesOf(MARK_FOR_MASQUERADE);
  rulesOf("masquerading");

  const set = (name: string): NamedSet | undefined => t.sets.find((x) => x.name === name);
  const addSet = (name: string): void => {
    const x = set(name);
    if (x === undefined) throw new Error(`setup: no set ${name}`);
    ops.push({ kind: "add-set", set: decl(x) });
  };
  addSet(CLUSTER_IPS);
  rulesOf("cluster-ips-check");

  const nodePortIPs = set(NODEPORT_IPS);
  if (nodePortIPs === undefined) {
    // Every local address takes NodePorts: "add+delete" so that no old set is left behind.
    ops.push(
      {
        kind: "add-set",
        set: {
          kind: "set",
          name: NODEPORT_IPS,
          keyType: [s.words.addressType],
          flags: [],
          comment: "IPs that accept NodePort traffic",
        },
      },
      { kind: "delete-set", setKind: "set", name: NODEPORT_IPS },
    );
  } else {
    ops.push(
      { kind: "add-set", set: decl(nodePortIPs) },
      { kind: "flush-set", setKind: "set", name: NODEPORT_IPS },
    );
    for (const element of nodePortIPs.elements)
      ops.push({ kind: "add-element", set: NODEPORT_IPS, element });
  }

  addSet(NO_ENDPOINT_SERVICES);
  addSet(NO_ENDPOINT_NODEPORTS);
  const reject = chain(REJECT_CHAIN);
  ops.push(
    {
      kind: "add-chain",
      name: REJECT_CHAIN,
      ...(reject.comment !== undefined ? { comment: reject.comment } : {}),
    },
    { kind: "flush-chain", name: REJECT_CHAIN },
  );
  rulesOf(REJECT_CHAIN);
  rulesOf("service-endpoints-check");
  rulesOf("nodeport-endpoints-check");
  addSet(FIREWALL_IPS);
  ensure("firewall-check");
  rulesOf("firewall-check");
  addSet(SERVICE_IPS);
  addSet(SERVICE_NODEPORTS);
  rulesOf("services");
  return ops;
}
