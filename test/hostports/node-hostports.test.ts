/**
 * Pods → rules for a node. The acceptance case's cluster.yaml holds the Pods equivalent to its
 * Add sequence (all but the repeated pod3 call), so with the upstream sandbox id "id" the node's
 * rules and sockets must be exactly the oracles of shared/acceptance/hostports/hostport-manager-ipv4.
 */
import { describe, expect, test } from "@jest/globals";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  formatHostSocket,
  hostportRulesForNode,
  nodeModuleReport,
  sandboxIDOf,
} from "../../src/hostports/index.js";
import { makeCluster } from "../../src/model/cluster.js";
import { parseCluster } from "../../src/model/load.js";
import type { NodeEnvironment } from "../../src/model/node-environment.js";
import { nodeEnv } from "../../src/testing/builders/node-env.js";
import type { Pod } from "../../src/model/kinds.js";
import { ACCEPTANCE_DIR } from "../helpers/shared.js";

const CASE = join(ACCEPTANCE_DIR, "hostports/hostport-manager-ipv4");
const EXAMPLE = join(__dirname, "../../examples/sctp-hostport");
const read = (dir: string, f: string) => readFileSync(join(dir, f), "utf8");

const testNode: NodeEnvironment = nodeEnv({
  name: "test-node",
  ips: ["192.168.0.2"],
  interfaces: [{ name: "lo", addresses: ["127.0.0.1/8"] }],
});

describe("hostportRulesForNode (kubenet)", () => {
  const cluster = parseCluster([{ file: "cluster.yaml", text: read(CASE, "cluster.yaml") }]);
  const result = hostportRulesForNode(cluster, testNode, {
    impl: "kubenet",
    sandboxID: () => "id",
  });

  test("the acceptance pods give exactly the oracle's lines and sockets", () => {
    const allowed = new Set(
      read(CASE, "expected.iptables")
        .split("\n")
        .filter((l) => l !== ""),
    );
    const restore = result.families[0]!.restore;
    const rules = restore.split("\n").filter((l) => l.startsWith("-A "));
    expect(new Set(rules)).toEqual(new Set([...allowed].filter((l) => l.startsWith("-A "))));
    const sockets = read(CASE, "expected.sockets")
      .split("\n")
      .filter((l) => l !== "" && !l.startsWith("#"))
      .sort();
    expect(result.sockets.map(formatHostSocket).sort()).toEqual(sockets);
  });

  test("pod2's Add fails as in the upstream test; the others succeed", () => {
    expect(result.pods.map((p) => [p.name, p.error !== undefined])).toEqual([
      ["pod1", false],
      ["pod2", true],
      ["pod3", false],
      ["pod4", false],
      ["pod5", false],
      ["pod6", false],
    ]);
  });

  test("the module report needs xt_sctp for the SCTP rule but never the sctp module", () => {
    const r = nodeModuleReport(result);
    const names = r.modules.map((m) => m.module);
    expect(names).toEqual(
      expect.arrayContaining([
        "iptable_nat",
        "xt_comment",
        "xt_tcpudp",
        "xt_sctp",
        "xt_addrtype",
        "xt_nat",
        "xt_MASQUERADE",
        "nf_conntrack_netlink",
      ]),
    );
    expect(names).not.toContain("sctp");
    expect(r.sctpModuleNeeded).toBe(false);
    expect(r.unmapped).toEqual([]);
  });

  test("an SCTP socket would need the sctp module", () => {
    const r = nodeModuleReport({
      families: result.families,
      sockets: [{ family: "IPv4", hostIP: "", port: 5060, protocol: "sctp" }],
    });
    expect(r.sctpModuleNeeded).toBe(true);
  });
});

describe("hostportRulesForNode details", () => {
  const example = parseCluster([{ file: "pods.yaml", text: read(EXAMPLE, "pods.yaml") }]);
  const node: NodeEnvironment = { ...testNode, nodeName: "node-a" };

  test("portmap uses the node's pod CIDR prefix and opens no socket", () => {
    const r = hostportRulesForNode(example, node, { impl: "portmap" });
    expect(r.sockets).toEqual([]);
    const restore = r.families[0]!.restore;
    expect(restore).toContain("-p sctp --dport 5060 -s 10.244.1.5/24 -j CNI-HOSTPORT-SETMARK");
    expect(restore).toContain("-p sctp --dport 5060 -j DNAT --to-destination 10.244.1.5:5060");
    expect(nodeModuleReport(r).sctpModuleNeeded).toBe(false);
  });

  test("pods are taken in creation order, other nodes and hostNetwork pods are ignored", () => {
    const pod = (name: string, ts: string | undefined, extra: Partial<Pod["spec"]> = {}): Pod => ({
      metadata: {
        name,
        namespace: "default",
        ...(ts !== undefined ? { creationTimestamp: ts } : {}),
      },
      spec: {
        nodeName: "node-a",
        containers: [{ name: "c", ports: [{ containerPort: 80, hostPort: 80, protocol: "SCTP" }] }],
        ...extra,
      },
      status: { podIP: "10.244.1.9", podIPs: [{ ip: "10.244.1.9" }] },
    });
    const cluster = makeCluster({
      pods: [
        pod("late", "2026-01-02T00:00:00Z"),
        pod("early", "2026-01-01T00:00:00Z"),
        pod("elsewhere", undefined, { nodeName: "node-b" }),
        pod("host", undefined, { hostNetwork: true }),
      ],
    });
    const r = hostportRulesForNode(cluster, node, { impl: "kubenet" });
    expect(r.pods.map((p) => p.name)).toEqual(["early", "late"]);
    // Newest first in KUBE-HOSTPORTS.
    const jumps = r.families[0]!.restore.split("\n").filter((l) =>
      l.startsWith("-A KUBE-HOSTPORTS"),
    );
    expect(jumps[0]).toContain("late_default");
  });

  test("sandbox ids: annotation, then uid, then namespace_name", () => {
    expect(
      sandboxIDOf({
        metadata: {
          name: "a",
          namespace: "n",
          uid: "u",
          annotations: { "kube-netsim.dev/sandbox-id": "s" },
        },
      }),
    ).toBe("s");
    expect(sandboxIDOf({ metadata: { name: "a", namespace: "n", uid: "u" } })).toBe("u");
    expect(sandboxIDOf({ metadata: { name: "a", namespace: "n" } })).toBe("n_a");
  });

  test("dual-stack: one manager per family", () => {
    const cluster = makeCluster({
      pods: [
        {
          metadata: { name: "ds", namespace: "default" },
          spec: {
            nodeName: "node-a",
            containers: [{ name: "c", ports: [{ containerPort: 80, hostPort: 80 }] }],
          },
          status: { podIPs: [{ ip: "10.244.1.7" }, { ip: "fd00::7" }] },
        },
      ],
    });
    const r = hostportRulesForNode(
      cluster,
      { ...node, ipFamilies: ["IPv4", "IPv6"] },
      { impl: "kubenet" },
    );
    expect(r.families.map((f) => f.family)).toEqual(["IPv4", "IPv6"]);
    expect(r.families[1]!.restore).toContain("--to-destination [fd00::7]:80");
    expect(r.sockets.map(formatHostSocket)).toEqual(["IPv4 * 80 tcp", "IPv6 * 80 tcp"]);
  });
});
