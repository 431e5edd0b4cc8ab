/**
 * Real-kernel checks (scratch network namespaces, prefix "kns-ipvs"). This kernel has no IPVS:
 * the ipsets and the iptables payload are checked for real, the IPVS table only where the
 * kernel has IPVS (skipped with the reason otherwise).
 */
import { describe, expect } from "@jest/globals";
import { spawnSync } from "node:child_process";
import { withNetns } from "../../../src/backends/netns.js";
import { parseIpvsadmSave } from "../../../src/netfilter/ipvs/index.js";
import { kernelRulesOnly, kernelTest } from "../../helpers/kernel.js";
import {
  NODE,
  chainRules,
  ipsetEntries,
  ipsetTypes,
  jumpAndMatchSet,
  renderYaml,
  tableAsSet,
} from "./helpers.js";

// Rules only: loads, checks and listings in its own namespaces, nothing timed.
kernelRulesOnly();

const CLUSTER = `apiVersion: v1
kind: Service
metadata: {name: s, namespace: d}
spec:
  type: LoadBalancer
  clusterIP: 10.20.30.41
  externalIPs: [50.60.70.81]
  externalTrafficPolicy: Local
  healthCheckNodePort: 30000
  loadBalancerSourceRanges: [1.2.3.0/24, 100.101.0.0/16, 198.18.0.7/32]
  ports: [{name: a, port: 80, protocol: TCP, nodePort: 3001}, {name: b, port: 81, protocol: SCTP, nodePort: 3002}, {name: c, port: 82, protocol: UDP, nodePort: 3003}]
status: {loadBalancer: {ingress: [{ip: 1.2.3.4}]}}
---
apiVersion: v1
kind: Service
metadata: {name: t, namespace: d}
spec:
  type: NodePort
  clusterIP: 10.20.30.42
  externalIPs: [50.60.70.82]
  sessionAffinity: ClientIP
  ports: [{name: a, port: 80, protocol: TCP, nodePort: 3004}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: s-1, namespace: d, labels: {kubernetes.io/service-name: s}}
addressType: IPv4
endpoints:
- addresses: [10.180.0.1]
  nodeName: test-node
- addresses: [10.180.0.2]
  nodeName: other
ports: [{name: a, port: 80, protocol: TCP}, {name: b, port: 81, protocol: SCTP}, {name: c, port: 82, protocol: UDP}]
`;

// The node IP lies in a source range, so no `-m ipvs` rule is written (xt_ipvs needs IPVS).
const out = renderYaml(CLUSTER, { ...NODE, nodeIPs: ["100.101.102.103"] });
const family = out.state.families[0]!;

/** `create` options without the kernel's random bucketsize/initval. */
function stableTypes(text: string): Map<string, string> {
  const m = ipsetTypes(text);
  for (const [k, v] of m)
    m.set(k, v.replace(/ bucketsize \d+/, "").replace(/ initval 0x[0-9a-f]+/, ""));
  return m;
}
const sortedEntries = (text: string) =>
  new Map([...ipsetEntries(text)].map(([k, v]) => [k, [...v].sort()]));

describe("IPVS proxier on a real kernel", () => {
  kernelTest(
    "ipset restore then ipset save gives back the 17 sets, types and entries",
    ["root", "ip", "ipset"],
    async () => {
      await withNetns(
        1,
        ([ns]) => {
          ns!.exec("ipset", ["restore"], out.ipset);
          const saved = ns!.exec("ipset", ["save"]);
          expect(stableTypes(saved)).toEqual(stableTypes(out.ipset));
          expect(stableTypes(saved).size).toBe(17);
          expect(sortedEntries(saved)).toEqual(sortedEntries(out.ipset));
        },
        "kns-ipvs",
      );
    },
  );

  kernelTest(
    "the iptables payload (with jump rules) loads and iptables-save keeps every rule in order",
    ["root", "ip", "iptables", "ipset"],
    async () => {
      await withNetns(
        1,
        ([ns]) => {
          ns!.exec("ipset", ["restore"], out.ipset);
          ns!.exec("iptables-restore", [], family.iptablesWithJumps);
          // kube-proxy's own call: --noflush on top of what is there must load again.
          ns!.exec("iptables-restore", ["--noflush", "--counters"], family.iptables);
          const saved = ns!.exec("iptables-save", []);
          const chains = [
            ["nat", "KUBE-SERVICES"],
            ["nat", "KUBE-POSTROUTING"],
            ["nat", "KUBE-NODE-PORT"],
            ["nat", "KUBE-LOAD-BALANCER"],
            ["nat", "KUBE-MARK-MASQ"],
            ["filter", "KUBE-FORWARD"],
            ["filter", "KUBE-NODE-PORT"],
            ["filter", "KUBE-PROXY-FIREWALL"],
            ["filter", "KUBE-SOURCE-RANGES-FIREWALL"],
            ["filter", "KUBE-IPVS-FILTER"],
            ["filter", "KUBE-IPVS-OUT-FILTER"],
            ["filter", "INPUT"],
            ["filter", "FORWARD"],
            ["filter", "OUTPUT"],
            ["nat", "PREROUTING"],
            ["nat", "OUTPUT"],
            ["nat", "POSTROUTING"],
          ] as const;
          for (const [table, chain] of chains) {
            const ours = chainRules(family.iptablesWithJumps, table, chain).map(jumpAndMatchSet);
            const kernel = chainRules(saved, table, chain).map(jumpAndMatchSet);
            expect({ table, chain, rules: kernel }).toEqual({ table, chain, rules: ours });
          }
          // Built-in chains start with the jumps in the order the prepends leave them (§5.1).
          expect(chainRules(saved, "filter", "INPUT").map((l) => jumpAndMatchSet(l).jump)).toEqual([
            "KUBE-IPVS-FILTER",
            "KUBE-PROXY-FIREWALL",
            "KUBE-NODE-PORT",
          ]);
          // What the kernel prints for kube-proxy's mark rules (§5.2: 0x004000 → 0x4000).
          expect(saved).toContain("-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN\n");
          expect(saved).toContain("-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000\n");
        },
        "kns-ipvs",
      );
    },
  );

  kernelTest(
    "a real IPVS table loaded with ipvsadm-restore reads back as the rendered one",
    ["root", "ip", "ipvs"],
    async () => {
      const lb = renderYaml(CLUSTER);
      await withNetns(
        1,
        ([ns]) => {
          const hasIpvsadm = spawnSync("sh", ["-c", "command -v ipvsadm-restore"]).status === 0;
          expect(hasIpvsadm).toBe(true);
          ns!.exec("ipvsadm-restore", [], lb.ipvs);
          const saved = ns!.exec("ipvsadm-save", ["-n"]);
          expect(tableAsSet(parseIpvsadmSave(saved))).toEqual(tableAsSet(lb.state.table));
          // With IPVS present, the `-m ipvs` DROP rules of KUBE-IPVS-OUT-FILTER load too.
          ns!.exec("ipset", ["restore"], lb.ipset);
          ns!.exec("iptables-restore", [], lb.state.families[0]!.iptablesWithJumps);
        },
        "kns-ipvs",
      );
    },
  );
});
