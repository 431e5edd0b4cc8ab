/**
 * Service rules found missing by converting the API server's own validation tests (issue #19
 * item 3): external IPs must not be special, the source-ranges annotation, loadBalancerClass,
 * the topology annotations, generateName, and load-balancer ingress hostnames. Messages and
 * field paths as pkg/apis/core/validation prints them.
 */
import { describe, expect, test } from "@jest/globals";
import { issueLines, messages, STRICT_IP } from "../helpers.js";

const svc = (spec: string, meta = "", status = "") => `apiVersion: v1
kind: Service
metadata: {name: s, namespace: ns${meta}}
spec: ${spec}
${status}`;

const P = "Service ns/s: ";
const LB = "type: LoadBalancer, ports: [{port: 80}]";
const RANGES = "service.beta.kubernetes.io/load-balancer-source-ranges";

describe("Service validation, rules the API server has", () => {
  test.each<[string, string, string, string, string[]]>([
    [
      "external IPs may not be unspecified, loopback or link-local",
      "{externalIPs: [0.0.0.0, 127.0.0.1, '::1', 169.254.0.1, 'fe80::1', 224.0.0.1, 203.0.113.9], ports: [{port: 80}]}",
      "",
      "",
      [
        `${P}spec.externalIPs[0]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)`,
        `${P}spec.externalIPs[1]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`,
        `${P}spec.externalIPs[2]: Invalid value: "::1": may not be in the loopback range (127.0.0.0/8, ::1/128)`,
        `${P}spec.externalIPs[3]: Invalid value: "169.254.0.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)`,
        `${P}spec.externalIPs[4]: Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)`,
        `${P}spec.externalIPs[5]: Invalid value: "224.0.0.1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)`,
      ],
    ],
    [
      "the source-ranges annotation only on a LoadBalancer",
      "{ports: [{port: 80}]}",
      `, annotations: {${RANGES}: '10.0.0.0/8'}`,
      "",
      [
        `${P}metadata.annotations[${RANGES}]: Forbidden: may only be used when \`type\` is 'LoadBalancer'`,
      ],
    ],
    [
      "the source-ranges annotation: every comma-separated entry a CIDR",
      `{${LB}}`,
      `, annotations: {${RANGES}: ' 10.0.0.0/8, foo ,1.2.3.4'}`,
      "",
      [
        `${P}metadata.annotations[${RANGES}]: Invalid value: "foo": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`,
        `${P}metadata.annotations[${RANGES}]: Invalid value: "1.2.3.4": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`,
      ],
    ],
    [
      "the field wins over the annotation",
      `{${LB}, loadBalancerSourceRanges: [10.0.0.0/8]}`,
      `, annotations: {${RANGES}: 'foo'}`,
      "",
      [],
    ],
    [
      "an empty annotation is fine on a LoadBalancer",
      `{${LB}}`,
      `, annotations: {${RANGES}: '  '}`,
      "",
      [],
    ],
    [
      "loadBalancerClass only on a LoadBalancer",
      "{type: NodePort, loadBalancerClass: example.com/lb, ports: [{port: 80}]}",
      "",
      "",
      [`${P}spec.loadBalancerClass: Forbidden: may only be used when \`type\` is 'LoadBalancer'`],
    ],
    [
      "loadBalancerClass is a qualified name",
      `{${LB}, loadBalancerClass: 'example.com/-lb'}`,
      "",
      "",
      [
        `${P}spec.loadBalancerClass: Invalid value: "example.com/-lb": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ],
    ],
    ["a valid loadBalancerClass", `{${LB}, loadBalancerClass: example.com/lb}`, "", "", []],
    [
      "topology annotations must agree when both are set",
      "{ports: [{port: 80}]}",
      ", annotations: {service.kubernetes.io/topology-aware-hints: Auto, service.kubernetes.io/topology-mode: Disabled}",
      "",
      [
        `${P}metadata.annotations[service.kubernetes.io/topology-mode]: Invalid value: "Disabled": must match annotations[service.kubernetes.io/topology-aware-hints] when both are specified`,
      ],
    ],
    [
      "agreeing topology annotations",
      "{ports: [{port: 80}]}",
      ", annotations: {service.kubernetes.io/topology-aware-hints: Auto, service.kubernetes.io/topology-mode: Auto}",
      "",
      [],
    ],
    [
      "generateName is checked as a name prefix",
      "{ports: [{port: 80}]}",
      ", generateName: 1web-",
      "",
      [
        `${P}metadata.generateName: Invalid value: "1web-": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name', or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      ],
    ],
    [
      "a trailing dash in generateName is fine",
      "{ports: [{port: 80}]}",
      ", generateName: web-",
      "",
      [],
    ],
    [
      "a load-balancer ingress hostname is a DNS name, not an IP",
      `{${LB}}`,
      "",
      "status: {loadBalancer: {ingress: [{hostname: 1.2.3.4}, {hostname: LB.example}]}}",
      [
        `${P}status.loadBalancer.ingress[0].hostname: Invalid value: "1.2.3.4": must be a DNS name, not an IP address`,
        `${P}status.loadBalancer.ingress[1].hostname: Invalid value: "LB.example": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      ],
    ],
  ])("%s", (_name, spec, meta, status, expected) => {
    expect(messages(svc(spec, meta, status), STRICT_IP)).toEqual(expected);
  });

  test("the annotation's problems point at the annotation's line", () => {
    const text = svc("{ports: [{port: 80}]}", `, annotations: {${RANGES}: '10.0.0.0/8'}`);
    expect(issueLines(text)).toEqual([
      `t.yaml:3:50: ${P}metadata.annotations[${RANGES}]: Forbidden: may only be used when \`type\` is 'LoadBalancer'`,
    ]);
  });
});
