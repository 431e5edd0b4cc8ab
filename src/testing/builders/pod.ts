/**
 * `pod("ns/name", {ip, labels, node, ports})`: a running v1 Pod with one container. `ip` may be
 * one address or a list (dual stack: `status.podIPs` in that order). Omitted: no IP (a pod
 * that is not scheduled or not started), no labels, no node, no ports.
 */
import type { Pod } from "../../model/kinds.js";
import { defined, splitName } from "./names.js";

export interface PodPortOptions {
  readonly containerPort: number;
  /** Default TCP. */
  readonly protocol?: "TCP" | "UDP" | "SCTP";
  readonly name?: string;
  readonly hostPort?: number;
  readonly hostIP?: string;
}

export interface PodOptions {
  readonly ip?: string | readonly string[];
  readonly labels?: Readonly<Record<string, string>>;
  /** `spec.nodeName`. */
  readonly node?: string;
  readonly ports?: readonly PodPortOptions[];
  readonly hostNetwork?: boolean;
  /** Default `Running`. */
  readonly phase?: "Pending" | "Running" | "Succeeded" | "Failed" | "Unknown";
}

export function pod(ref: string, options: PodOptions = {}): Pod {
  const { namespace, name } = splitName(ref);
  const ips =
    options.ip === undefined ? [] : typeof options.ip === "string" ? [options.ip] : [...options.ip];
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: defined({
      name,
      namespace,
      labels: options.labels ? { ...options.labels } : undefined,
    }),
    spec: defined({
      nodeName: options.node,
      hostNetwork: options.hostNetwork,
      containers: [
        defined({
          name: "main",
          image: "registry.k8s.io/pause:3.10",
          ports: options.ports?.map((p) => defined({ ...p })),
        }),
      ],
    }),
    status: defined({
      phase: options.phase ?? "Running",
      podIP: ips[0],
      podIPs: ips.length > 0 ? ips.map((ip) => ({ ip })) : undefined,
    }),
  };
}
