/**
 * The state of one branch of a trace. Immutable: a statistic split or a target that changes
 * the packet makes a new state; the path and steps are shared linked lists, so branching is
 * cheap.
 */
import type { IPAddress } from "../../net/index.js";
import type { IpvsMatchView, Packet } from "../model.js";
import type { TraceStep } from "./result.js";

export interface Cons<T> {
  readonly head: T;
  readonly tail: Cons<T> | undefined;
}

export function toArray<T>(list: Cons<T> | undefined): T[] {
  const out: T[] = [];
  for (let l = list; l !== undefined; l = l.tail) out.push(l.head);
  return out.reverse();
}

export interface RecentUpdate {
  readonly name: string;
  readonly address: IPAddress;
}

export interface WalkState {
  readonly pkt: Packet;
  readonly prob: number;
  readonly path: Cons<string> | undefined;
  readonly steps: Cons<TraceStep> | undefined;
  /** Destination / source translated by NAT so far. */
  readonly dnat: boolean;
  readonly snat: boolean;
  /** An explicit ACCEPT rule decided somewhere along the way. */
  readonly accepted: boolean;
  /** NOTRACK / CT --notrack: no conntrack, so no NAT. */
  readonly untracked: boolean;
  /** Addresses this packet put into `recent` lists (`--set`, `--update`). */
  readonly recentUpdates: Cons<RecentUpdate> | undefined;
  readonly ipvs?: IpvsMatchView;
}

export function initialState(pkt: Packet): WalkState {
  return {
    pkt,
    prob: 1,
    path: undefined,
    steps: undefined,
    dnat: false,
    snat: false,
    accepted: false,
    untracked: false,
    recentUpdates: undefined,
  };
}
