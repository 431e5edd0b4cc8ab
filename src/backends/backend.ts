/**
 * The one interface for "where a scenario runs" (shared/docs/interfaces.md, Backends): the
 * simulator (the tracer), the real kernel in namespaces this tool creates (netns), a real
 * node's collected state (snapshot). A scenario is a node's dataplane as data; a probe is one
 * connection attempt; an observation is what one attempt did.
 */
import type { NodeEnvironment } from "../model/node-environment.js";
import type { IPFamily } from "../net/index.js";
import { OperationalError } from "../issue/operational-error.js";

export type CapabilityName =
  | "iptables"
  | "ip6tables"
  | "ipset"
  | "ipvs"
  | "nftables"
  | "tcpSockets"
  | "udpSockets"
  | "sctpSockets";

export interface Capability {
  readonly name: CapabilityName;
  readonly available: boolean;
  /** Why it is not available (set when `available` is false). */
  readonly reason?: string;
}

/** A pod attached to the node: its namespace holds `ip` on eth0; the node side is `interface`. */
export interface AttachedPod {
  /** `ns/name` (synthesised as `endpoint/IP` for an endpoint with no Pod object). */
  readonly name: string;
  readonly ip: string;
  /** Every address of the pod, `ip` first (a dual-stack pod has one of each family). */
  readonly ips?: readonly string[];
  /** The node-side veth name (at most 15 characters). */
  readonly interface: string;
}

/** A node's dataplane: what a backend loads, and the workloads behind it. */
export interface Scenario {
  readonly node: NodeEnvironment;
  /** iptables-restore input per family (iptables-save text is valid input). */
  readonly rules: readonly { readonly family: IPFamily; readonly text: string }[];
  /** `ipset save` text (may be empty). */
  readonly ipsets?: string;
  /** `ipvsadm-save -n` text; a scenario with IPVS needs an IPVS-capable backend. */
  readonly ipvs?: string;
  /**
   * An nftables rule set as `nft -f` takes it (knftables transaction lines or the nested
   * `nft list` form), e.g. kube-proxy's nftables mode. Its base chains run among the iptables
   * tables of `rules` by priority, as on a node that has both.
   */
  readonly nftables?: string;
  /** Pods on this node. */
  readonly pods: readonly AttachedPod[];
  /** Addresses of endpoints on other nodes (pods or host-network). */
  readonly remoteEndpoints: readonly string[];
  /** Ports every workload listens on (TCP and UDP; SCTP where the backend has SCTP sockets). */
  readonly ports: readonly number[];
  /** Sysctls kube-proxy sets on the node (e.g. `net.ipv4.conf.all.route_localnet`). */
  readonly sysctls?: Readonly<Record<string, string>>;
}

export type ProbeProtocol = "tcp" | "udp" | "sctp";

/** Where a probe starts: a pod (`ns/name`), the node, the external client, or an address. */
export type ProbeSource = string;

export interface Probe {
  readonly protocol: ProbeProtocol;
  /** `ns/pod`, `node`, `external`, or an IP address (hosted outside the node when it is no one's). */
  readonly from: ProbeSource;
  readonly to: string;
  readonly port: number;
  readonly sourcePort?: number;
}

export type Observation =
  | {
      readonly kind: "delivered";
      /** `ip:port` the server was reached at. */
      readonly to: string;
      /** The peer address the server saw (the node's when masqueraded). */
      readonly seenSource: string;
    }
  | { readonly kind: "rejected" }
  | { readonly kind: "dropped" }
  | { readonly kind: "skipped"; readonly reason: string };

/** A scenario a backend has opened; backends keep their own state behind `id`. */
export interface RunningScenario {
  readonly backend: string;
  readonly id: string;
  readonly scenario: Scenario;
}

export interface Backend {
  readonly name: string;
  capabilities(): Promise<Capability[]>;
  open(scenario: Scenario): Promise<RunningScenario>;
  probe(running: RunningScenario, probe: Probe): Promise<Observation>;
  /** Several probes at once (concurrently where the backend can); same answers as `probe`. */
  probeAll?(
    running: RunningScenario,
    probes: readonly Probe[],
    /** Called as probes finish, with how many finished since the last call (for progress). */
    finished?: (count: number) => void,
  ): Promise<Observation[]>;
  /** Removes everything it made, also after failures. */
  close(running: RunningScenario): Promise<void>;
}

/** Source and source port a probe is sent from, resolved against the scenario. */
export interface ResolvedSource {
  readonly where: "pod" | "node" | "external";
  /** The pod's name for `where: "pod"`. */
  readonly pod?: string;
  readonly ip: string;
}

/** A backend cannot run a scenario here (missing privilege, tool or kernel feature, rules that do not load). */
export class BackendError extends OperationalError {
  constructor(message: string) {
    super("backend-unavailable", message);
    this.name = "BackendError";
  }
}
