/** Per-family proxier settings: node name, localhost NodePorts, nodePortAddresses (spec §1.1, §4.10). */
import { describe, expect, test } from "@jest/globals";
import { makeCluster } from "../../../src/model/cluster.js";
import { DEFAULT_PROXY_CONFIG } from "../../../src/model/proxy-config.js";
import { nodePortAddressesFor } from "../../../src/proxiers/common/node-port-addresses.js";
import { proxierSettings } from "../../../src/proxiers/common/proxier-settings.js";
import { FAKE_NODE } from "../iptables/helpers.js";

describe("proxierSettings", () => {
  const cluster = makeCluster({});
  test("hostnameOverride names the node; IPv6 never serves localhost NodePorts", () => {
    const s4 = proxierSettings(cluster, "IPv4", {
      node: FAKE_NODE,
      proxyConfig: { ...DEFAULT_PROXY_CONFIG, hostnameOverride: "other" },
    });
    expect(s4.nodeName).toBe("other");
    expect(s4.localhostNodePorts).toBe(true);
    expect(s4.masqueradeMark).toBe(0x4000);
    expect(s4.localDetector).toEqual({ kind: "none" });
    const s6 = proxierSettings(cluster, "IPv6", { node: FAKE_NODE });
    expect(s6.nodeName).toBe("test-node");
    expect(s6.localhostNodePorts).toBe(false);
    expect(s6.nodeIP).toBeUndefined();
  });
});

describe("nodePortAddressesFor (upstream NewNodePortAddresses)", () => {
  test.each([
    [[], "IPv4", { kind: "all", containsIPv4Loopback: true }],
    [[], "IPv6", { kind: "all", containsIPv4Loopback: false }],
    [["2001:db8::/64"], "IPv4", { kind: "all", containsIPv4Loopback: true }],
    [["192.168.0.0/24", "0.0.0.0/0"], "IPv4", { kind: "all", containsIPv4Loopback: true }],
    [
      ["127.0.0.1/32", "192.168.0.0/16"],
      "IPv4",
      {
        kind: "addresses",
        ips: ["127.0.0.1", "192.168.0.2", "192.168.1.2", "192.168.99.11"],
        containsIPv4Loopback: true,
      },
    ],
    [
      ["192.168.0.0/24", "2001:db8::/64"],
      "IPv6",
      { kind: "addresses", ips: ["2001:db8::1"], containsIPv4Loopback: false },
    ],
  ] as const)("%j %s", (cidrs, family, expected) => {
    expect(nodePortAddressesFor(cidrs, family, FAKE_NODE)).toEqual(expected);
  });
});
