import { describe, expect, test } from "@jest/globals";
import { messages, STRICT_IP } from "../helpers.js";

const svc = (spec: string, extra = "", name = "s") => `apiVersion: v1
kind: Service
metadata: {name: ${name}, namespace: ns}
spec: ${spec}
${extra}`;

const P = "Service ns/s: ";

describe("Service validation", () => {
  test.each<[string, string, string[]]>([
    ["no ports", "{clusterIP: 10.96.0.1}", [`${P}spec.ports: Required value`]],
    ["headless needs no ports", "{clusterIP: None}", []],
    ["ExternalName needs no ports", "{type: ExternalName, externalName: db.example.com}", []],
    [
      "unsupported protocol (sorted list, as sets.List prints it)",
      "{ports: [{port: 80, protocol: SCTPX}]}",
      [
        `${P}spec.ports[0].protocol: Unsupported value: "SCTPX": supported values: "SCTP", "TCP", "UDP"`,
      ],
    ],
    [
      "port 0 and 65536",
      "{ports: [{name: a, port: 0}, {name: b, port: 65536}]}",
      [
        `${P}spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive`,
        `${P}spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive`,
        `${P}spec.ports[1].port: Invalid value: 65536: must be between 1 and 65535, inclusive`,
        `${P}spec.ports[1].targetPort: Invalid value: 65536: must be between 1 and 65535, inclusive`,
      ],
    ],
    [
      "several ports need names, unique ones",
      "{ports: [{port: 80}, {name: a, port: 81}, {name: a, port: 82}]}",
      [`${P}spec.ports[0].name: Required value`, `${P}spec.ports[2].name: Duplicate value: "a"`],
    ],
    [
      "port name must be a DNS label",
      "{ports: [{name: Web_1, port: 80}]}",
      [
        `${P}spec.ports[0].name: Invalid value: "Web_1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      ],
    ],
    [
      "named targetPort must be an IANA service name",
      "{ports: [{port: 80, targetPort: http--x}]}",
      [
        `${P}spec.ports[0].targetPort: Invalid value: "http--x": must not contain consecutive hyphens`,
      ],
    ],
    [
      "duplicate port/protocol pairs",
      "{ports: [{name: a, port: 53, protocol: UDP}, {name: b, port: 53, protocol: TCP}, {name: c, port: 53, protocol: UDP}]}",
      [`${P}spec.ports[2]: Duplicate value: {"protocol":"UDP","port":53}`],
    ],
    [
      "nodePort with ClusterIP",
      "{ports: [{port: 80, nodePort: 30080}]}",
      [`${P}spec.ports[0].nodePort: Forbidden: may not be used when \`type\` is 'ClusterIP'`],
    ],
    [
      "duplicate nodePorts",
      "{type: NodePort, ports: [{name: a, port: 80, nodePort: 30080}, {name: b, port: 81, nodePort: 30080}]}",
      [`${P}spec.ports[1].nodePort: Duplicate value: 30080`],
    ],
    [
      "unsupported type",
      "{type: Ingress, ports: [{port: 80}]}",
      [
        `${P}spec.type: Unsupported value: "Ingress": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"`,
      ],
    ],
    [
      "unsupported sessionAffinity",
      "{sessionAffinity: Sticky, ports: [{port: 80}]}",
      [
        `${P}spec.sessionAffinity: Unsupported value: "Sticky": supported values: "ClientIP", "None"`,
      ],
    ],
    [
      "ClientIP timeout out of range",
      "{sessionAffinity: ClientIP, sessionAffinityConfig: {clientIP: {timeoutSeconds: 86401}}, ports: [{port: 80}]}",
      [
        `${P}spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 86401: must be greater than 0 and less than 86400`,
      ],
    ],
    [
      "bad clusterIP",
      "{clusterIP: 10.96.0.300, ports: [{port: 80}]}",
      [
        `${P}spec.clusterIPs[0]: Invalid value: "10.96.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
      ],
    ],
    [
      "leading zeros in an IP (StrictIPCIDRValidation)",
      "{clusterIP: 172.30.0.041, ports: [{port: 80}]}",
      [`${P}spec.clusterIPs[0]: Invalid value: "172.30.0.041": must not have leading 0s`],
    ],
    [
      "IPv4-mapped IPv6",
      "{clusterIP: '::ffff:10.96.0.1', ports: [{port: 80}]}",
      [
        `${P}spec.clusterIPs[0]: Invalid value: "::ffff:10.96.0.1": must not be an IPv4-mapped IPv6 address`,
      ],
    ],
    [
      "two IPs of one family",
      "{clusterIP: 10.96.0.1, clusterIPs: [10.96.0.1, 10.96.0.2], ports: [{port: 80}]}",
      [
        `${P}spec.clusterIPs: Invalid value: ["10.96.0.1","10.96.0.2"]: may specify no more than one IP for each IP family`,
      ],
    ],
    [
      "clusterIPs[0] must match clusterIP",
      "{clusterIP: 10.96.0.1, clusterIPs: [10.96.0.2], ports: [{port: 80}]}",
      [`${P}spec.clusterIPs: Invalid value: ["10.96.0.2"]: first value must match \`clusterIP\``],
    ],
    [
      "IP of the wrong family for ipFamilies",
      "{clusterIP: 10.96.0.1, ipFamilies: [IPv6], ports: [{port: 80}]}",
      [
        `${P}spec.clusterIPs[0]: Invalid value: "10.96.0.1": expected an IPv6 value as indicated by \`ipFamilies[0]\``,
      ],
    ],
    [
      "unsupported and duplicate families",
      "{ipFamilies: [IPv4, IPv4, IPv5], ports: [{port: 80}]}",
      [
        `${P}spec.ipFamilies[1]: Duplicate value: "IPv4"`,
        `${P}spec.ipFamilies[2]: Unsupported value: "IPv5": supported values: "IPv4", "IPv6"`,
      ],
    ],
    [
      "SingleStack with two families",
      "{ipFamilyPolicy: SingleStack, clusterIP: 10.96.0.1, clusterIPs: [10.96.0.1, 'fd00::1'], ports: [{port: 80}]}",
      [
        `${P}spec.ipFamilyPolicy: Invalid value: "SingleStack": must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified`,
      ],
    ],
    [
      "headless NodePort",
      "{type: NodePort, clusterIP: None, ports: [{port: 80}]}",
      [
        `${P}spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for NodePort services`,
      ],
    ],
    [
      "ExternalName with a cluster IP and no name",
      "{type: ExternalName, clusterIP: 10.96.0.1}",
      [
        `${P}spec.clusterIPs: Forbidden: may not be set for ExternalName services`,
        `${P}spec.externalName: Required value`,
      ],
    ],
    [
      "externalTrafficPolicy on a ClusterIP service",
      "{externalTrafficPolicy: Local, ports: [{port: 80}]}",
      [
        `${P}spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services`,
      ],
    ],
    [
      "unsupported externalTrafficPolicy",
      "{type: NodePort, externalTrafficPolicy: Global, ports: [{port: 80}]}",
      [
        `${P}spec.externalTrafficPolicy: Unsupported value: "Global": supported values: "Cluster", "Local"`,
      ],
    ],
    [
      "healthCheckNodePort without LoadBalancer + Local",
      "{type: NodePort, healthCheckNodePort: 32000, ports: [{port: 80}]}",
      [
        `${P}spec.healthCheckNodePort: Invalid value: 32000: may only be set when \`type\` is 'LoadBalancer' and \`externalTrafficPolicy\` is 'Local'`,
      ],
    ],
    [
      "unsupported internalTrafficPolicy",
      "{internalTrafficPolicy: Node, ports: [{port: 80}]}",
      [
        `${P}spec.internalTrafficPolicy: Unsupported value: "Node": supported values: "Cluster", "Local"`,
      ],
    ],
    [
      "loadBalancerSourceRanges only for LoadBalancer, valid CIDRs",
      "{loadBalancerSourceRanges: [10.0.0.0/33], ports: [{port: 80}]}",
      [
        `${P}spec.LoadBalancerSourceRanges: Forbidden: may only be used when \`type\` is 'LoadBalancer'`,
        `${P}spec.LoadBalancerSourceRanges[0]: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`,
      ],
    ],
    [
      "externalIPs",
      "{externalIPs: [1.2.3], ports: [{port: 80}]}",
      [
        `${P}spec.externalIPs[0]: Invalid value: "1.2.3": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
      ],
    ],
    [
      "selector labels",
      "{selector: {app: 'a b'}, ports: [{port: 80}]}",
      [
        `${P}spec.selector: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue', or 'my_value', or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      ],
    ],
  ])("%s", (_name, spec, expected) => {
    expect(messages(svc(spec), STRICT_IP)).toEqual(expected);
  });

  test("Service names are DNS-1035 labels", () => {
    expect(messages(svc("{ports: [{port: 80}]}", "", "1abc"))).toEqual([
      `Service ns/1abc: metadata.name: Invalid value: "1abc": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name', or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
    ]);
  });

  test("with StrictIPCIDRValidation off, leading zeros are the old warning and the service loads", () => {
    expect(
      messages(svc("{clusterIP: 172.30.0.041, ports: [{port: 80}]}"), {
        featureGates: { StrictIPCIDRValidation: false },
      }),
    ).toEqual([
      `${P}spec.clusterIPs[0]: warning: spec.clusterIPs[0]: non-standard IP address "172.30.0.041" will be considered invalid in a future Kubernetes release: use "172.30.0.41"`,
    ]);
  });

  test("non-canonical IPv6 is a warning", () => {
    expect(messages(svc("{clusterIP: 'FD00:0:0:0::10', ports: [{port: 80}]}"))).toEqual([
      `${P}spec.clusterIPs[0]: warning: spec.clusterIPs[0]: IPv6 address "FD00:0:0:0::10" should be in RFC 5952 canonical format ("fd00::10")`,
    ]);
  });

  test("SCTPSupport=false rejects SCTP as old API servers did", () => {
    expect(
      messages(svc("{ports: [{port: 80, protocol: SCTP}]}"), {
        featureGates: { SCTPSupport: false },
      }),
    ).toEqual([
      `${P}spec.ports[0].protocol: Unsupported value: "SCTP": supported values: "TCP", "UDP"`,
    ]);
    expect(messages(svc("{ports: [{port: 80, protocol: SCTP}]}"))).toEqual([]);
  });

  test("LoadBalancer status: ingress IPs and ipMode", () => {
    expect(
      messages(
        svc(
          "{type: LoadBalancer, ports: [{port: 80}]}",
          "status: {loadBalancer: {ingress: [{ip: 300.1.1.1}, {hostname: x.example.com, ipMode: Proxy}, {ip: 1.1.1.1, ipMode: Tunnel}]}}",
        ),
      ),
    ).toEqual([
      `${P}status.loadBalancer.ingress[0].ip: Invalid value: "300.1.1.1": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
      `${P}status.loadBalancer.ingress[1].ipMode: Forbidden: may not be specified when \`ip\` is not set`,
      `${P}status.loadBalancer.ingress[2].ipMode: Unsupported value: "Tunnel": supported values: "Proxy", "VIP"`,
    ]);
  });
});

describe("Service validation, more type rules", () => {
  test.each<[string, string, string[]]>([
    [
      "allocateLoadBalancerNodePorts only for LoadBalancer",
      "{allocateLoadBalancerNodePorts: false, ports: [{port: 80}]}",
      [
        `${P}spec.allocateLoadBalancerNodePorts: Forbidden: may only be used when \`type\` is 'LoadBalancer'`,
      ],
    ],
    [
      "trafficDistribution",
      "{trafficDistribution: Anywhere, ports: [{port: 80}]}",
      [
        `${P}spec.trafficDistribution: Unsupported value: "Anywhere": supported values: "PreferClose", "PreferSameZone", "PreferSameNode"`,
      ],
    ],
    [
      "externalName must be a DNS subdomain (a trailing dot is allowed)",
      "{type: ExternalName, externalName: 'db_1.example.com.'}",
      [
        `${P}spec.externalName: Invalid value: "db_1.example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      ],
    ],
    [
      "headless LoadBalancer",
      "{type: LoadBalancer, clusterIP: None, ports: [{port: 80}]}",
      [
        `${P}spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for LoadBalancer services`,
      ],
    ],
    [
      "'None' must be the only cluster IP",
      "{clusterIP: None, clusterIPs: [None, 10.96.0.1], ports: [{port: 80}]}",
      [
        `${P}spec.clusterIPs: Invalid value: ["None","10.96.0.1"]: 'None' must be the first and only value`,
      ],
    ],
    [
      "a valid dual-stack LoadBalancer with Local traffic policy",
      "{type: LoadBalancer, externalTrafficPolicy: Local, healthCheckNodePort: 32000, clusterIP: 10.96.0.1, clusterIPs: [10.96.0.1, 'fd00::1'], loadBalancerSourceRanges: [' 203.0.113.0/24 '], ports: [{port: 443, nodePort: 30443}]}",
      [],
    ],
  ])("%s", (_name, spec, expected) => {
    expect(messages(svc(spec), STRICT_IP)).toEqual(expected);
  });
});
