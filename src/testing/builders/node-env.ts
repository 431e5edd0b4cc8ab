/**
 * `nodeEnv({name, ips, interfaces?})`: the NodeEnvironment the rules are for, defaulted and
 * validated as `--node-env` is. Without `interfaces`: `lo` (127.0.0.1/8, ::1/128) and `eth0`
 * holding the node IPs as host addresses, as kube-netsim derives them from a Node object.
 */
import {
  parseNodeEnvironment,
  NODE_ENVIRONMENT_API_VERSION,
} from "../../model/load-node-environment.js";
import type {
  KernelCapabilities,
  NodeEnvironment,
  NodeInterface,
} from "../../model/node-environment.js";
import { defined } from "./names.js";

export interface NodeEnvOptions {
  /** The node's name: endpoints with this `nodeName` are local. Default `node-1`. */
  readonly name?: string;
  /** The node's primary IP(s), either family. Default none. */
  readonly ips?: readonly string[];
  readonly interfaces?: readonly NodeInterface[];
  /** Default: from the families of `ips` and the interfaces' addresses (IPv4 when none). */
  readonly ipFamilies?: readonly ("IPv4" | "IPv6")[];
  readonly kernel?: Partial<KernelCapabilities>;
}

export function nodeEnv(options: NodeEnvOptions = {}): NodeEnvironment {
  const ips = options.ips ?? [];
  const interfaces = options.interfaces ?? [
    { name: "lo", addresses: ["127.0.0.1/8", "::1/128"] },
    ...(ips.length > 0 ? [{ name: "eth0", addresses: [...ips] }] : []),
  ];
  const doc = defined({
    apiVersion: NODE_ENVIRONMENT_API_VERSION,
    kind: "NodeEnvironment",
    nodeName: options.name ?? "node-1",
    ipFamilies: options.ipFamilies,
    nodeIPs: [...ips],
    interfaces,
    kernel: options.kernel,
  });
  return parseNodeEnvironment(JSON.stringify(doc, null, 2), "<nodeEnv()>");
}
