import { describe, expect, test } from "@jest/globals";
import { messages } from "../helpers.js";

const slice = (body: string) => `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: e, namespace: ns}
${body}`;
const S = "EndpointSlice ns/e: ";

describe("EndpointSlice validation", () => {
  test.each<[string, string, string[]]>([
    ["addressType required", "endpoints: []", [`${S}addressType: Required value`]],
    [
      "unsupported addressType",
      "addressType: IP\nendpoints: []",
      [`${S}addressType: Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"`],
    ],
    [
      "endpoint addresses: at least one, of the slice's family, not special",
      "addressType: IPv4\nendpoints: [{addresses: []}, {addresses: ['fd00::1']}, {addresses: [127.0.0.1]}, {addresses: [169.254.1.1]}, {addresses: [0.0.0.0]}]",
      [
        `${S}endpoints[0].addresses: Required value: must contain at least 1 address`,
        `${S}endpoints[1].addresses[0]: Invalid value: "fd00::1": must be a valid IPv4 address`,
        `${S}endpoints[2].addresses[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`,
        `${S}endpoints[3].addresses[0]: Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)`,
        `${S}endpoints[4].addresses[0]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)`,
      ],
    ],
    [
      "IPv6 slices",
      "addressType: IPv6\nendpoints: [{addresses: [10.0.0.1]}, {addresses: ['fe80::1']}, {addresses: ['ff02::1']}]",
      [
        `${S}endpoints[0].addresses[0]: Invalid value: "10.0.0.1": must be a valid IPv6 address`,
        `${S}endpoints[1].addresses[0]: Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)`,
        `${S}endpoints[2].addresses[0]: Invalid value: "ff02::1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)`,
      ],
    ],
    [
      "hostname and nodeName",
      "addressType: IPv4\nendpoints: [{addresses: [10.0.0.1], hostname: a.b, nodeName: N}]",
      [
        `${S}endpoints[0].hostname: Invalid value: "a.b": must not contain dots`,
        `${S}endpoints[0].nodeName: Invalid value: "N": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      ],
    ],
    [
      "port names unique (empty included), protocol supported",
      "addressType: IPv4\nendpoints: []\nports: [{port: 80}, {port: 81}, {name: x, port: 82, protocol: QUIC}]",
      [
        `${S}ports[1].name: Duplicate value: ""`,
        `${S}ports[2].protocol: Unsupported value: "QUIC": supported values: "SCTP", "TCP", "UDP"`,
      ],
    ],
    [
      "too many endpoints",
      `addressType: IPv4\nendpoints: [${Array.from({ length: 1001 }, (_, i) => `{addresses: [10.0.${i >> 8}.${i & 255}]}`).join(", ")}]`,
      [`${S}endpoints: Too many: 1001: must have at most 1000 items`],
    ],
  ])("%s", (_n, body, expected) => {
    expect(messages(slice(body))).toEqual(expected);
  });
});

describe("Endpoints validation", () => {
  test("subsets need addresses; IPs, ports and names are checked", () => {
    expect(
      messages(`apiVersion: v1
kind: Endpoints
metadata: {name: e, namespace: ns}
subsets:
  - ports: [{port: 80}]
  - addresses: [{ip: 10.0.0.1}, {ip: 127.0.0.1}, {ip: nope}]
    ports: [{port: 0}, {name: b, port: 80, protocol: ICMP}]
`),
    ).toEqual([
      "Endpoints ns/e: subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`",
      'Endpoints ns/e: subsets[1].addresses[1].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
      'Endpoints ns/e: subsets[1].addresses[2].ip: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      "Endpoints ns/e: subsets[1].ports[0].name: Required value",
      "Endpoints ns/e: subsets[1].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
      'Endpoints ns/e: subsets[1].ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
      "Endpoints ns/e: warning: not mirrored to EndpointSlices: no Service ns/e",
    ]);
  });
});

describe("EndpointSlice validation, rules the API server has", () => {
  test.each<[string, string, string[]]>([
    [
      "FQDN addresses: at least two labels (IsFullyQualifiedDomainName)",
      "addressType: FQDN\nendpoints: [{addresses: [db]}, {addresses: [db.example.com.]}, {addresses: [Db.example]}]",
      [
        `${S}endpoints[0].addresses[0]: Invalid value: "db": should be a domain with at least two segments separated by dots`,
        `${S}endpoints[2].addresses[0]: Invalid value: "Db.example": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      ],
    ],
    [
      "zone and node hints: unique, well-formed names",
      "addressType: IPv4\nendpoints: [{addresses: [10.0.0.1], hints: {forZones: [{name: a}, {name: a}, {name: 'b c'}], forNodes: [{name: N1}]}}]",
      [
        `${S}endpoints[0].hints.forZones[1].name: Duplicate value: "a"`,
        `${S}endpoints[0].hints.forZones[2].name: Invalid value: "b c": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue', or 'my_value', or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
        `${S}endpoints[0].hints.forNodes[0].name: Invalid value: "N1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      ],
    ],
    [
      "deprecatedTopology holds labels",
      "addressType: IPv4\nendpoints: [{addresses: [10.0.0.1], deprecatedTopology: {'a b': x}}]",
      [
        `${S}endpoints[0].deprecatedTopology: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ],
    ],
  ])("%s", (_name, body, expected) => {
    expect(messages(slice(body))).toEqual(expected);
  });
});
