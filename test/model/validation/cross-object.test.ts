import { describe, expect, test } from "@jest/globals";
import { messages } from "../helpers.js";

const POD = (name: string, extra: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ns, labels: {app: ${name}}}
${extra}
---
`;

describe("cross-object warnings", () => {
  test("EndpointSlice for a Service that is not there", () => {
    expect(
      messages(`apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: e, namespace: ns, labels: {kubernetes.io/service-name: gone}}
addressType: IPv4
endpoints: []
`),
    ).toEqual([
      "EndpointSlice ns/e: metadata.labels: warning: Service ns/gone named by label kubernetes.io/service-name is not in the manifests",
    ]);
  });

  test("Pod on a Node that is not declared (when Nodes are declared at all)", () => {
    const text = POD("a", "spec: {nodeName: node-9, containers: [{name: c}]}");
    expect(messages(text)).toEqual([]);
    expect(messages(`${text}apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n`)).toEqual([
      'Pod ns/a: spec.nodeName: warning: Node "node-9" is not in the manifests',
    ]);
  });

  test("two pods with one IP (host-network pods excluded)", () => {
    expect(
      messages(
        POD("a", "spec: {containers: [{name: c}]}\nstatus: {podIP: 10.0.0.5}") +
          POD("b", "spec: {containers: [{name: c}]}\nstatus: {podIP: 10.0.0.5}") +
          POD("h", "spec: {hostNetwork: true, containers: [{name: c}]}\nstatus: {podIP: 10.0.0.5}"),
      ),
    ).toEqual([
      "Pod ns/b: status.podIPs[0].ip: warning: pod IP 10.0.0.5 is also the IP of pod ns/a",
    ]);
  });

  test("NetworkPolicy named port that no pod it applies to declares (name and protocol)", () => {
    const pods =
      POD("web", "spec: {containers: [{name: c, ports: [{name: http, containerPort: 80}]}]}") +
      POD(
        "dns",
        "spec: {containers: [{name: c, ports: [{name: dns, containerPort: 53, protocol: UDP}]}]}",
      );
    expect(
      messages(`${pods}apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: np, namespace: ns}
spec:
  podSelector: {matchLabels: {app: web}}
  ingress: [{ports: [{port: http}, {port: dns, protocol: UDP}, {port: http, protocol: UDP}]}]
  egress: [{ports: [{port: dns, protocol: UDP}, {port: metrics}]}]
`),
    ).toEqual([
      'NetworkPolicy ns/np: spec.ingress[0].ports[1].port: warning: named port "dns" (UDP) is not declared by any pod this policy selects',
      'NetworkPolicy ns/np: spec.ingress[0].ports[2].port: warning: named port "http" (UDP) is not declared by any pod this policy selects',
      'NetworkPolicy ns/np: spec.egress[0].ports[1].port: warning: named port "metrics" (TCP) is not declared by any pod',
    ]);
  });
});
