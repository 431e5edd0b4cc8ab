/**
 * The large inputs the whole-command benchmarks feed the CLI: N Services × E endpoints as
 * manifest YAML (one Service and one EndpointSlice document each, every 4th a NodePort), and the
 * NodeEnvironment they are rendered for. 10,000 × 10 is ~11.6 MB in 20,000 documents.
 */

export function servicesYaml(services: number, endpoints = 10): string {
  const docs: string[] = [];
  for (let i = 0; i < services; i++) {
    const ns = `ns${i % 50}`;
    const ip = `172.${16 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`;
    const nodePort = i % 4 === 0;
    docs.push(`apiVersion: v1
kind: Service
metadata:
  name: svc${i}
  namespace: ${ns}
spec:
  type: ${nodePort ? "NodePort" : "ClusterIP"}
  clusterIP: ${ip}
  selector:
    app: svc${i}
  ports:
  - name: http
    protocol: TCP
    port: 80
    targetPort: 8080${nodePort ? `\n    nodePort: ${30000 + (i % 2768)}` : ""}`);
    const eps: string[] = [];
    for (let e = 0; e < endpoints; e++)
      eps.push(`- addresses:
  - 10.${(i >> 8) & 255}.${i & 255}.${e + 1}
  conditions:
    ready: true
  nodeName: ${e % 3 === 0 ? "node-a" : "node-b"}`);
    docs.push(`apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: svc${i}-abcde
  namespace: ${ns}
  labels:
    kubernetes.io/service-name: svc${i}
addressType: IPv4
endpoints:
${eps.join("\n")}
ports:
- name: http
  protocol: TCP
  port: 8080`);
  }
  return `${docs.join("\n---\n")}\n`;
}

export const NODE_ENV_YAML = `apiVersion: kube-netsim.dev/v1alpha1
kind: NodeEnvironment
nodeName: node-a
ipFamilies: [IPv4]
nodeIPs: [192.168.0.2]
interfaces:
- name: lo
  addresses: [127.0.0.1/8]
- name: eth0
  addresses: [192.168.0.2/24]
kernel:
  iptablesRandomFully: true
  nfacct: []
  conntrackTCPBeLiberal: false
  ipvs: true
  sctp: true
`;
