/**
 * The CNI `portmap` plugin's iptables backend (containernetworking/plugins, spec Part B).
 *
 * Theory. On ADD the plugin, per container address family,
 * 1. (snat, no externalSetMarkChain) ensures CNI-HOSTPORT-SETMARK (sets the masquerade mark bit)
 *    and CNI-HOSTPORT-MASQ (masquerades marked packets), the latter jumped to from the top of
 *    POSTROUTING so the bridge plugin's own masquerade rules cannot pre-empt it;
 * 2. ensures CNI-HOSTPORT-DNAT, jumped to from PREROUTING and OUTPUT for LOCAL destinations;
 * 3. fills CNI-DN-<hash of network name + container ID> with, per mapping: a hairpin mark rule
 *    (source = the container's whole subnet), an IPv4 localhost mark rule, and the DNAT; and
 *    appends multiport jumps (per protocol, ≤ 15 ports each) to CNI-HOSTPORT-DNAT.
 * Every rule goes in with "insert unique" (skipped when an identical rule exists). There is no
 * port reservation: the first container's jump matches first ("last-write-wins" in the docs is
 * the rule order's opposite; see Part C).
 */
import { formatCIDRAsWritten, formatIP, parseCIDR, parseIP } from "../net/index.js";
import type { LowerProtocol } from "../net/index.js";
import {
  CNI_HOSTPORT_DNAT_CHAIN,
  CNI_HOSTPORT_MASQ_CHAIN,
  CNI_HOSTPORT_SETMARK_CHAIN,
  portmapDnatChainName,
} from "./chain-names.js";
import type { IPFamily } from "../net/index.js";
import { SharedRuleValues } from "../netfilter/build/typed-rule-builder.js";
import type { Rule } from "../netfilter/model.js";
import {
  ArgvRuleWriter,
  PortmapConditionsError,
  natRule,
  readConditions,
  type ArgvRule,
} from "./argv-rule.js";
import { editNatTable, findChain, jumpsTo, type NatEditor, type NatTable } from "./nat-table.js";
import { inputIssue, ValidationError } from "../issue/validation-error.js";

export interface PortmapConfig {
  /** The CNI network name (`name` of the network configuration). */
  readonly name: string;
  /** Default true. */
  readonly snat?: boolean;
  /** Default 13; 0–31. */
  readonly markMasqBit?: number;
  /** e.g. `KUBE-MARK-MASQ`; replaces CNI-HOSTPORT-SETMARK/MASQ. */
  readonly externalSetMarkChain?: string;
  readonly conditionsV4?: readonly string[];
  readonly conditionsV6?: readonly string[];
  readonly masqAll?: boolean;
}

/** One `runtimeConfig.portMappings[]` entry (protocol in lower case, as CNI passes it). */
export interface PortmapEntry {
  readonly hostPort: number;
  readonly containerPort: number;
  readonly protocol: LowerProtocol;
  readonly hostIP?: string;
}

/** A chain as the plugin describes it: its rules and the rules that jump to it. */
export interface PortmapChain {
  readonly name: string;
  readonly entryChains: readonly string[];
  /** Argument vectors, without the trailing `-j <name>`. */
  readonly entryRules: readonly (readonly string[])[];
  readonly rules: readonly (readonly string[])[];
  readonly prependEntry: boolean;
  /**
   * The same rules built as data: `rules[i]` and `entries[i]` (without the user's conditions
   * and the jump) are made with the argument vectors above; `conditions` are the user's words
   * every entry rule ends with before its jump.
   */
  readonly built: {
    readonly family: IPFamily;
    readonly rules: readonly ArgvRule[];
    readonly entries: readonly ArgvRule[];
    readonly conditions: readonly string[];
  };
}

/** A chain's argument vectors and typed rules from its written rules. */
function chainOf(
  c: Omit<PortmapChain, "rules" | "entryRules" | "built">,
  family: IPFamily,
  rules: readonly ArgvRule[],
  entries: readonly ArgvRule[],
  conditions: readonly string[] = [],
): PortmapChain {
  return {
    name: c.name,
    entryChains: c.entryChains,
    entryRules: entries.map((r) => [...r.argv, ...conditions]),
    rules: rules.map((r) => r.argv),
    prependEntry: c.prependEntry,
    built: { family, rules, entries, conditions },
  };
}

