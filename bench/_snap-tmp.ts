import { createHash } from "node:crypto";
import { writeFileSync, readFileSync, existsSync } from "node:fs";
import fc from "fast-check";
import { kubeCluster } from "../src/testing/arbitraries/kubeCluster.js";
import { renderIptables } from "../src/proxiers/iptables/render-iptables.js";
import { renderIpvs } from "../src/proxiers/ipvs/render.js";
import { DEFAULT_PROXY_CONFIG } from "../src/model/proxy-config.js";
import { makeCluster } from "../src/model/cluster.js";
import { loadCluster } from "../src/model/load-files.js";

const base: any = { nodeName: "test-node", ipFamilies: ["IPv4"], nodeIPs: ["192.168.0.2"],
  interfaces: [{ name: "lo", addresses: ["127.0.0.1/8", "::1/128"] }, { name: "eth0", addresses: ["192.168.0.2/24", "192.168.1.2/24", "2001:db8::1/64"] }],
  kernel: { iptablesRandomFully: false, nfacct: ["ct_state_invalid_dropped_pkts", "localhost_nps_accepted_pkts"], conntrackTCPBeLiberal: false, ipvs: true, sctp: true } };
const nodes: any[] = [
  base,
  { ...base, kernel: { ...base.kernel, iptablesRandomFully: true, nfacct: [], conntrackTCPBeLiberal: true } },
  { ...base, ipFamilies: ["IPv6"], nodeIPs: ["2001:db8::1"] },
  { ...base, ipFamilies: ["IPv4", "IPv6"], nodeIPs: ["192.168.0.2", "2001:db8::1"] },
];
const C = DEFAULT_PROXY_CONFIG as any;
const configs: any[] = [
  { ...C, hostnameOverride: "test-node", clusterCIDR: "10.0.0.0/8,fd00:10::/64", detectLocalMode: "ClusterCIDR" },
  { ...C, iptables: { ...C.iptables, masqueradeAll: true, masqueradeBit: 5 } },
  { ...C, detectLocalMode: "BridgeInterface", detectLocal: { ...C.detectLocal, bridgeInterface: "cbr0" }, nodePortAddresses: ["192.168.0.0/24", "127.0.0.1/32"] },
  { ...C, detectLocalMode: "InterfaceNamePrefix", detectLocal: { ...C.detectLocal, interfaceNamePrefix: "veth" }, nodePortAddresses: ["primary"], iptables: { ...C.iptables, localhostNodePorts: false } },
];
const h = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 16);
const out: Record<string, string> = {};
const samples = fc.sample(kubeCluster({ maxServices: 8 }), { seed: 42, numRuns: 250 });
samples.forEach((g, i) => {
  const node = nodes[i % nodes.length]; const proxyConfig = configs[(i >> 2) % configs.length];
  for (const [k, opts] of [["a", {}], ["p", { masqueradeMarkFormat: "padded" }], ["l", { largeClusterMode: true }]] as const) {
    const r = renderIptables(g.cluster, { node, proxyConfig, ...opts });
    out[`${i}${k}`] = h(r.families.map((f) => f.restore + "\0" + f.nodeState + "\0" + f.save).join("\n"));
  }
  try { out[`${i}ipvs`] = h(JSON.stringify(renderIpvs(g.cluster, { node, proxyConfig }), (_k, v) => typeof v === "bigint" ? v.toString() : v)); } catch (e) { out[`${i}ipvs`] = "ERR " + String(e); }
});
for (const dir of ["examples/sctp-service", "examples/nodeport-loadbalancer", "examples/multi-namespace-app", "examples/sctp-nodeport"]) {
  try { const cl = loadCluster([dir], { validation: "warn" } as any); for (let j = 0; j < 4; j++) {
    const r = renderIptables(cl, { node: nodes[j], proxyConfig: configs[j] }); out[`${dir}${j}`] = h(r.families.map((f) => f.restore + f.nodeState + f.save).join("\n")); } } catch (e) { out[dir] = "ERR " + String(e).slice(0, 100); }
}
const bigFile = "/tmp/kpb/big.txt";
{
  // bench-like cluster, 3000 services
  const services: any[] = []; const endpointSlices: any[] = [];
  for (let i = 0; i < 3000; i++) { const nodePort = i % 4 === 0; const ip = `172.${16 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`;
    services.push({ metadata: { namespace: `ns${i % 50}`, name: `svc${i}` }, spec: { type: nodePort ? "NodePort" : "ClusterIP", clusterIP: ip, clusterIPs: [ip], ipFamilies: ["IPv4"], ports: [{ name: "http", protocol: "TCP", port: 80, targetPort: 8080, ...(nodePort ? { nodePort: 30000 + (i % 2768) } : {}) }] } });
    endpointSlices.push({ metadata: { namespace: `ns${i % 50}`, name: `svc${i}-abc`, labels: { "kubernetes.io/service-name": `svc${i}` } }, addressType: "IPv4",
      endpoints: Array.from({ length: 10 }, (_, e) => ({ addresses: [`10.${(i >> 8) & 255}.${i & 255}.${e + 1}`], conditions: { ready: true }, nodeName: e % 3 === 0 ? "test-node" : "node-b" })), ports: [{ name: "http", protocol: "TCP", port: 8080 }] }); }
  const r = renderIptables(makeCluster({ services, endpointSlices }), { node: base, proxyConfig: configs[0] });
  out.big = h(r.restore + r.families[0]!.nodeState + r.save);
  if (!existsSync(bigFile)) writeFileSync(bigFile, r.restore);
}
const file = "/tmp/kpb/snap.json";
if (process.argv[2] === "save") { writeFileSync(file, JSON.stringify(out)); console.log("saved", Object.keys(out).length); }
else { const ref = JSON.parse(readFileSync(file, "utf8")); let bad = 0; for (const k of Object.keys(ref)) if (ref[k] !== out[k]) { bad++; if (bad < 10) console.log("DIFF", k); }
  console.log(Object.keys(ref).length, "compared,", bad, "differ", Object.values(out).filter((v) => String(v).startsWith("ERR")).length, "errors"); }
