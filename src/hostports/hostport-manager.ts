/**
 * The kubelet's kubenet hostport manager (dockershim, last shipped in v1.23), one per IP family.
 *
 * Theory. For every pod with `hostPort`s the kubelet calls `Add(sandboxID, podPortMapping,
 * "cbr0")`. The manager
 * 1. validates the pod IP (family must be the manager's; v1.23 silently drops mappings whose
 *    hostIP is of the other family),
 * 2. ensures the static rules: KUBE-HOSTPORTS jumps appended to OUTPUT and PREROUTING (after
 *    kube-proxy's KUBE-SERVICES) and the localhost SNAT on the bridge,
 * 3. reserves every TCP/UDP host port by opening a socket (never SCTP); the first failure closes
 *    what this call opened and fails the Add with nothing programmed,
 * 4. rewrites every hostport chain with one `iptables-restore --noflush`: new per-mapping chains
 *    `KUBE-HP-<hash>`, their jumps inserted at the top of KUBE-HOSTPORTS (so the newest pod wins
 *    an overlapping port), then the previous hostport chains and rules re-declared and re-added.
 * `Remove` drops the pod's chains and rules the same way and closes its sockets; it is idempotent.
 *
 * The nat table kept here behaves like the iptables the upstream unit tests use, and `save()`
 * prints it as that fake does (creation order, `:CHAIN - [0:0]`, rules as written with bare
 * addresses given a host prefix and `--to-destination=` split), except that IPv6 hosts get
 * `/128` where the fake wrongly appends `/32`.
 */
import { canonicalIP, ipFamilyOf, isValidPort, parseIP } from "../net/index.js";
import type { IPFamily, Protocol } from "../net/index.js";
import {
  KUBE_HOSTPORTS_CHAIN,
  KUBE_MARK_MASQ_CHAIN,
  hostportChainName,
  isHostportChainName,
} from "./chain-names.js";
import { HostportError } from "./errors.js";
import {
  bindErrorText,
  compareHostSockets,
  conflictingSocket,
  sameSocket,
  type BindSemantics,
} from "./host-sockets.js";
import {
  NatRestoreError,
  editNatTable,
  emptyNatTable,
  formatNatTable,
  jumpsTo,
  restoreNoflush,
  type NatRestoreOp,
  type NatRule,
  type NatTable,
  type NatTableStyle,
} from "./nat-table.js";
import { buildRule } from "./built-rule.js";
import type { PortModule } from "../netfilter/build/rule-builder.js";
import {
  isUnspecifiedHostIP,
  podFullName,
  type HostSocket,
  type PodPortMapping,
  type PortMapping,
} from "./port-mapping.js";

export interface HostportManagerOptions {
  readonly family: IPFamily;
  /** The pod bridge (`cbr0` for kubenet); "" or `lo` leaves out the localhost SNAT rule. */
  readonly natInterfaceName: string;
  /** When two sockets collide; default `kubelet-fake` (the upstream unit tests' opener). */
  readonly bindSemantics?: BindSemantics;
}

const PORTALS_COMMENT = "kube hostport portals";
const LOCALHOST_SNAT_COMMENT = "SNAT for localhost access to hostports";

/** `-m comment --comment "SNAT for localhost access to hostports" -o IFACE -s LOOPBACK -j MASQUERADE`. */
function localhostSnatRule(family: IPFamily, natInterfaceName: string): NatRule {
  const loopback = family === "IPv4" ? "127.0.0.0/8" : "::1/128";
  return buildRule(family, (b) =>
    b
      .comment(LOCALHOST_SNAT_COMMENT)
      .outInterface(natInterfaceName)
      .source(loopback)
      .masquerade(false),
  );
}

/** The module `-m` loads for a protocol's ports (kubelet writes `-m tcp -p tcp`). */
function portModule(p: Protocol): PortModule {
  return p === "TCP" ? "tcp" : p === "UDP" ? "udp" : "sctp";
}

/** Whether a rule of `chain` belongs to the hostport chain `c` (is in it or jumps to it). */
function touches(r: { readonly chain: string; readonly rule: NatRule }, c: string): boolean {
  return r.chain === c || jumpsTo(r.rule, c);
}

export class HostportManager {
  readonly family: IPFamily;
  readonly natInterfaceName: string;
  readonly bindSemantics: BindSemantics;
  #nat: NatTable;
  #sockets: readonly HostSocket[] = [];

  constructor(opts: HostportManagerOptions) {
    this.family = opts.family;
    this.natInterfaceName = opts.natInterfaceName;
    this.bindSemantics = opts.bindSemantics ?? "kubelet-fake";
    this.#nat = emptyNatTable(opts.family);
  }