/** The shared chains hold no address: their rules are the same in both families. */
const ANY_FAMILY: IPFamily = "IPv4";

function writer(family: IPFamily): ArgvRuleWriter {
  return new ArgvRuleWriter(new SharedRuleValues(family));
}

export const DEFAULT_MARK_MASQ_BIT = 13;
const MULTIPORT_MAX = 15;
const MAX_COMMENT_LENGTH = 256;

/** A portmap configuration or port mapping the plugin refuses, in its words: bad input. */
export class PortmapConfigError extends ValidationError {
  constructor(message: string) {
    super([inputIssue("invalid", message)]);
    this.name = "PortmapConfigError";
  }
}

function markDef(bit: number): string {
  const v = `0x${(2 ** bit).toString(16)}`;
  return `${v}/${v}`;
}

export function validatePortmapConfig(c: PortmapConfig, entries: readonly PortmapEntry[]): void {
  const bit = c.markMasqBit ?? DEFAULT_MARK_MASQ_BIT;
  if (!Number.isInteger(bit) || bit < 0 || bit > 31)
    throw new PortmapConfigError(`MasqMarkBit must be between 0 and 31`);
  if (c.markMasqBit !== undefined && c.externalSetMarkChain !== undefined)
    throw new PortmapConfigError(`Cannot specify externalSetMarkChain and markMasqBit`);
  for (const e of entries)
    if (e.hostPort <= 0 || e.containerPort <= 0)
      throw new PortmapConfigError(`Invalid port number: hostPort and containerPort must be > 0`);
}

export function setMarkChain(markMasqBit = DEFAULT_MARK_MASQ_BIT): PortmapChain {
  return chainOf(
    { name: CNI_HOSTPORT_SETMARK_CHAIN, entryChains: [], prependEntry: false },
    ANY_FAMILY,
    [writer(ANY_FAMILY).comment("CNI portfwd masquerade mark").setXmark(markDef(markMasqBit))],
    [],
  );
}

export function markMasqChain(markMasqBit = DEFAULT_MARK_MASQ_BIT): PortmapChain {
  return chainOf(
    { name: CNI_HOSTPORT_MASQ_CHAIN, entryChains: ["POSTROUTING"], prependEntry: true },
    ANY_FAMILY,
    [writer(ANY_FAMILY).mark(markDef(markMasqBit)).masquerade()],
    [writer(ANY_FAMILY).comment("CNI portfwd requiring masquerade").end()],
  );
}

export function toplevelDnatChain(): PortmapChain {
  return chainOf(
    { name: CNI_HOSTPORT_DNAT_CHAIN, entryChains: ["PREROUTING", "OUTPUT"], prependEntry: false },
    ANY_FAMILY,
    [],
    [writer(ANY_FAMILY).dstTypeLocal().end()],
  );
}

function trimComment(s: string): string {
  return s.length > MAX_COMMENT_LENGTH - 1 ? `${s.slice(0, MAX_COMMENT_LENGTH - 3)}...` : s;
}

/**
 * CNI-DN-<hash> for one container address. `containerNet` is the address with the prefix
 * length of its subnet, as the previous plugin's result lists it (`10.0.0.2/24`).
 */
