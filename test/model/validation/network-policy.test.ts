import { describe, expect, test } from "@jest/globals";
import { messages, STRICT_IP } from "../helpers.js";

const np = (spec: string) => `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: np, namespace: ns}
spec: ${spec}
`;
const N = "NetworkPolicy ns/np: ";

describe("NetworkPolicy validation", () => {
  test.each<[string, string, string[]]>([
    [
      "protocol (networking lists TCP, UDP, SCTP in that order)",
      "{podSelector: {}, ingress: [{ports: [{protocol: SCTPX, port: 80}]}]}",
      [
        `${N}spec.ingress[0].ports[0].protocol: Unsupported value: "SCTPX": supported values: "TCP", "UDP", "SCTP"`,
      ],
    ],
    [
      "numeric port range",
      "{podSelector: {}, ingress: [{ports: [{port: 0}, {port: 65536}]}]}",
      [
        `${N}spec.ingress[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive`,
        `${N}spec.ingress[0].ports[1].port: Invalid value: 65536: must be between 1 and 65535, inclusive`,
      ],
    ],
    [
      "endPort rules",
      "{podSelector: {}, egress: [{ports: [{port: 100, endPort: 99}, {port: http, endPort: 100}, {endPort: 100}, {port: 1, endPort: 70000}]}]}",
      [
        `${N}spec.egress[0].ports[0].endPort: Invalid value: 99: must be greater than or equal to \`port\``,
        `${N}spec.egress[0].ports[1].endPort: Invalid value: 100: may not be specified when \`port\` is non-numeric`,
        `${N}spec.egress[0].ports[2].endPort: Invalid value: 100: may not be specified when \`port\` is not specified`,
        `${N}spec.egress[0].ports[3].endPort: Invalid value: 70000: must be between 1 and 65535, inclusive`,
        `${N}spec.egress[0].ports[1].port: warning: named port "http" (TCP) is not declared by any pod`,
      ],
    ],
    [
      "named port must be an IANA service name",
      "{podSelector: {}, ingress: [{ports: [{port: my-long-port-name}]}]}",
      [
        `${N}spec.ingress[0].ports[0].port: Invalid value: "my-long-port-name": must be no more than 15 characters`,
      ],
    ],
    [
      "a peer needs a selector or ipBlock; ipBlock is exclusive",
      "{podSelector: {}, ingress: [{from: [{}, {podSelector: {}, ipBlock: {cidr: 10.0.0.0/8}}]}]}",
      [
        `${N}spec.ingress[0].from[0]: Required value: must specify a peer`,
        `${N}spec.ingress[0].from[1]: Forbidden: may not specify both ipBlock and another peer`,
      ],
    ],
    [
      "ipBlock cidr required and valid; except a strict subset",
      "{podSelector: {}, egress: [{to: [{ipBlock: {cidr: ''}}, {ipBlock: {cidr: 10.0.0.0/8, except: [10.0.0.0/8, 11.0.0.0/16, 10.1.0.0/16]}}, {ipBlock: {cidr: 10.0.0.1/8}}]}]}",
      [
        `${N}spec.egress[0].to[0].ipBlock.cidr: Required value`,
        `${N}spec.egress[0].to[1].ipBlock.except[0]: Invalid value: "10.0.0.0/8": must be a strict subset of \`cidr\``,
        `${N}spec.egress[0].to[1].ipBlock.except[1]: Invalid value: "11.0.0.0/16": must be a strict subset of \`cidr\``,
        `${N}spec.egress[0].to[2].ipBlock.cidr: Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length`,
      ],
    ],
    [
      "CIDR leading zeros and IPv4-mapped IPv6",
      "{podSelector: {}, egress: [{to: [{ipBlock: {cidr: 010.0.0.0/8}}, {ipBlock: {cidr: '::ffff:10.0.0.0/104'}}]}]}",
      [
        `${N}spec.egress[0].to[0].ipBlock.cidr: Invalid value: "010.0.0.0/8": must not have leading 0s in IP or prefix length`,
        `${N}spec.egress[0].to[1].ipBlock.cidr: Invalid value: "::ffff:10.0.0.0/104": must not have an IPv4-mapped IPv6 address`,
      ],
    ],
    [
      "selectors",
      "{podSelector: {matchExpressions: [{key: a, operator: In}, {key: b, operator: Exists, values: [x]}, {key: c, operator: Gt, values: ['1']}]}}",
      [
        `${N}spec.podSelector.matchExpressions[0].values: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`,
        `${N}spec.podSelector.matchExpressions[1].values: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'`,
        `${N}spec.podSelector.matchExpressions[2].operator: Invalid value: "Gt": not a valid selector operator`,
      ],
    ],
    [
      "policyTypes",
      "{podSelector: {}, policyTypes: [Ingress, Both]}",
      [`${N}spec.policyTypes[1]: Unsupported value: "Both": supported values: "Ingress", "Egress"`],
    ],
    [
      "more than two policyTypes",
      "{podSelector: {}, policyTypes: [Ingress, Egress, Ingress]}",
      [
        `${N}spec.policyTypes: Invalid value: ["Ingress","Egress","Ingress"]: may not specify more than two policyTypes`,
      ],
    ],
  ])("%s", (_n, spec, expected) => {
    expect(messages(np(spec), STRICT_IP)).toEqual(expected);
  });

  test("with StrictIPCIDRValidation off, a CIDR with host bits is the old ambiguity warning", () => {
    expect(
      messages(np("{podSelector: {}, egress: [{to: [{ipBlock: {cidr: 10.0.1.1/4}}]}]}"), {
        featureGates: { StrictIPCIDRValidation: false },
      }),
    ).toEqual([
      `${N}spec.egress[0].to[0].ipBlock.cidr: warning: spec.egress[0].to[0].ipBlock.cidr: CIDR value "10.0.1.1/4" is ambiguous in this context (should be "0.0.0.0/4" or "10.0.1.1/32"?)`,
    ]);
  });
});

