/** NetworkPolicy validation (pkg/apis/networking/validation: ValidateNetworkPolicy and helpers). */
import { portNameProblems } from "../../net/index.js";
import type {
  NetworkPolicyPeer,
  NetworkPolicyPort,
  NetworkPolicySpec,
} from "kubernetes-types/networking/v1.js";
import type { NetworkPolicy } from "../kinds.js";
import { cidrContains } from "../../net/index.js";
import {
  forbidden,
  invalid,
  required,
  unsupported,
  type FieldIssue,
  type FieldPath,
} from "./field-issue.js";
import { checkCIDR } from "./ip-fields.js";
import { validateLabelSelector, validateObjectMeta } from "./meta.js";
import { dns1123SubdomainProblems, inclusiveRangeError } from "./names.js";
import { checkProtocol, strictIPs, type ValidationContext } from "./context.js";

function portNum(n: number): string[] {
  return n >= 1 && n <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

function validatePort(ctx: ValidationContext, port: NetworkPolicyPort, p: FieldPath): FieldIssue[] {
  const out: FieldIssue[] = [];
  if (port.protocol !== undefined)
    out.push(...checkProtocol(ctx, [...p, "protocol"], port.protocol, "networking"));
  const endPort = port.endPort;
  if (port.port !== undefined) {
    if (typeof port.port === "number") {
      for (const m of portNum(port.port)) out.push(invalid([...p, "port"], port.port, m));
      if (endPort !== undefined) {
        if (endPort < port.port)
          out.push(invalid([...p, "endPort"], endPort, "must be greater than or equal to `port`"));
        for (const m of portNum(endPort)) out.push(invalid([...p, "endPort"], endPort, m));
      }
    } else {
      if (endPort !== undefined)
        out.push(
          invalid([...p, "endPort"], endPort, "may not be specified when `port` is non-numeric"),
        );
      for (const m of portNameProblems(port.port)) out.push(invalid([...p, "port"], port.port, m));
    }
  } else if (endPort !== undefined) {
    out.push(
      invalid([...p, "endPort"], endPort, "may not be specified when `port` is not specified"),
    );
  }
  return out;
}

function validatePeer(ctx: ValidationContext, peer: NetworkPolicyPeer, p: FieldPath): FieldIssue[] {
  const out: FieldIssue[] = [];
  let n = 0;
  if (peer.podSelector !== undefined) {
    n++;
    out.push(...validateLabelSelector(peer.podSelector, [...p, "podSelector"]));
  }
  if (peer.namespaceSelector !== undefined) {
    n++;
    out.push(...validateLabelSelector(peer.namespaceSelector, [...p, "namespaceSelector"]));
  }
  if (peer.ipBlock !== undefined) {
    n++;
    const bp = [...p, "ipBlock"];
    const cidrText = peer.ipBlock.cidr ?? "";
    if (cidrText === "") out.push(required([...bp, "cidr"]));
    else {
      const c = checkCIDR([...bp, "cidr"], cidrText, strictIPs(ctx));
      out.push(...c.issues);
      if (c.cidr !== undefined) {
        const outer = c.cidr;
        (peer.ipBlock.except ?? []).forEach((ex, i) => {
          const ep = [...bp, "except", i];
          const e = checkCIDR(ep, ex, strictIPs(ctx));
          out.push(...e.issues);
          if (e.cidr === undefined) return;
          if (!cidrContains(outer, e.cidr.network) || outer.prefix >= e.cidr.prefix)
            out.push(invalid(ep, ex, "must be a strict subset of `cidr`"));
        });
      }
    }
  }
  if (n === 0) out.push(required(p, "must specify a peer"));
  else if (n > 1 && peer.ipBlock !== undefined)
    out.push(forbidden(p, "may not specify both ipBlock and another peer"));
  return out;
}

export function validateNetworkPolicy(ctx: ValidationContext, np: NetworkPolicy): FieldIssue[] {
  const out = validateObjectMeta(np.metadata, true, dns1123SubdomainProblems);
  const spec: NetworkPolicySpec = np.spec ?? ({} as NetworkPolicySpec);
  out.push(...validateLabelSelector(spec.podSelector, ["spec", "podSelector"]));
  (spec.ingress ?? []).forEach((rule, i) => {
    const p = ["spec", "ingress", i];
    (rule.ports ?? []).forEach((port, j) =>
      out.push(...validatePort(ctx, port, [...p, "ports", j])),
    );
    (rule.from ?? []).forEach((peer, j) => out.push(...validatePeer(ctx, peer, [...p, "from", j])));
  });
  (spec.egress ?? []).forEach((rule, i) => {
    const p = ["spec", "egress", i];
    (rule.ports ?? []).forEach((port, j) =>
      out.push(...validatePort(ctx, port, [...p, "ports", j])),
    );
    (rule.to ?? []).forEach((peer, j) => out.push(...validatePeer(ctx, peer, [...p, "to", j])));
  });
  const types = spec.policyTypes ?? [];
  if (types.length > 2)
    out.push(invalid(["spec", "policyTypes"], types, "may not specify more than two policyTypes"));
  else
    types.forEach((t, i) => {
      if (t !== "Ingress" && t !== "Egress")
        out.push(unsupported(["spec", "policyTypes", i], t, ["Ingress", "Egress"]));
    });
  return out;
}