export function dnatChain(
  config: PortmapConfig,
  containerID: string,
  containerNet: string,
  entries: readonly PortmapEntry[],
): PortmapChain {
  const net = parseCIDR(containerNet, "lenient");
  if (net === undefined) throw new PortmapConfigError(`invalid container address ${containerNet}`);
  const isV6 = net.family === "IPv6";
  // fmtIpPort(containerNet.IP, ...): Go prints the address canonical (2001:DB8::2 as 2001:db8::2).
  const containerIP = formatIP(net.address);
  const comment = trimComment(`dnat name: "${config.name}" id: "${containerID}"`);
  const setMark = config.externalSetMarkChain ?? CNI_HOSTPORT_SETMARK_CHAIN;
  const snat = config.snat ?? true;
  const conditions = (isV6 ? config.conditionsV6 : config.conditionsV4) ?? [];

  const byProto = new Map<LowerProtocol, number[]>();
  for (const e of entries)
    byProto.set(e.protocol, [...(byProto.get(e.protocol) ?? []), e.hostPort]);
  const entryRules: ArgvRule[] = [];
  for (const proto of [...byProto.keys()].sort()) {
    const ports = byProto.get(proto) ?? [];
    for (let i = 0; i < ports.length; i += MULTIPORT_MAX)
      entryRules.push(
        writer(net.family)
          .comment(comment)
          .multiportDestinations(proto, ports.slice(i, i + MULTIPORT_MAX))
          .end(),
      );
  }

  const rules: ArgvRule[] = [];
  for (const e of entries) {
    let withDst = false;
    if (e.hostIP !== undefined && e.hostIP !== "") {
      const hostIP = parseIP(e.hostIP, "lenient");
      if (hostIP === undefined || (hostIP.family === "IPv6") !== isV6) continue;
      withDst = hostIP.value !== 0 && hostIP.value !== 0n;
    }
    const base = (): ArgvRuleWriter => {
      const w = writer(net.family).protocolPort(e.protocol, e.hostPort);
      return withDst ? w.destination(e.hostIP ?? "") : w;
    };
    if (snat) {
      const masqCIDR =
        config.masqAll === true ? (isV6 ? "::/0" : "0.0.0.0/0") : formatCIDRAsWritten(net);
      rules.push(base().source(masqCIDR).jump(setMark));
      if (!isV6 && config.masqAll !== true) rules.push(base().source("127.0.0.1").jump(setMark));
    }
    rules.push(base().dnat(containerIP, e.containerPort));
  }

  return chainOf(
    {
      name: portmapDnatChainName(config.name, containerID),
      entryChains: [CNI_HOSTPORT_DNAT_CHAIN],
      prependEntry: false,
    },
    net.family,
    rules,
    entryRules,
    conditions,
  );
}

/** `chain.setup`: ensure the chain, insert-unique its rules, then its entry rules. */
export function setupChain(e: NatEditor, c: PortmapChain): void {
  const { family, rules, entries, conditions } = c.built;
  const values = new SharedRuleValues(family);
  let read: Rule | undefined;
  try {
    read = readConditions(family, conditions);
  } catch (err) {
    if (err instanceof PortmapConditionsError) throw new PortmapConfigError(err.message);
    throw err;
  }
  e.ensureChain(c.name);
  for (const r of rules) e.ensureRule("append", c.name, natRule(r, {}));
  const jump = values.jump(c.name);
  for (const entry of c.entryChains)
    for (const r of entries)
      e.ensureRule(
        c.prependEntry ? "prepend" : "append",
        entry,
        natRule(r, {
          ...(read !== undefined && { conditions: read }),
          conditionWords: conditions,
          jump,
          jumpChain: c.name,
        }),
      );
}

/** `chain.teardown`: flush, drop every entry rule jumping to it, delete. */
export function teardownChain(e: NatEditor, c: Pick<PortmapChain, "name" | "entryChains">): void {
  e.ensureChain(c.name);
  e.flushChain(c.name);
  for (const entry of c.entryChains)
    for (const r of [...e.rules(entry)]) if (jumpsTo(r, c.name)) e.deleteRule(entry, r);
  e.deleteChain(c.name);
}

/** The container address family's ADD: returns the nat table afterwards. */
export function portmapAdd(
  t: NatTable,
  config: PortmapConfig,
  containerID: string,
  containerNet: string,
  entries: readonly PortmapEntry[],
): NatTable {
  validatePortmapConfig(config, entries);
  const dnat = dnatChain(config, containerID, containerNet, entries);
  return editNatTable(t, (e) => {
    if ((config.snat ?? true) && config.externalSetMarkChain === undefined) {
      setupChain(e, setMarkChain(config.markMasqBit));
      setupChain(e, markMasqChain(config.markMasqBit));
    }
    setupChain(e, toplevelDnatChain());
    setupChain(e, dnat);
  });
}

/** DEL: the container's chain and its jumps go; the shared chains stay. */
export function portmapDel(t: NatTable, config: PortmapConfig, containerID: string): NatTable {
  const name = portmapDnatChainName(config.name, containerID);
  if (findChain(t, name) === undefined) return t;
  return editNatTable(t, (e) => teardownChain(e, { name, entryChains: [CNI_HOSTPORT_DNAT_CHAIN] }));
}
