import { parseIptables } from "../src/netfilter/index.js";
import { buildDataplane, trace } from "../src/netfilter/trace/index.js";
import { kubeProxyDump } from "./iptables-parse.js";
const rs = parseIptables(kubeProxyDump(1000, 10).replace("COMMIT\n*nat", '-A FORWARD -j KUBE-FORWARD\nCOMMIT\n*nat').replace(/COMMIT\n$/, "-A PREROUTING -j KUBE-SERVICES\n-A POSTROUTING -j KUBE-POSTROUTING\nCOMMIT\n"), { file: "x", family: "IPv4" });
const dp = buildDataplane({ ruleSets: [rs], interfaces: [{ name: "lo", addresses: ["127.0.0.1/8"] },{ name: "eth0", addresses: ["192.168.0.2/24"] },{ name: "cbr0", addresses: ["10.244.0.1/14"] }] });
const spec = { proto: "tcp" as const, src: "10.240.1.2", sport: 1234, dst: "172.16.1.2", dport: 80 };
const mode = process.argv[2] ?? "a";
console.log(trace(dp, spec, { explain: false }).outcomes.length);
for (let i = 0; i < 5000; i++) trace(dp, spec, { explain: false });
let best = Infinity;
for (let r = 0; r < 7; r++) {
const c = process.cpuUsage(); const n = 5000;
for (let i = 0; i < n; i++) trace(dp, spec, { explain: false });
const u = process.cpuUsage(c); best = Math.min(best, (u.user + u.system) / n); }
console.log(mode, "min us/packet", best.toFixed(2));