describe("AdminNetworkPolicy and BaselineAdminNetworkPolicy (CRD schema + CEL)", () => {
  const anp = (spec: string, name = "a") => `apiVersion: policy.networking.k8s.io/v1alpha1
kind: AdminNetworkPolicy
metadata: {name: ${name}}
spec: ${spec}
`;
  test.each<[string, string, string[]]>([
    [
      "priority above 1000",
      "{priority: 1001, subject: {namespaces: {}}}",
      [
        "AdminNetworkPolicy a: spec.priority: Invalid value: 1001: spec.priority in body should be less than or equal to 1000",
      ],
    ],
    [
      "negative priority",
      "{priority: -1, subject: {namespaces: {}}}",
      [
        "AdminNetworkPolicy a: spec.priority: Invalid value: -1: spec.priority in body should be greater than or equal to 0",
      ],
    ],
    [
      "priority required",
      "{subject: {namespaces: {}}}",
      ["AdminNetworkPolicy a: spec.priority: Required value"],
    ],
    [
      "subject: exactly one of",
      "{priority: 1, subject: {}}",
      [
        "AdminNetworkPolicy a: spec.subject: Invalid value: 0: spec.subject in body should have at least 1 properties",
      ],
    ],
    [
      "subject: not both",
      "{priority: 1, subject: {namespaces: {}, pods: {namespaceSelector: {}, podSelector: {}}}}",
      ["AdminNetworkPolicy a: spec.subject: Too many: 2: must have at most 1 items"],
    ],
    [
      "rule action, peers and ports",
      "{priority: 1, subject: {namespaces: {}}, ingress: [{action: Reject, from: []}, {action: Allow, from: [{namespaces: {}, pods: {namespaceSelector: {}, podSelector: {}}}], ports: [{portNumber: {port: 0}}, {portRange: {start: 90, end: 80}}, {}]}]}",
      [
        'AdminNetworkPolicy a: spec.ingress[0].action: Unsupported value: "Reject": supported values: "Allow", "Deny", "Pass"',
        "AdminNetworkPolicy a: spec.ingress[0].from: Invalid value: 0: spec.ingress[0].from in body should have at least 1 items",
        "AdminNetworkPolicy a: spec.ingress[1].from[0]: Too many: 2: must have at most 1 items",
        "AdminNetworkPolicy a: spec.ingress[1].ports[0].portNumber.port: Invalid value: 0: spec.ingress[1].ports[0].portNumber.port in body should be greater than or equal to 1",
        'AdminNetworkPolicy a: spec.ingress[1].ports[1].portRange: Invalid value: "90-80": Start port must be less than End port',
        "AdminNetworkPolicy a: spec.ingress[1].ports[2]: Invalid value: 0: spec.ingress[1].ports[2] in body should have at least 1 properties",
      ],
    ],
    [
      "egress networks must be CIDRs",
      "{priority: 1, subject: {namespaces: {}}, egress: [{action: Deny, to: [{networks: [10.0.0.0/8, 10.0.0.1]}]}]}",
      [
        'AdminNetworkPolicy a: spec.egress[0].to[0].networks[1]: Invalid value: "10.0.0.1": Invalid CIDR format provided',
      ],
    ],
  ])("%s", (_n, spec, expected) => {
    expect(messages(anp(spec))).toEqual(expected);
  });

  test("BaselineAdminNetworkPolicy: name must be default, actions Allow|Deny", () => {
    expect(
      messages(`apiVersion: policy.networking.k8s.io/v1alpha1
kind: BaselineAdminNetworkPolicy
metadata: {name: other}
spec:
  subject: {namespaces: {}}
  egress: [{action: Pass, to: [{namespaces: {}}]}]
`),
    ).toEqual([
      'BaselineAdminNetworkPolicy other: metadata.name: Invalid value: "other": Only one baseline admin network policy with metadata.name="default" can be created in the cluster',
      'BaselineAdminNetworkPolicy other: spec.egress[0].action: Unsupported value: "Pass": supported values: "Allow", "Deny"',
    ]);
  });

  test("SCTP ports are accepted; rejected with SCTPSupport=false", () => {
    const text = anp(
      "{priority: 1, subject: {namespaces: {}}, ingress: [{action: Allow, from: [{namespaces: {}}], ports: [{portNumber: {protocol: SCTP, port: 9003}}]}]}",
    );
    expect(messages(text)).toEqual([]);
    expect(messages(text, { featureGates: { SCTPSupport: false } })).toEqual([
      'AdminNetworkPolicy a: spec.ingress[0].ports[0].portNumber.protocol: Unsupported value: "SCTP": supported values: "TCP", "UDP"',
    ]);
  });
});

