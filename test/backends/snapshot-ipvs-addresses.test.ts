/**
 * Which of kube-ipvs0's addresses `snapshot diff` judges: kube-proxy's own view of "bound"
 * (netlink_linux.go GetLocalAddresses: the proxier's family only, no loopback, no IPv6
 * link-local), and addresses rather than prefix lengths.
 */
import { expect, test } from "@jest/globals";
import { diffIpvsAddresses } from "../../src/backends/snapshot/diff-ipvs-addresses.js";
import type { Snapshot } from "../../src/backends/snapshot/read.js";
import { servicePortIndex } from "../../src/backends/snapshot/service-port-index.js";
import { makeCluster } from "../../src/model/cluster.js";

const index = servicePortIndex(
  makeCluster({
    services: [
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { namespace: "default", name: "kubernetes" },
        spec: {
          clusterIP: "10.96.0.1",
          clusterIPs: ["10.96.0.1"],
          ports: [{ name: "https", port: 443 }],
        },
      },
    ],
  }),
);

function snapshotWith(interfaces: Snapshot["interfaces"]): Snapshot {
  return { interfaces } as unknown as Snapshot;
}

test("link-local, loopback and other-family addresses on kube-ipvs0 are not kube-proxy's to unbind", () => {
  const s = snapshotWith([
    { name: "eth0", addresses: ["192.168.10.11/24"] },
    {
      name: "kube-ipvs0",
      addresses: ["10.96.0.1/32", "fe80::1c2b:3ff:fe4d:5e6f/64", "127.0.0.5/8", "fd00::7/128"],
    },
  ]);
  expect(diffIpvsAddresses(["10.96.0.1/32"], s, ["IPv4"], index).drifts).toEqual([]);
  // The IPv6 proxier of a dual-stack node counts fd00::7 (not the link-local one).
  expect(
    diffIpvsAddresses(["10.96.0.1/32"], s, ["IPv4", "IPv6"], index).drifts.map((d) => [
      d.kind,
      d.family,
      d.element,
    ]),
  ).toEqual([["extra-address", "IPv6", "fd00::7/128"]]);
});

test("an address bound with another prefix length or spelling is the same address", () => {
  const s = snapshotWith([{ name: "kube-ipvs0", addresses: ["fd00:0:0::a/64", "10.96.0.1/24"] }]);
  expect(
    diffIpvsAddresses(["10.96.0.1/32", "fd00::a/128"], s, ["IPv4", "IPv6"], index).drifts,
  ).toEqual([]);
});

test("no kube-ipvs0 on a node whose addresses were collected: every address is missing; none collected: not judged", () => {
  const s = snapshotWith([{ name: "eth0", addresses: ["192.168.10.11/24"] }]);
  expect(
    diffIpvsAddresses(["10.96.0.1/32", "10.96.0.10/32"], s, ["IPv4"], index).drifts.map(
      (d) => d.message,
    ),
  ).toEqual([
    "kube-ipvs0: missing address 10.96.0.1/32 (default/kubernetes)",
    "kube-ipvs0: missing address 10.96.0.10/32",
  ]);
  expect(diffIpvsAddresses(["10.96.0.1/32"], snapshotWith([]), ["IPv4"], index).drifts).toEqual([]);
});