  /** Programs the pod's host ports; throws a `HostportError` where the kubelet returns an error. */
  add(id: string, mapping: PodPortMapping): void {
    if (mapping.hostNetwork) return;
    validateMappings(mapping);
    const podIP = parseIP(mapping.ip, "lenient");
    if (podIP === undefined) {
      throw new HostportError({ kind: "invalid-pod-ip", pod: podFullName(mapping) });
    }
    const hostportMappings = this.#gather(mapping, podIP.family);
    if (hostportMappings.length === 0) return;
    if (podIP.family !== this.family) {
      throw new HostportError({
        kind: "family-mismatch",
        podIP: canonicalIP(mapping.ip) ?? mapping.ip,
        podFamily: podIP.family,
        managerFamily: this.family,
      });
    }
    this.#ensureStaticRules();

    const opened = this.#openHostports(mapping, hostportMappings);
    const ip = canonicalIP(mapping.ip) ?? mapping.ip;
    const comment = (pm: PortMapping) => `${podFullName(mapping)} hostport ${pm.hostPort}`;
    const newChains: string[] = [];
    const declarations: NatRestoreOp[] = [];
    const rules: NatRestoreOp[] = [];
    for (const pm of hostportMappings) {
      const proto = portModule(pm.protocol);
      const chain = hostportChainName(id, pm.hostPort, pm.protocol, pm.hostIP ?? "");
      newChains.push(chain);
      declarations.push({ kind: "declare", chain });
      rules.push(
        {
          kind: "insert",
          chain: KUBE_HOSTPORTS_CHAIN,
          rule: buildRule(this.family, (b) =>
            b.comment(comment(pm)).protocolMatch(proto).dport(pm.hostPort).jump(chain),
          ),
        },
        {
          kind: "append",
          chain,
          rule: buildRule(this.family, (b) =>
            b.comment(comment(pm)).source(this.#host(ip)).jump(KUBE_MARK_MASQ_CHAIN),
          ),
        },
        {
          kind: "append",
          chain,
          rule: buildRule(this.family, (b) => {
            b.comment(comment(pm)).protocolMatch(proto);
            if (!isUnspecifiedHostIP(pm.hostIP)) b.destination(this.#host(pm.hostIP ?? ""));
            b.dnat(ip, pm.containerPort);
          }),
        },
      );
    }
    const existing = this.#existingHostportState();
    for (const c of existing.chains)
      if (!newChains.includes(c)) declarations.push({ kind: "declare", chain: c });
    for (const r of existing.rules)
      if (!newChains.some((c) => touches(r, c))) rules.push({ kind: "append", ...r });

    try {
      this.#nat = restoreNoflush(this.#nat, [...declarations, ...rules]);
    } catch (e) {
      if (!(e instanceof NatRestoreError)) throw e;
      this.#closeSockets(opened);
      throw new HostportError({ kind: "restore-failed", cause: e.message });
    }
  }

  /**
   * An address as the kubelet's fake iptables stores a bare one: with a host prefix (`/32`;
   * `/128` for IPv6, where the fake wrongly says `/32`).
   */
  #host(address: string): string {
    return `${address}/${this.family === "IPv4" ? 32 : 128}`;
  }

  /** Removes the pod's chains, rules and sockets. Removing what is not there is not an error. */
  remove(id: string, mapping: PodPortMapping): void {
    if (mapping.hostNetwork) return;
    // v1.23 decides the family filter with IsIPv6(pod IP), which is false for a missing IP.
    const podFamily = ipFamilyOf(mapping.ip) ?? "IPv4";
    const hostportMappings = this.#gather(mapping, podFamily);
    if (hostportMappings.length === 0) return;
    const targets = hostportMappings.map((pm) =>
      hostportChainName(id, pm.hostPort, pm.protocol, pm.hostIP ?? ""),
    );
    const existing = this.#existingHostportState();
    const ops: NatRestoreOp[] = existing.chains.map((chain) => ({ kind: "declare", chain }));
    for (const r of existing.rules)
      if (!targets.some((c) => touches(r, c))) ops.push({ kind: "append", ...r });
    for (const c of new Set(targets))
      if (existing.chains.includes(c)) ops.push({ kind: "delete-chain", chain: c });
    this.#nat = restoreNoflush(this.#nat, ops);
    const toClose = hostportMappings.flatMap((pm) => {
      const s = this.#socketFor(pm);
      return s === undefined ? [] : [s];
    });
    this.#closeSockets(toClose);
  }

  /** `iptables-save -t nat` of this manager's table, as the upstream fake prints it. */
  save(style: NatTableStyle = "kubelet-fake"): string {
    return formatNatTable(this.#nat, style);
  }

  natTable(): NatTable {
    return this.#nat;
  }

  openSockets(): HostSocket[] {
    return [...this.#sockets].sort(compareHostSockets);
  }

  /** Mappings with a host port; v1.23 drops those whose hostIP is of the other family. */
  #gather(mapping: PodPortMapping, podFamily: IPFamily): PortMapping[] {
    return mapping.portMappings.filter(
      (pm) =>
        pm.hostPort > 0 &&
        (isUnspecifiedHostIP(pm.hostIP) || ipFamilyOf(pm.hostIP ?? "") === podFamily),
    );
  }

  #ensureStaticRules(): void {
    const portals = buildRule(this.family, (b) =>
      b.comment(PORTALS_COMMENT).addrtype("dst", "LOCAL").jump(KUBE_HOSTPORTS_CHAIN),
    );
    const snat = localhostSnatRule(this.family, this.natInterfaceName);
    this.#nat = editNatTable(this.#nat, (e) => {
      e.ensureChain(KUBE_HOSTPORTS_CHAIN);
      e.ensureRule("append", "OUTPUT", portals);
      e.ensureRule("append", "PREROUTING", portals);
      if (this.natInterfaceName !== "" && this.natInterfaceName !== "lo")
        e.ensureRule("append", "POSTROUTING", snat);
    });
  }

  #socketFor(pm: PortMapping): HostSocket | undefined {
    if (pm.protocol === "SCTP") return undefined;
    return {
      family: this.family,
      hostIP: isUnspecifiedHostIP(pm.hostIP) ? "" : (canonicalIP(pm.hostIP ?? "") ?? ""),
      port: pm.hostPort,
      protocol: pm.protocol === "TCP" ? "tcp" : "udp",
    };
  }

  /** Opens every TCP/UDP host port or none; returns what was opened. */
  #openHostports(mapping: PodPortMapping, mappings: readonly PortMapping[]): HostSocket[] {
    const opened: HostSocket[] = [];
    for (const pm of mappings) {
      const s = this.#socketFor(pm);
      if (s === undefined) continue;
      const held = [...this.#sockets, ...opened];
      if (conflictingSocket(held, s, this.bindSemantics) !== undefined) {
        this.#closeSockets(opened);
        throw new HostportError({
          kind: "cannot-open-hostport",
          pod: podFullName(mapping),
          hostPort: pm.hostPort,
          protocol: s.protocol,
          hostIP: s.hostIP,
          cause: bindErrorText(s, this.bindSemantics),
        });
      }
      opened.push(s);
      this.#sockets = [...this.#sockets, s];
    }
    return opened;
  }

  #closeSockets(list: readonly HostSocket[]): void {
    this.#sockets = this.#sockets.filter((h) => !list.some((s) => sameSocket(s, h)));
  }

  /** What `iptables-save -t nat` shows of hostport chains and rules, as the manager reads it. */
  #existingHostportState(): {
    chains: string[];
    rules: { chain: string; rule: NatRule }[];
  } {
    const chains = this.#nat.chains.map((c) => c.name).filter(isHostportChainName);
    const rules: { chain: string; rule: NatRule }[] = [];
    for (const c of this.#nat.chains)
      if (isHostportChainName(c.name))
        for (const rule of c.rules) rules.push({ chain: c.name, rule });
    return { chains, rules };
  }
}

function validateMappings(mapping: PodPortMapping): void {
  mapping.portMappings.forEach((pm, index) => {
    const bad = (reason: string) =>
      new HostportError({ kind: "invalid-port-mapping", pod: podFullName(mapping), index, reason });
    if (!Number.isInteger(pm.hostPort) || pm.hostPort < 0 || pm.hostPort > 65535)
      throw bad(`hostPort ${pm.hostPort} is not a port number`);
    if (pm.hostPort > 0 && !isValidPort(pm.containerPort))
      throw bad(`containerPort ${String(pm.containerPort)} is not a port number`);
    if (!isProtocolValue(pm.protocol)) throw bad(`unsupported protocol ${String(pm.protocol)}`);
    if (!isUnspecifiedHostIP(pm.hostIP) && parseIP(pm.hostIP ?? "", "lenient") === undefined)
      throw bad(`hostIP ${pm.hostIP} is not an IP address`);
  });
}

function isProtocolValue(p: unknown): p is Protocol {
  return p === "TCP" || p === "UDP" || p === "SCTP";
}
