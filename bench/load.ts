/**
 * Loader throughput: parseCluster (decode with positions, shape check, defaulting, validation,
 * cross-object checks) against a baseline of plain `yaml` parsing of the same text, in the same
 * process. Prints the ratio; no absolute thresholds.
 *   npx tsx bench/load.ts [pods]
 */
import { parseAllDocuments } from "yaml";
import { parseCluster } from "../src/model/load.js";

const pods = Number(process.argv[2] ?? 3000);
const services = Math.ceil(pods / 10);

function manifest(): string {
  const docs: string[] = [];
  for (let s = 0; s < services; s++) {
    const ns = `ns-${s % 20}`;
    docs.push(`apiVersion: v1
kind: Service
metadata: {name: svc-${s}, namespace: ${ns}}
spec:
  clusterIP: 10.96.${s >> 8}.${s & 255}
  selector: {app: app-${s}}
  ports: [{name: http, port: 80, targetPort: http}, {name: dns, port: 53, protocol: UDP}]`);
    const eps: string[] = [];
    for (let p = s * 10; p < Math.min(pods, s * 10 + 10); p++)
      eps.push(
        `  - {addresses: [10.${(p >> 16) & 255}.${(p >> 8) & 255}.${p & 255}], nodeName: node-${p % 50}, conditions: {ready: true}}`,
      );
    docs.push(`apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: svc-${s}-abcde, namespace: ${ns}, labels: {kubernetes.io/service-name: svc-${s}}}
addressType: IPv4
endpoints:
${eps.join("\n")}
ports: [{name: http, port: 8080}, {name: dns, port: 53, protocol: UDP}]`);
  }
  for (let p = 0; p < pods; p++)
    docs.push(`apiVersion: v1
kind: Pod
metadata: {name: pod-${p}, namespace: ns-${Math.floor(p / 10) % 20}, labels: {app: app-${Math.floor(p / 10)}}}
spec:
  nodeName: node-${p % 50}
  containers: [{name: c, image: nginx, ports: [{name: http, containerPort: 8080}, {name: dns, containerPort: 53, protocol: UDP}]}]
status: {phase: Running, podIP: 10.${(p >> 16) & 255}.${(p >> 8) & 255}.${p & 255}}`);
  return docs.join("\n---\n");
}

function time(f: () => void, reps: number): number {
  f();
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) f();
  return (performance.now() - t0) / reps;
}

const text = manifest();
const baseline = time(() => {
  const docs = parseAllDocuments(text);
  if (Array.isArray(docs)) for (const d of docs) d.toJS();
}, 3);
const load = time(() => parseCluster([{ file: "bench.yaml", text }]), 3);
console.log(
  `objects: ${pods} pods, ${services} services, ${services} slices (${(text.length / 1e6).toFixed(1)} MB)`,
);
console.log(`parseCluster / yaml parse+toJS: ${(load / baseline).toFixed(2)}x`);
