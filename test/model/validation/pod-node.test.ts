import { describe, expect, test } from "@jest/globals";
import { messages, STRICT_IP } from "../helpers.js";

const pod = (spec: string, status = "") => `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ns}
spec: ${spec}
${status}`;
const P = "Pod ns/p: ";

describe("Pod validation", () => {
  test.each<[string, string, string, string[]]>([
    ["containers are required", "{}", "", [`${P}spec.containers: Required value`]],
    [
      "container names: required, DNS label, unique",
      "{containers: [{name: ''}, {name: A}, {name: b}], initContainers: [{name: b}]}",
      "",
      [
        `${P}spec.containers[0].name: Required value`,
        `${P}spec.containers[1].name: Invalid value: "A": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
        `${P}spec.containers[2].name: Duplicate value: "b"`,
      ],
    ],
    [
      "container ports: containerPort required and in range, hostPort in range, protocol, name",
      "{containers: [{name: c, ports: [{containerPort: 0}, {containerPort: 70000}, {containerPort: 80, hostPort: 70000}, {containerPort: 81, protocol: ICMP}, {containerPort: 82, name: HTTP}, {containerPort: 83, name: web}, {containerPort: 84, name: web}]}]}",
      "",
      [
        `${P}spec.containers[0].ports[0].containerPort: Required value`,
        `${P}spec.containers[0].ports[1].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive`,
        `${P}spec.containers[0].ports[2].hostPort: Invalid value: 70000: must be between 1 and 65535, inclusive`,
        `${P}spec.containers[0].ports[3].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"`,
        `${P}spec.containers[0].ports[4].name: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`,
        `${P}spec.containers[0].ports[4].name: Invalid value: "HTTP": must contain at least one letter (a-z)`,
        `${P}spec.containers[0].ports[6].name: Duplicate value: "web"`,
      ],
    ],
    [
      "one host port per hostIP/protocol/port",
      "{containers: [{name: a, ports: [{containerPort: 80, hostPort: 8080}]}, {name: b, ports: [{containerPort: 81, hostPort: 8080}, {containerPort: 82, hostPort: 8080, protocol: UDP}]}]}",
      "",
      [`${P}spec.containers[1].ports[0].hostPort: Duplicate value: "/TCP/8080"`],
    ],
    [
      "hostNetwork: hostPort must equal containerPort",
      "{hostNetwork: true, containers: [{name: a, ports: [{containerPort: 80, hostPort: 81}]}]}",
      "",
      [
        `${P}spec.containers[0].ports[0].containerPort: Invalid value: 80: must match \`hostPort\` when \`hostNetwork\` is true`,
      ],
    ],
    [
      "status IPs: valid, one per family, no duplicates",
      "{containers: [{name: c}]}",
      "status: {podIPs: [{ip: 10.0.0.1}, {ip: 10.0.0.2}, {ip: bogus}]}",
      [
        `${P}status.podIPs[2].ip: Invalid value: "bogus": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
      ],
    ],
    [
      "status IPs: two of one family",
      "{containers: [{name: c}]}",
      "status: {podIPs: [{ip: 10.0.0.1}, {ip: 10.0.0.2}]}",
      [
        `${P}status.podIPs: Invalid value: [{"ip":"10.0.0.1"},{"ip":"10.0.0.2"}]: may specify no more than one IP for each IP family`,
      ],
    ],
    [
      "podIP disagreeing with podIPs[0] is a warning",
      "{containers: [{name: c}]}",
      "status: {podIP: 10.0.0.9, podIPs: [{ip: 10.0.0.1}]}",
      [
        `${P}status.podIP: warning: status.podIP "10.0.0.9" differs from status.podIPs[0] "10.0.0.1"; podIPs wins`,
      ],
    ],
    [
      "a port name used by two containers is the API server's warning",
      "{containers: [{name: a, ports: [{containerPort: 80, name: http}]}, {name: b, ports: [{containerPort: 81, name: http}]}]}",
      "",
      [
        `${P}spec.containers[1].ports[0].name: warning: spec.containers[1].ports[0]: duplicate port name "http" with spec.containers[0].ports[0], services and probes that select ports by name will use spec.containers[0].ports[0]`,
      ],
    ],
  ])("%s", (_n, spec, status, expected) => {
    expect(messages(pod(spec, status))).toEqual(expected);
  });

  test("SCTP container ports are accepted, and rejected with SCTPSupport=false", () => {
    const text = pod("{containers: [{name: c, ports: [{containerPort: 5000, protocol: SCTP}]}]}");
    expect(messages(text)).toEqual([]);
    expect(messages(text, { featureGates: { SCTPSupport: false } })).toEqual([
      `${P}spec.containers[0].ports[0].protocol: Unsupported value: "SCTP": supported values: "TCP", "UDP"`,
    ]);
  });
});

describe("metadata", () => {
  test("names, namespaces, labels and annotations", () => {
    expect(
      messages(`apiVersion: v1
kind: Pod
metadata:
  name: Bad_Name
  namespace: Bad.NS
  labels: {"a/b/c": x, ok: "-bad"}
  annotations: {"/x": y}
spec: {containers: [{name: c}]}
`),
    ).toEqual([
      `Pod Bad.NS/Bad_Name: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      `Pod Bad.NS/Bad_Name: metadata.namespace: Invalid value: "Bad.NS": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      `Pod Bad.NS/Bad_Name: metadata.labels: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      `Pod Bad.NS/Bad_Name: metadata.labels: Invalid value: "-bad": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue', or 'my_value', or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      `Pod Bad.NS/Bad_Name: metadata.annotations: Invalid value: "/x": prefix part must be non-empty`,
    ]);
  });

  test("a label value longer than 63 characters", () => {
    expect(
      messages(
        `apiVersion: v1\nkind: Namespace\nmetadata: {name: a, labels: {x: ${"v".repeat(64)}}}\n`,
      ),
    ).toEqual([
      `Namespace a: metadata.labels: Invalid value: "${"v".repeat(64)}": must be no more than 63 characters`,
    ]);
  });

  test("Namespace names are DNS labels (no dots)", () => {
    expect(messages("apiVersion: v1\nkind: Namespace\nmetadata: {name: a.b}\n")).toEqual([
      'Namespace a.b: metadata.name: Invalid value: "a.b": must not contain dots',
    ]);
  });
});

describe("Node validation", () => {
  const node = (rest: string) => `apiVersion: v1\nkind: Node\nmetadata: {name: n}\n${rest}`;
  test.each<[string, string, string[]]>([
    [
      "bad podCIDR",
      "spec: {podCIDR: 10.244.1.0/33}",
      [
        `Node n: spec.podCIDRs[0]: Invalid value: "10.244.1.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`,
      ],
    ],
    [
      "host bits set beyond the prefix",
      "spec: {podCIDR: 10.244.1.1/24}",
      [
        `Node n: spec.podCIDRs[0]: Invalid value: "10.244.1.1/24": must not have bits set beyond the prefix length`,
      ],
    ],
    [
      "two CIDRs of one family",
      "spec: {podCIDRs: [10.244.1.0/24, 10.244.2.0/24]}",
      [
        `Node n: spec.podCIDRs: Invalid value: ["10.244.1.0/24","10.244.2.0/24"]: may specify no more than one CIDR for each IP family`,
      ],
    ],
    [
      "node addresses are checked as warnings",
      "status: {addresses: [{type: InternalIP, address: 10.0.0.256}, {type: Internal, address: x}]}",
      [
        `Node n: status.addresses[0].address: warning: Invalid value: "10.0.0.256": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
        `Node n: status.addresses[1].type: warning: Unsupported value: "Internal": supported values: "ExternalDNS", "ExternalIP", "Hostname", "InternalDNS", "InternalIP"`,
      ],
    ],
  ])("%s", (_n, rest, expected) => {
    expect(messages(node(rest), STRICT_IP)).toEqual(expected);
  });
});
