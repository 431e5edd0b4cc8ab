import { performance } from "node:perf_hooks";
import { planFamily } from "../src/proxiers/common/plan.js";
import { proxierSettings } from "../src/proxiers/common/proxier-settings.js";
import { renderRestoreSections } from "../src/proxiers/iptables/render-restore.js";
import { nodeStateRestoreText } from "../src/proxiers/iptables/node-state.js";
import { DEFAULT_PROXY_CONFIG } from "../src/model/proxy-config.js";
import { makeCluster } from "../src/model/cluster.js";
const node: any = { nodeName: "node-a", ipFamilies: ["IPv4"], nodeIPs: ["192.168.0.2"],
  interfaces: [{ name: "lo", addresses: ["127.0.0.1/8"] }, { name: "eth0", addresses: ["192.168.0.2/24"] }],
  kernel: { iptablesRandomFully: true, nfacct: [], conntrackTCPBeLiberal: false, ipvs: true, sctp: true } };
function build(n: number) {
  const services: any[] = []; const endpointSlices: any[] = [];
  for (let i = 0; i < n; i++) {
    const nodePort = i % 4 === 0; const ip = `172.${16 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`;
    services.push({ metadata: { namespace: `ns${i % 50}`, name: `svc${i}` }, spec: { type: nodePort ? "NodePort" : "ClusterIP", clusterIP: ip, clusterIPs: [ip], ipFamilies: ["IPv4"], ports: [{ name: "http", protocol: "TCP", port: 80, targetPort: 8080, ...(nodePort ? { nodePort: 30000 + (i % 2768) } : {}) }] } });
    endpointSlices.push({ metadata: { namespace: `ns${i % 50}`, name: `svc${i}-abc`, labels: { "kubernetes.io/service-name": `svc${i}` } }, addressType: "IPv4",
      endpoints: Array.from({ length: 10 }, (_, e) => ({ addresses: [`10.${(i >> 8) & 255}.${i & 255}.${e + 1}`], conditions: { ready: true }, nodeName: e % 3 === 0 ? "node-a" : "node-b" })),
      ports: [{ name: "http", protocol: "TCP", port: 8080 }] });
  }
  return makeCluster({ services, endpointSlices });
}
const n = Number(process.argv[2] ?? 10000);
for (const size of [500, n]) {
  const cluster = build(size);
  const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
  let c = cpu(); const t = (label: string) => { const d = cpu(); if (size === n) console.log(label, (d - c).toFixed(0)); c = d; };
  const s = proxierSettings(cluster, "IPv4", { node, proxyConfig: DEFAULT_PROXY_CONFIG }); t("settings");
  const plan = planFamily(cluster, s); t("plan");
  const buf = renderRestoreSections(plan, {}); t("rules");
  const text = buf.text(); t("text");
  const ns = nodeStateRestoreText(buf); t("nodeState");
  if (size === n) console.log(text.length, ns.length);
}
