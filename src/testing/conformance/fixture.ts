/**
 * The cluster the SCTP test plan's tests run on, built as upstream's e2e tests build theirs:
 * a node with a pod bridge, a client and an SCTP server pod (with an SCTP hostPort), a pod no
 * policy admits, an SCTP Service of type LoadBalancer in front of the server, and a
 * NetworkPolicy that allows only SCTP port 5000 from the client to the server.
 */
import type { Cluster } from "../../model/cluster.js";
import type { Service } from "../../model/kinds.js";
import type { NodeEnvironment } from "../../model/node-environment.js";
import type { IPFamily } from "../../net/index.js";
import { cluster } from "../builders/cluster.js";
import { endpoints } from "../builders/endpoints.js";
import { networkPolicy } from "../builders/network-policy.js";
import { nodeEnv } from "../builders/node-env.js";
import { pod } from "../builders/pod.js";
import { service } from "../builders/service.js";

export const SCTP_PORT = 5000;
export const SCTP_HOST_PORT = 5005;
export const NODE_IP = "192.168.0.10";
export const LB_IP = "192.168.0.200";
export const CLIENT = { name: "sctp-test/client", ip: "10.244.1.10" };
export const SERVER = { name: "sctp-test/server", ip: "10.244.1.20" };
export const STRANGER = { name: "sctp-test/stranger", ip: "10.244.1.30" };

export function sctpNode(): NodeEnvironment {
  return nodeEnv({
    name: "node-a",
    ips: [NODE_IP],
    interfaces: [
      { name: "lo", addresses: ["127.0.0.1/8"] },
      { name: "eth0", addresses: [`${NODE_IP}/24`] },
      { name: "cbr0", addresses: ["10.244.1.1/24"] },
    ],
  });
}

/** The node's IPv6 address and its pod bridge's, for properties over IPv6 (see `propertyNode`). */
export const NODE_IP6 = "fd00:192:168::10";

/**
 * The node the section 7 properties probe, in the given families (in that order; the first is
 * the node's primary): `sctpNode()` for IPv4 alone, else the same node with `fd00:192:168::10/64`
 * on eth0 and `fd00:10:244:1::1/64` on the pod bridge in IPv6. Pods on it have addresses in
 * 10.244.1.0/24 and fd00:10:244:1::/64.
 */
export function propertyNode(families: readonly IPFamily[]): NodeEnvironment {
  if (families.length === 1 && families[0] === "IPv4") return sctpNode();
  const has = (f: IPFamily): boolean => families.includes(f);
  const pick = (v4: string, v6: string): string[] => families.map((f) => (f === "IPv4" ? v4 : v6));
  return nodeEnv({
    name: "node-a",
    ips: pick(NODE_IP, NODE_IP6),
    ipFamilies: families,
    interfaces: [
      {
        name: "lo",
        addresses: [...(has("IPv4") ? ["127.0.0.1/8"] : []), ...(has("IPv6") ? ["::1/128"] : [])],
      },
      { name: "eth0", addresses: pick(`${NODE_IP}/24`, `${NODE_IP6}/64`) },
      { name: "cbr0", addresses: pick("10.244.1.1/24", "fd00:10:244:1::1/64") },
    ],
  });
}

/** The node's address in `family` (NodePort and hostPort probes go to it). */
export function propertyNodeIP(family: IPFamily): string {
  return family === "IPv4" ? NODE_IP : NODE_IP6;
}

export function sctpCluster(): Cluster {
  const svc: Service = {
    ...service("sctp-test/sctp-svc", {
      type: "LoadBalancer",
      selector: { app: "server" },
      ports: [
        { name: "sctp", port: SCTP_PORT, protocol: "SCTP", targetPort: SCTP_PORT, nodePort: 30500 },
      ],
    }),
    status: { loadBalancer: { ingress: [{ ip: LB_IP }] } },
  };
  return cluster(
    pod(CLIENT.name, { ip: CLIENT.ip, node: "node-a", labels: { app: "client" } }),
    pod(SERVER.name, {
      ip: SERVER.ip,
      node: "node-a",
      labels: { app: "server" },
      ports: [{ containerPort: SCTP_PORT, protocol: "SCTP", hostPort: SCTP_HOST_PORT }],
    }),
    pod(STRANGER.name, { ip: STRANGER.ip, node: "node-a", labels: { app: "stranger" } }),
    svc,
    endpoints("sctp-test/sctp-svc", {
      ports: [{ name: "sctp", port: SCTP_PORT, protocol: "SCTP" }],
      endpoints: [{ ip: SERVER.ip, node: "node-a", pod: "server" }],
    }),
    networkPolicy("sctp-test/server-allows-sctp-from-client", {
      podSelector: { matchLabels: { app: "server" } },
      ingress: [
        {
          from: [{ podSelector: { matchLabels: { app: "client" } } }],
          ports: [{ protocol: "SCTP", port: SCTP_PORT }],
        },
      ],
    }),
  );
}
