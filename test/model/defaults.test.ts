import { describe, expect, test } from "@jest/globals";
import { load } from "./helpers.js";

const svc = (spec: string, extra = "") => `apiVersion: v1
kind: Service
metadata: {name: s}
spec: ${spec}
${extra}`;

describe("Service defaulting (SetDefaults_Service and the registry)", () => {
  test("type ClusterIP, sessionAffinity None, port protocol TCP, targetPort = port, internalTrafficPolicy Cluster", () => {
    const s = load(svc("{ports: [{port: 80}]}")).services[0]!;
    expect(s.spec).toEqual({
      type: "ClusterIP",
      sessionAffinity: "None",
      ports: [{ port: 80, protocol: "TCP", targetPort: 80 }],
      internalTrafficPolicy: "Cluster",
      ipFamilyPolicy: "SingleStack",
    });
  });

  test('targetPort 0 and "" are replaced by port; a named targetPort is kept', () => {
    const s = load(
      svc(
        '{ports: [{name: a, port: 80, targetPort: 0}, {name: b, port: 81, targetPort: ""}, {name: c, port: 82, targetPort: web}]}',
      ),
    ).services[0]!;
    expect(s.spec?.ports?.map((p) => p.targetPort)).toEqual([80, 81, "web"]);
  });

  test("ClientIP affinity gets the 10800 s timeout; None drops a config", () => {
    const a = load(svc("{sessionAffinity: ClientIP, ports: [{port: 80}]}")).services[0]!;
    expect(a.spec?.sessionAffinityConfig).toEqual({ clientIP: { timeoutSeconds: 10800 } });
    const b = load(
      svc(
        "{sessionAffinity: ClientIP, sessionAffinityConfig: {clientIP: {timeoutSeconds: 60}}, ports: [{port: 80}]}",
      ),
    ).services[0]!;
    expect(b.spec?.sessionAffinityConfig).toEqual({ clientIP: { timeoutSeconds: 60 } });
  });

  test("externalTrafficPolicy Cluster for NodePort, LoadBalancer and ClusterIP with externalIPs only", () => {
    const types = load(`${svc("{type: NodePort, ports: [{port: 80}]}")}
---
apiVersion: v1
kind: Service
metadata: {name: lb}
spec: {type: LoadBalancer, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: ext}
spec: {externalIPs: [192.0.2.1], ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: plain}
spec: {ports: [{port: 80}]}
`).services;
    expect(types.map((s) => s.spec?.externalTrafficPolicy)).toEqual([
      "Cluster",
      "Cluster",
      "Cluster",
      undefined,
    ]);
  });

  test("LoadBalancer: allocateLoadBalancerNodePorts true, ingress ipMode VIP when an IP is set", () => {
    const s = load(
      svc(
        "{type: LoadBalancer, ports: [{port: 80}]}",
        "status: {loadBalancer: {ingress: [{ip: 192.0.2.10}, {hostname: lb.example.com}]}}",
      ),
    ).services[0]!;
    expect(s.spec?.allocateLoadBalancerNodePorts).toBe(true);
    expect(s.status?.loadBalancer?.ingress).toEqual([
      { ip: "192.0.2.10", ipMode: "VIP" },
      { hostname: "lb.example.com" },
    ]);
  });

  test("clusterIPs from clusterIP, ipFamilies from the IPs, SingleStack", () => {
    const s = load(svc("{clusterIP: 172.30.0.41, ports: [{port: 80}]}")).services[0]!;
    expect(s.spec?.clusterIPs).toEqual(["172.30.0.41"]);
    expect(s.spec?.ipFamilies).toEqual(["IPv4"]);
    expect(s.spec?.ipFamilyPolicy).toBe("SingleStack");
  });

  test("two clusterIPs default to RequireDualStack with both families in order", () => {
    const s = load(
      svc("{clusterIP: fd00::10, clusterIPs: [fd00::10, 10.96.0.10], ports: [{port: 80}]}"),
    ).services[0]!;
    expect(s.spec?.ipFamilies).toEqual(["IPv6", "IPv4"]);
    expect(s.spec?.ipFamilyPolicy).toBe("RequireDualStack");
  });

  test("clusterIP from clusterIPs[0]", () => {
    const s = load(svc("{clusterIPs: [10.96.0.10], ports: [{port: 80}]}")).services[0]!;
    expect(s.spec?.clusterIP).toBe("10.96.0.10");
  });

  test("headless: no families; RequireDualStack without a selector, SingleStack with one", () => {
    const a = load(svc("{clusterIP: None, ports: [{port: 80}]}")).services[0]!;
    expect(a.spec?.ipFamilyPolicy).toBe("RequireDualStack");
    expect(a.spec?.ipFamilies).toBeUndefined();
    const b = load(svc("{clusterIP: None, selector: {app: x}, ports: [{port: 80}]}")).services[0]!;
    expect(b.spec?.ipFamilyPolicy).toBe("SingleStack");
  });

  test("ExternalName gets no traffic policy or IP family fields", () => {
    const s = load(svc("{type: ExternalName, externalName: db.example.com}")).services[0]!;
    expect(s.spec).toEqual({
      type: "ExternalName",
      externalName: "db.example.com",
      sessionAffinity: "None",
    });
  });
});

