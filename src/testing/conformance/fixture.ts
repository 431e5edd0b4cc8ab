/**
 * The cluster the SCTP test plan's tests run on, built as upstream's e2e tests build theirs:
 * a node with a pod bridge, a client and an SCTP server pod (with an SCTP hostPort), a pod no
 * policy admits, an SCTP Service of type LoadBalancer in front of the server, and a
 * NetworkPolicy that allows only SCTP port 5000 from the client to the server.
 */
import type { Cluster } from "../../model/cluster.js";
import type { Service } from "../../model/kinds.js";
import type { NodeEnvironment } from "../../model/node-environment.js";
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
