/**
 * Matching one compiled peer or port against one direction of a connection. Shared by the fast
 * verdict path and the explaining path, so that both give the same answer by construction.
 */
import { cidrContains } from "../net/cidr.js";
import { formatIP, type IPAddress } from "../net/address.js";
import type { Protocol } from "../net/port.js";
import { assertNever } from "../util/assert-never.js";
import {
  isAccept,
  type AdminAction,
  type AdminPeer,
  type AdminPort,
  type Direction,
  type NetworkPolicyPeer,
  type PolicyPort,
} from "./compiled.js";
import { isAdminPolicyPod, isNetworkPolicyPod, type Party } from "./connection.js";
import type { PodFacts } from "./facts.js";
import type { PolicyOptions } from "./options.js";

/** One direction of a connection, seen from the subject (the pod whose policies are checked). */
export interface DirectionContext {
  readonly direction: Direction;
  readonly subject: PodFacts;
  readonly peer: Party;
  /** The peer's address on this connection (undefined: no common family / no IP). */
  readonly peerIP: IPAddress | undefined;
  readonly peerIPText: string | undefined;
  /** The destination pod, for named ports (the subject for ingress, the peer for egress). */
  readonly dstPod: PodFacts | undefined;
  readonly port: number;
  readonly protocol: Protocol;
}

// Pod IP objects live as long as their compiled cluster; their text is needed only for ANP
// `nodes` peers but asked for on every context, so it is memoized per address object.
const ipTexts = new WeakMap<IPAddress, string>();
function ipText(ip: IPAddress): string {
  let t = ipTexts.get(ip);
  if (t === undefined) {
    t = formatIP(ip);
    ipTexts.set(ip, t);
  }
  return t;
}

export function makeDirectionContext(
  direction: Direction,
  subject: PodFacts,
  peer: Party,
  peerIP: IPAddress | undefined,
  port: number,
  protocol: Protocol,
): DirectionContext {
  return {
    direction,
    subject,
    peer,
    peerIP,
    peerIPText: peerIP === undefined ? undefined : ipText(peerIP),
    dstPod: direction === "Ingress" ? subject : peer.kind === "pod" ? peer.pod : undefined,
    port,
    protocol,
  };
}

export function networkPolicyPeerMatches(
  peer: NetworkPolicyPeer,
  policyNamespace: string,
  ctx: DirectionContext,
  opts: PolicyOptions,
): boolean {
  switch (peer.kind) {
    case "pods": {
      const p = ctx.peer;
      if (p.kind !== "pod" || !isNetworkPolicyPod(p.pod, opts)) return false;
      const ns = peer.namespaces;
      const nsOk =
        ns.kind === "policy-namespace"
          ? p.pod.namespace === policyNamespace
          : ns.selector.matches(p.pod.nsLabels);
      return nsOk && peer.pods.matches(p.pod.labels);
    }
    case "ipBlock": {
      const ip = ctx.peerIP;
      if (ip === undefined || peer.cidr === undefined) return false;
      const p = ctx.peer;
      if (!opts.ipBlockMatchesPods && p.kind === "pod" && isNetworkPolicyPod(p.pod, opts))
        return false;
      if (!cidrContains(peer.cidr, ip)) return false;
      for (const e of peer.except) if (cidrContains(e, ip)) return false;
      return true;
    }
    case "empty":
      return false;
    default:
      return assertNever(peer);
  }
}

function servesNamedPort(
  pod: PodFacts | undefined,
  name: string,
  port: number,
  protocol: Protocol,
): boolean {
  if (pod === undefined) return false;
  for (const cp of pod.containerPorts)
    if (cp.name === name && cp.protocol === protocol && cp.port === port) return true;
  return false;
}

export function policyPortMatches(p: PolicyPort, ctx: DirectionContext): boolean {
  return policyPortMatchesAt(p, ctx.port, ctx.protocol, ctx.dstPod);
}

/** `policyPortMatches` with the probe spelled out (truth tables vary only these). */
export function policyPortMatchesAt(
  p: PolicyPort,
  port: number,
  protocol: Protocol,
  dstPod: PodFacts | undefined,
): boolean {
  if (p.protocol !== protocol) return false;
  switch (p.kind) {
    case "range":
      return port >= p.from && port <= p.to;
    case "protocol":
      return true;
    case "named":
      return servesNamedPort(dstPod, p.name, port, p.protocol);
    default:
      return assertNever(p);
  }
}

export function adminPeerMatches(
  peer: AdminPeer,
  action: AdminAction,
  ctx: DirectionContext,
): boolean {
  const p = ctx.peer;
  switch (peer.kind) {
    case "namespaces":
      return p.kind === "pod" && isAdminPolicyPod(p.pod) && peer.namespaces.matches(p.pod.nsLabels);
    case "pods":
      return (
        p.kind === "pod" &&
        isAdminPolicyPod(p.pod) &&
        peer.namespaces.matches(p.pod.nsLabels) &&
        peer.pods.matches(p.pod.labels)
      );
    case "nodes":
      return ctx.peerIPText !== undefined && peer.addresses.has(ctx.peerIPText);
    case "networks": {
      const ip = ctx.peerIP;
      if (ip === undefined) return false;
      for (const c of peer.cidrs) if (cidrContains(c, ip)) return true;
      return false;
    }
    case "domainNames": {
      // Unresolved names never match here; `adminPeerMatch3` reports them as unknown.
      const ip = ctx.peerIP;
      if (ip === undefined || peer.addresses === undefined) return false;
      return peer.addresses.some((a) => a.family === ip.family && a.value === ip.value);
    }
    case "unknown":
      return !isAccept(action);
    default:
      return assertNever(peer);
  }
}

export function adminPortMatches(p: AdminPort, ctx: DirectionContext): boolean {
  return adminPortMatchesAt(p, ctx.port, ctx.protocol, ctx.dstPod);
}

export function adminPortMatchesAt(
  p: AdminPort,
  port: number,
  protocol: Protocol,
  dstPod: PodFacts | undefined,
): boolean {
  switch (p.kind) {
    case "range":
      return p.protocol === protocol && port >= p.from && port <= p.to;
    case "named": {
      if (dstPod === undefined) return false;
      for (const cp of dstPod.containerPorts)
        if (cp.name === p.name && cp.port === port && cp.protocol === protocol) return true;
      return false;
    }
    case "invalid":
      return false;
    case "any":
      return true;
    default:
      return assertNever(p);
  }
}

/**
 * Three-valued peer match: `"unknown"` for a domainNames peer whose names have no resolution
 * (spec cluster-network-policy.md §2.4, O4) when the peer has an address at all.
 */
export function adminPeerMatch3(
  peer: AdminPeer,
  action: AdminAction,
  ctx: DirectionContext,
): boolean | "unknown" {
  if (peer.kind === "domainNames" && peer.addresses === undefined)
    return ctx.peerIP === undefined ? false : "unknown";
  return adminPeerMatches(peer, action, ctx);
}