describe("Pod defaulting", () => {
  test("container port protocol TCP (containers and initContainers); podIPs from podIP", () => {
    const p = load(`apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  initContainers: [{name: i, ports: [{containerPort: 9}]}]
  containers: [{name: c, ports: [{containerPort: 80}, {containerPort: 53, protocol: UDP}]}]
status: {podIP: 10.0.0.5, hostIP: 192.168.0.2}
`).pods[0]!;
    expect(p.spec?.containers[0]?.ports?.map((x) => x.protocol)).toEqual(["TCP", "UDP"]);
    expect(p.spec?.initContainers?.[0]?.ports?.[0]?.protocol).toBe("TCP");
    expect(p.status?.podIPs).toEqual([{ ip: "10.0.0.5" }]);
    expect(p.status?.hostIPs).toEqual([{ ip: "192.168.0.2" }]);
  });

  test("podIP from podIPs[0]", () => {
    const p = load(`apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c}]}
status: {podIPs: [{ip: 10.0.0.5}, {ip: "fd00::5"}]}
`).pods[0]!;
    expect(p.status?.podIP).toBe("10.0.0.5");
  });

  test("hostNetwork pods: hostPort defaults to containerPort", () => {
    const p = load(`apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {hostNetwork: true, containers: [{name: c, ports: [{containerPort: 8080}]}]}
`).pods[0]!;
    expect(p.spec?.containers[0]?.ports?.[0]).toEqual({
      containerPort: 8080,
      hostPort: 8080,
      protocol: "TCP",
    });
  });
});

describe("other kinds", () => {
  test("Namespace gets (and keeps) the kubernetes.io/metadata.name label", () => {
    const ns = load(
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: a, labels: {kubernetes.io/metadata.name: wrong, x: y}}\n",
    ).namespaces[0]!;
    expect(ns.metadata?.labels).toEqual({ "kubernetes.io/metadata.name": "a", x: "y" });
  });

  test("Node podCIDRs from podCIDR", () => {
    const n = load(
      "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nspec: {podCIDR: 10.244.1.0/24}\n",
    ).nodes[0]!;
    expect(n.spec?.podCIDRs).toEqual(["10.244.1.0/24"]);
  });

  test('EndpointSlice ports: name "" and protocol TCP', () => {
    const s = load(`apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: e}
addressType: IPv4
endpoints: []
ports: [{port: 80}]
`).endpointSlices[0]!;
    expect(s.ports).toEqual([{ name: "", port: 80, protocol: "TCP" }]);
  });

  test("NetworkPolicy: podSelector {}, policyTypes from egress, port protocol TCP", () => {
    const c = load(`apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: a}
spec:
  podSelector:
  ingress: [{ports: [{port: 80}, {}]}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: b}
spec:
  podSelector: {}
  egress: [{}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: c}
spec:
  podSelector: {}
  egress: []
  policyTypes: []
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: d}
spec:
  podSelector: {}
  policyTypes: [Egress]
  ingress: [{}]
`);
    const [a, b, cc, d] = c.networkPolicies;
    expect(a?.spec?.podSelector).toEqual({});
    expect(a?.spec?.ingress?.[0]?.ports).toEqual([
      { port: 80, protocol: "TCP" },
      { protocol: "TCP" },
    ]);
    expect(a?.spec?.policyTypes).toEqual(["Ingress"]);
    expect(b?.spec?.policyTypes).toEqual(["Ingress", "Egress"]);
    expect(cc?.spec?.policyTypes).toEqual(["Ingress"]);
    expect(d?.spec?.policyTypes).toEqual(["Egress"]);
  });

  test("AdminNetworkPolicy and BaselineAdminNetworkPolicy port protocol TCP", () => {
    const c = load(`apiVersion: policy.networking.k8s.io/v1alpha1
kind: AdminNetworkPolicy
metadata: {name: a}
spec:
  priority: 1
  subject: {namespaces: {}}
  ingress:
    - action: Allow
      from: [{namespaces: {}}]
      ports: [{portNumber: {port: 80}}, {portRange: {start: 1, end: 2}}, {namedPort: http}]
---
apiVersion: policy.networking.k8s.io/v1alpha1
kind: BaselineAdminNetworkPolicy
metadata: {name: default}
spec:
  subject: {namespaces: {}}
  egress:
    - action: Deny
      to: [{networks: [10.0.0.0/8]}]
      ports: [{portNumber: {port: 53, protocol: UDP}}]
`);
    expect(c.adminNetworkPolicies[0]?.spec.ingress?.[0]?.ports).toEqual([
      { portNumber: { port: 80, protocol: "TCP" } },
      { portRange: { start: 1, end: 2, protocol: "TCP" } },
      { namedPort: "http" },
    ]);
    expect(c.baselineAdminNetworkPolicies[0]?.spec.egress?.[0]?.ports).toEqual([
      { portNumber: { port: 53, protocol: "UDP" } },
    ]);
  });

  test("Endpoints port protocol TCP (seen through the mirrored slice)", () => {
    const c = load(`apiVersion: v1
kind: Service
metadata: {name: s}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Endpoints
metadata: {name: s}
subsets: [{addresses: [{ip: 10.0.0.1}], ports: [{port: 80}]}]
`);
    expect(c.endpointSlices[0]?.ports).toEqual([{ name: "", port: 80, protocol: "TCP" }]);
  });
});
