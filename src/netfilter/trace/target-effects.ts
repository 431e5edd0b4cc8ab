/**
 * What the tracer needs around the target extensions' `apply` (targets/extension.ts): the node
 * services a target may consult (`TargetEnv`), and the conntrack states NAT and NOTRACK leave.
 * What each target does lives with the target.
 */
import type { IPAddress, PortRange } from "../../net/index.js";
import type { FlowReads, Packet } from "../model.js";
import { applyTarget } from "../registry.js";
import type { TargetEnv } from "../targets/extension.js";
import type { Target } from "../targets/index.js";
import { masqueradeSource } from "./addressing.js";
import type { NodeDataplane } from "./dataplane.js";

type Nat = Extract<Target, { kind: "DNAT" | "SNAT" | "MASQUERADE" }>;

/** The node's answers to a target (a class: no closures per packet). */
export class NodeTargetEnv implements TargetEnv {
  constructor(
    private readonly dp: NodeDataplane,
    readonly flow: FlowReads | undefined,
  ) {}
  masqueradeSource(outInterface: string, dst: IPAddress): IPAddress | undefined {
    return masqueradeSource(this.dp, outInterface, dst);
  }
}

export interface NatMapping {
  readonly ip: IPAddress;
  /** The port the trace shows. */
  readonly port: number;
  /** Set when the kernel draws the port at random from this range instead. */
  readonly randomPort: PortRange | undefined;
}

/**
 * The address and port a NAT target maps the first packet of a connection to (the target's
 * `apply`); undefined when MASQUERADE has no address and the kernel drops the packet.
 */
export function natMapping(
  dp: NodeDataplane,
  target: Nat,
  pkt: Packet,
  flow?: FlowReads,
): NatMapping | undefined {
  const e = applyTarget(target, pkt, new NodeTargetEnv(dp, flow));
  return e.kind === "nat" ? { ip: e.ip, port: e.port, randomPort: e.randomPort } : undefined;
}

type CtStates = Packet["ctState"];

/**
 * The last list extended per state, and the result: every branch of a packet extends the same
 * list, so they share one (the lists are never mutated).
 */
const extended = {
  DNAT: { from: undefined as CtStates | undefined, to: [] as CtStates },
  SNAT: { from: undefined as CtStates | undefined, to: [] as CtStates },
};

/** `states` with the conntrack state a NAT target adds. */
export function withNatState(states: CtStates, s: "DNAT" | "SNAT"): CtStates {
  if (states.includes(s)) return states;
  const last = extended[s];
  if (last.from !== states) {
    last.from = states;
    last.to = [...states, s];
  }
  return last.to;
}

export const UNTRACKED: CtStates = ["UNTRACKED"];