describe("AdminNetworkPolicy CEL rules", () => {
  const anp = (rule: string) => `apiVersion: policy.networking.k8s.io/v1alpha1
kind: AdminNetworkPolicy
metadata: {name: a}
spec:
  priority: 5
  subject: {pods: {namespaceSelector: {}, podSelector: {matchLabels: {app: x}}}}
  egress: [${rule}]
`;
  test("namedPort cannot be used with networks, nodes or domainNames peers", () => {
    expect(
      messages(anp("{action: Allow, to: [{networks: [10.0.0.0/8]}], ports: [{namedPort: http}]}")),
    ).toEqual([
      'AdminNetworkPolicy a: spec.egress[0]: Invalid value: "namedPort": networks/nodes/domainNames peer cannot be set with namedPorts since there are no namedPorts for networks/nodes/domainNames',
    ]);
  });
  test("domainNames only with Allow", () => {
    expect(messages(anp("{action: Deny, to: [{domainNames: ['*.example.com']}]}"))).toEqual([
      'AdminNetworkPolicy a: spec.egress[0]: Invalid value: "Deny": domainNames peer can only be used with Allow action',
    ]);
  });
  test("a valid egress rule with nodes and networks", () => {
    expect(
      messages(
        anp(
          "{name: to-nodes, action: Pass, to: [{nodes: {matchExpressions: [{key: role, operator: Exists}]}}, {networks: ['fd00::/64']}], ports: [{portRange: {protocol: UDP, start: 1000, end: 2000}}]}",
        ),
      ),
    ).toEqual([]);
  });
});
