import { describe, expect, test } from "@jest/globals";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import {
  parseNodeEnvironment,
  nodeEnvironmentFromNode,
} from "../../src/model/load-node-environment.js";
import { ValidationError, formatIssue } from "../../src/model/issue.js";
import { load } from "./helpers.js";
import { ACCEPTANCE_DIR } from "../helpers/shared.js";

function errors(text: string): string[] {
  try {
    parseNodeEnvironment(text, "node.yaml");
  } catch (e) {
    if (e instanceof ValidationError) return e.issues.map(formatIssue);
    throw e;
  }
  throw new Error("expected a ValidationError");
}

const HEAD = "apiVersion: kube-netsim.dev/v1alpha1\nkind: NodeEnvironment\n";

describe("parseNodeEnvironment", () => {
  test("the documented example, exactly", () => {
    const env = parseNodeEnvironment(
      `${HEAD}nodeName: test-node
ipFamilies: [IPv4]
nodeIPs: [192.168.0.2]
interfaces:
  - name: lo
    addresses: [127.0.0.1/8, "::1/128"]
  - name: eth0
    addresses: [192.168.0.2/24, 192.168.1.2/24]
kernel:
  iptablesRandomFully: false
  nfacct: [ct_state_invalid_dropped_pkts, localhost_nps_accepted_pkts]
  conntrackTCPBeLiberal: false
  ipvs: true
  sctp: true
`,
      "node.yaml",
    );
    expect(env).toEqual({
      nodeName: "test-node",
      ipFamilies: ["IPv4"],
      nodeIPs: ["192.168.0.2"],
      interfaces: [
        { name: "lo", addresses: ["127.0.0.1/8", "::1/128"] },
        { name: "eth0", addresses: ["192.168.0.2/24", "192.168.1.2/24"] },
      ],
      kernel: {
        iptablesRandomFully: false,
        nfacct: ["ct_state_invalid_dropped_pkts", "localhost_nps_accepted_pkts"],
        conntrackTCPBeLiberal: false,
        ipvs: true,
        sctp: true,
      },
    });
  });

  test("defaults: interfaces [lo], kernel defaults, ipFamilies IPv4 when nothing says otherwise", () => {
    expect(parseNodeEnvironment(`${HEAD}nodeName: n\n`, "f")).toEqual({
      nodeName: "n",
      ipFamilies: ["IPv4"],
      nodeIPs: [],
      interfaces: [{ name: "lo", addresses: ["127.0.0.1/8", "::1/128"] }],
      kernel: {
        iptablesRandomFully: false,
        nfacct: [],
        conntrackTCPBeLiberal: false,
        ipvs: true,
        sctp: true,
      },
    });
  });

  test("ipFamilies from node IPs and (non-loopback) interface addresses; bare addresses are host prefixes", () => {
    const env = parseNodeEnvironment(
      `${HEAD}nodeName: n\nnodeIPs: ["fd00::2"]\ninterfaces: [{name: eth0, addresses: [10.0.0.2, "FD00::2/64"]}]\n`,
      "f",
    );
    expect(env.ipFamilies).toEqual(["IPv4", "IPv6"]);
    expect(env.interfaces).toEqual([{ name: "eth0", addresses: ["10.0.0.2/32", "fd00::2/64"] }]);
  });

  test("every problem is reported with its position", () => {
    expect(
      errors(`apiVersion: v1
kind: NodeEnvironment
ipFamilies: [IPv4, IPv5, IPv4]
nodeIPs: [10.0.0.300]
interfaces:
  - name: eth0
    addresses: [10.0.0.0/33]
  - name: eth0
    adresses: []
kernel: {ipvs: "yes"}
`),
    ).toEqual([
      'node.yaml:1:1: apiVersion: Unsupported value: "v1": supported values: "kube-netsim.dev/v1alpha1"',
      'node.yaml:9:5: interfaces[1].adresses: unknown field "interfaces[1].adresses"',
      "node.yaml:1:1: nodeName: Required value",
      'node.yaml:4:11: nodeIPs[0]: Invalid value: "10.0.0.300": must be a valid IP address',
      'node.yaml:7:17: interfaces[0].addresses[0]: Invalid value: "10.0.0.0/33": must be an IP address or CIDR',
      'node.yaml:8:5: interfaces[1].name: Duplicate value: "eth0"',
      'node.yaml:3:20: ipFamilies[1]: Unsupported value: "IPv5": supported values: "IPv4", "IPv6"',
      'node.yaml:3:26: ipFamilies[2]: Duplicate value: "IPv4"',
      'node.yaml:10:10: kernel.ipvs: Invalid value: "yes": must be a boolean',
    ]);
  });

  test("every acceptance node.yaml parses", () => {
    const root = ACCEPTANCE_DIR;
    const files: string[] = [];
    const walk = (d: string): void => {
      for (const e of readdirSync(d, { withFileTypes: true }))
        if (e.isDirectory()) walk(join(d, e.name));
        else if (e.name === "node.yaml") files.push(join(d, e.name));
    };
    walk(root);
    expect(files.length).toBeGreaterThan(5);
    for (const f of files)
      expect(parseNodeEnvironment(readFileSync(f, "utf8"), f).nodeName).not.toBe("");
  });
});

describe("nodeEnvironmentFromNode", () => {
  test("InternalIP and ExternalIP become node IPs and eth0 host addresses, next to lo", () => {
    const cluster = load(`apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  addresses:
    - {type: Hostname, address: n1}
    - {type: InternalIP, address: 10.0.0.2}
    - {type: InternalIP, address: "fd00::2"}
    - {type: ExternalIP, address: 203.0.113.7}
`);
    expect(nodeEnvironmentFromNode(cluster, "n1")).toEqual({
      nodeName: "n1",
      ipFamilies: ["IPv4", "IPv6"],
      nodeIPs: ["10.0.0.2", "fd00::2", "203.0.113.7"],
      interfaces: [
        { name: "lo", addresses: ["127.0.0.1/8", "::1/128"] },
        { name: "eth0", addresses: ["10.0.0.2/32", "fd00::2/128", "203.0.113.7/32"] },
      ],
      kernel: {
        iptablesRandomFully: false,
        nfacct: [],
        conntrackTCPBeLiberal: false,
        ipvs: true,
        sctp: true,
      },
    });
  });

  test("an unknown node is a not-found error naming the declared ones", () => {
    const cluster = load("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n");
    expect(() => nodeEnvironmentFromNode(cluster, "n2")).toThrow(
      'node "n2" not found (the manifests declare "n1")',
    );
  });
});
