/**
 * A connection as the evaluator sees it: two parties (a pod, or a bare IP that may be a node
 * address), the destination port after any Service translation, and the protocol. The source port
 * is never matched by NetworkPolicy, and replies are implicitly allowed, so neither appears here.
 */
import { formatIP, type IPAddress } from "../net/address.js";
import type { Protocol } from "../net/port.js";
import type { PodFacts } from "./facts.js";
import type { PolicyOptions } from "./options.js";

export type Party =
  | { readonly kind: "pod"; readonly pod: PodFacts }
  /** `node`: the node whose address this is, if any. */
  | { readonly kind: "ip"; readonly ip: IPAddress; readonly node: string | undefined };

export interface Connection {
  readonly src: Party;
  readonly dst: Party;
  readonly port: number;
  readonly protocol: Protocol;
}

/** The addresses the two parties use: the first destination family the source also has. */
export function connectionAddresses(
  src: Party,
  dst: Party,
): { readonly srcIP: IPAddress | undefined; readonly dstIP: IPAddress | undefined } {
  const srcIPs = src.kind === "pod" ? src.pod.ips : [src.ip];
  const dstIPs = dst.kind === "pod" ? dst.pod.ips : [dst.ip];
  for (const d of dstIPs) {
    const s = srcIPs.find((a) => a.family === d.family);
    if (s !== undefined) return { srcIP: s, dstIP: d };
  }
  return { srcIP: undefined, dstIP: undefined };
}

/** Pods that NetworkPolicy treats as pod-network pods (subjects, selector matches). */
export function isNetworkPolicyPod(pod: PodFacts, opts: PolicyOptions): boolean {
  return !pod.hostNetwork || opts.hostNetwork === "as-pod";
}

/** AdminNetworkPolicy never selects host-networked pods, as subjects or as peers. */
export function isAdminPolicyPod(pod: PodFacts): boolean {
  return !pod.hostNetwork;
}

/** The node a party speaks for, when its traffic is node traffic. */
export function nodeOfParty(p: Party, opts: PolicyOptions): string | undefined {
  if (p.kind === "ip") return p.node;
  return p.pod.hostNetwork && opts.hostNetwork === "as-node" ? p.pod.nodeName : undefined;
}

export function partyText(p: Party): string {
  return p.kind === "pod" ? p.pod.id : formatIP(p.ip);
}

export function isLoopback(c: Connection): boolean {
  return c.src.kind === "pod" && c.dst.kind === "pod" && c.src.pod.id === c.dst.pod.id;
}
