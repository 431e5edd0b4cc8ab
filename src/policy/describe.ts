/** Short human descriptions of compiled peers and ports, for explanations and lint messages. */
import { formatIP } from "../net/address.js";
import { formatCIDR } from "../net/cidr.js";
import { assertNever } from "../util/assert-never.js";
import type { AdminPeer, AdminPort, NetworkPolicyPeer, PolicyPort } from "./compiled.js";
import type { PodFacts } from "./facts.js";

export function describePolicyPort(p: PolicyPort, dstPod?: PodFacts): string {
  switch (p.kind) {
    case "range":
      return p.from === p.to ? `${p.protocol}/${p.from}` : `${p.protocol}/${p.from}-${p.to}`;
    case "protocol":
      return `${p.protocol}/any`;
    case "named": {
      if (dstPod === undefined) return `${p.protocol}/${p.name} (no destination pod to resolve it)`;
      const nums = dstPod.containerPorts
        .filter((c) => c.name === p.name && c.protocol === p.protocol)
        .map((c) => c.port);
      return nums.length === 0
        ? `${p.protocol}/${p.name} (not declared by ${dstPod.id} for ${p.protocol})`
        : `${p.protocol}/${p.name}=${nums.join("|")}`;
    }
    default:
      return assertNever(p);
  }
}

export function describeAdminPort(p: AdminPort): string {
  switch (p.kind) {
    case "range":
      return p.from === p.to ? `${p.protocol}/${p.from}` : `${p.protocol}/${p.from}-${p.to}`;
    case "named":
      return `namedPort ${p.name}`;
    case "invalid":
      return "(invalid port)";
    case "any":
      return "(protocol entry with no known field: fails closed, matches all)";
    default:
      return assertNever(p);
  }
}

export function describePolicyPeer(p: NetworkPolicyPeer): string {
  switch (p.kind) {
    case "pods": {
      const ns =
        p.namespaces.kind === "policy-namespace"
          ? `namespace ${p.namespaces.namespace}`
          : `namespaces {${p.namespaces.selector.text}}`;
      return `pods {${p.pods.text}} in ${ns}`;
    }
    case "ipBlock":
      return `ipBlock ${p.text}`;
    case "empty":
      return "(empty peer)";
    default:
      return assertNever(p);
  }
}

export function describeAdminPeer(p: AdminPeer): string {
  switch (p.kind) {
    case "namespaces":
      return `namespaces {${p.namespaces.text}}`;
    case "pods":
      return `pods {${p.pods.text}} in namespaces {${p.namespaces.text}}`;
    case "nodes":
      return `nodes {${p.nodes.text}}`;
    case "networks":
      return `networks ${p.cidrs.map(formatCIDR).join(", ")}`;
    case "domainNames":
      return `domainNames ${p.names.join(", ")}${p.addresses === undefined ? " (unresolved)" : ` (= ${p.addresses.map(formatIP).join(", ")})`}`;
    case "unknown":
      return "(peer with no known field)";
    default:
      return assertNever(p);
  }
}
