/**
 * A snapshot's routes reach the tracer: MASQUERADE picks the source address the kernel would
 * (issue #19 item 1: eth0 holds 172.16.0.10/24 and 192.168.0.10/24, the default route goes via
 * 192.168.0.1, so the kernel uses 192.168.0.10, not the interface's first address).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "@jest/globals";
import { readSnapshot, snapshotDataplane } from "../../src/backends/snapshot/read.js";
import { trace } from "../../src/netfilter/trace/tracer.js";

const dir = mkdtempSync(join(tmpdir(), "kns-snapshot-routes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

writeFileSync(
  join(dir, "manifest.json"),
  JSON.stringify({
    kind: "kube-netsim-snapshot",
    version: 1,
    collectedAt: "2026-12-01T00:00:00Z",
    hostname: "node-1",
    kernel: "6.1.0",
    items: [],
  }),
);
writeFileSync(
  join(dir, "iptables-save.txt"),
  [
    "*nat",
    ":PREROUTING ACCEPT [0:0]",
    ":INPUT ACCEPT [0:0]",
    ":OUTPUT ACCEPT [0:0]",
    ":POSTROUTING ACCEPT [0:0]",
    "-A PREROUTING -d 192.168.0.10/32 -p tcp -m tcp --dport 30080 -j DNAT --to-destination 10.244.1.5:8080",
    "-A POSTROUTING -d 10.244.1.5/32 -j MASQUERADE",
    "COMMIT",
    "",
  ].join("\n"),
);
// What `ip -j route show table all` prints: main-table routes, and local-table ones that the
// tracer must not take as routes.
writeFileSync(
  join(dir, "ip-route.json"),
  JSON.stringify([
    { dst: "default", gateway: "192.168.0.1", dev: "eth0", flags: [] },
    {
      dst: "172.16.0.0/24",
      dev: "eth0",
      protocol: "kernel",
      scope: "link",
      prefsrc: "172.16.0.10",
    },
    {
      dst: "192.168.0.0/24",
      dev: "eth0",
      protocol: "kernel",
      scope: "link",
      prefsrc: "192.168.0.10",
    },
    { type: "local", dst: "172.16.0.10", table: "local", dev: "eth0", scope: "host" },
    { type: "broadcast", dst: "192.168.0.255", table: "local", dev: "eth0", scope: "link" },
  ]),
);
writeFileSync(
  join(dir, "ip-addr.json"),
  JSON.stringify([
    { ifname: "lo", addr_info: [{ family: "inet", local: "127.0.0.1", prefixlen: 8 }] },
    {
      ifname: "eth0",
      addr_info: [
        { family: "inet", local: "172.16.0.10", prefixlen: 24 },
        { family: "inet", local: "192.168.0.10", prefixlen: 24 },
      ],
    },
  ]),
);

describe("snapshot routes", () => {
  it("keeps the main table's unicast routes only", () => {
    expect(readSnapshot(dir).routes).toEqual([
      { dst: "default", gateway: "192.168.0.1", dev: "eth0" },
      { dst: "172.16.0.0/24", dev: "eth0" },
      { dst: "192.168.0.0/24", dev: "eth0" },
    ]);
  });

  it("trace --snapshot masquerades to the address in the next hop's subnet", () => {
    const { dataplane } = snapshotDataplane(dir);
    const r = trace(dataplane, {
      proto: "tcp",
      src: "192.168.0.20",
      dst: "192.168.0.10",
      dport: 30080,
    });
    expect(r.outcomes).toHaveLength(1);
    expect(r.outcomes[0]).toMatchObject({
      destination: "10.244.1.5:8080",
      masquerade: true,
      source: "192.168.0.10:40000",
    });
  });
});
