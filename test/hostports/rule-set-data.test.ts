/**
 * The hostport rule set is built from the components' typed rules, never parsed back from their
 * text: here it must equal what the iptables parser reads from the restore text the same table
 * prints (the external chains declared empty after `*nat`), on the upstream acceptance case and
 * on random pods, for kubenet and portmap, IPv4 and IPv6.
 */
import { describe, expect } from "@jest/globals";
import { fc, test } from "@fast-check/jest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import {
  HostportManager,
  HostportError,
  hostportRulesForNode,
  hostportRuleSet,
  type PodPortMapping,
  type PortmapConfig,
} from "../../src/hostports/index.js";
import { externalChains } from "../../src/hostports/rule-set.js";
import { formatNatTable, type NatTable } from "../../src/hostports/nat-table.js";
import { makeCluster } from "../../src/model/cluster.js";
import { DEFAULT_KERNEL, type NodeEnvironment } from "../../src/model/node-environment.js";
import type { IPFamily } from "../../src/net/index.js";
import { parseIptables } from "../../src/netfilter/parse/iptables.js";
import type { RuleSet } from "../../src/netfilter/model.js";
import { hostPortPod } from "../../src/testing/arbitraries/hostPortPod.js";
import { ACCEPTANCE_DIR } from "../helpers/shared.js";

/** The oracle: the table's restore text, with its external chains declared, parsed. */
function reparsed(family: IPFamily, nat: NatTable): RuleSet {
  const declarations = externalChains(nat).map((c) => `:${c} - [0:0]\n`);
  const text = formatNatTable(nat, "restore").replace("*nat\n", `*nat\n${declarations.join("")}`);
  return parseIptables(text, { file: "hostports", family });
}

function expectSameAsParsed(family: IPFamily, nat: NatTable): void {
  const built = hostportRuleSet({ family, nat });
  expect(built).toEqual(reparsed(family, nat));
}

describe("acceptance hostport-manager-ipv4 as data", () => {
  const CASE = join(ACCEPTANCE_DIR, "hostports/hostport-manager-ipv4");
  interface AddCall {
    id: string;
    pod: string;
    podIP: string;
    hostNetwork: boolean;
    portMappings: PodPortMapping["portMappings"];
  }
  const harness = parse(readFileSync(join(CASE, "proxy.yaml"), "utf8")) as {
    hostportManager: { family: IPFamily; natInterfaceName: string; adds: AddCall[] };
  };
  const { family, natInterfaceName, adds } = harness.hostportManager;
  const mapping = (call: AddCall): PodPortMapping => {
    const [name = "", namespace = ""] = call.pod.split("/");
    return {
      name,
      namespace,
      ip: call.podIP,
      hostNetwork: call.hostNetwork,
      portMappings: call.portMappings,
    };
  };

  test("after every Add and every Remove the built rule set equals the parsed text", () => {
    expect(adds.length).toBeGreaterThan(0);
    const m = new HostportManager({ family, natInterfaceName });
    const ok: AddCall[] = [];
    for (const call of adds) {
      try {
        m.add(call.id, mapping(call));
        ok.push(call);
      } catch (e) {
        if (!(e instanceof HostportError)) throw e;
      }
      expectSameAsParsed(family, m.natTable());
    }
    expect(m.natTable().chains.some((c) => c.name.startsWith("KUBE-HP-"))).toBe(true);
    for (const call of ok) {
      m.remove(call.id, mapping(call));
      expectSameAsParsed(family, m.natTable());
    }
  });
});

const nodeObject = {
  metadata: { name: "node-a" },
  spec: {
    podCIDR: "10.244.1.0/24",
    podCIDRs: ["10.244.1.0/24", "fd00:10:244:1::/64"],
  },
};
const node: NodeEnvironment = {
  nodeName: "node-a",
  ipFamilies: ["IPv4", "IPv6"],
  nodeIPs: ["192.168.0.2", "fd00::2"],
  interfaces: [
    { name: "lo", addresses: ["127.0.0.1/8", "::1/128"] },
    { name: "eth0", addresses: ["192.168.0.2/24", "fd00::2/64"] },
    { name: "cbr0", addresses: ["10.244.1.1/24", "fd00:10:244:1::1/64"] },
  ],
  kernel: DEFAULT_KERNEL,
};

const podsArb = fc.constantFrom<IPFamily>("IPv4", "IPv6").chain((family) =>
  fc
    .tuple(
      ...[0, 1, 2].map((index) =>
        hostPortPod({
          index,
          family,
          nodeName: "node-a",
          hostIPs:
            family === "IPv4" ? ["127.0.0.1", "192.168.0.2", "0.0.0.0"] : ["::1", "fd00::2", "::"],
        }),
      ),
    )
    .chain((pods) => fc.subarray(pods, { minLength: 1 })),
);

const portmapArb: fc.Arbitrary<PortmapConfig> = fc.record(
  {
    name: fc.constantFrom("cbr0", 'net "quoted"'),
    snat: fc.boolean(),
    markMasqBit: fc.integer({ min: 0, max: 31 }),
    masqAll: fc.boolean(),
    conditionsV4: fc.constantFrom<string[]>([], ["-d", "192.168.0.0/16"], ["!", "-s", "10.0.0.1"]),
    conditionsV6: fc.constantFrom<string[]>(
      [],
      ["-d", "fd00::/8"],
      ["-m", "comment", "--comment", "a b"],
    ),
  },
  { requiredKeys: ["name"] },
);

describe("random hostport cases as data", () => {
  test.prop([podsArb], { numRuns: 40, seed: 17 })("kubenet: built equals parsed", (pods) => {
    const result = hostportRulesForNode(makeCluster({ pods, nodes: [nodeObject] }), node, {
      impl: "kubenet",
    });
    expect(result.families.length).toBeGreaterThan(0);
    for (const f of result.families) expectSameAsParsed(f.family, f.nat);
  });

  test.prop([podsArb, portmapArb], { numRuns: 40, seed: 17 })(
    "portmap: built equals parsed",
    (pods, portmap) => {
      const result = hostportRulesForNode(makeCluster({ pods, nodes: [nodeObject] }), node, {
        impl: "portmap",
        portmap,
      });
      expect(result.families.length).toBeGreaterThan(0);
      for (const f of result.families) expectSameAsParsed(f.family, f.nat);
    },
  );
});

describe("portmap conditions are the user's input", () => {
  const pod = {
    metadata: { name: "p", namespace: "default", uid: "u1" },
    spec: {
      nodeName: "node-a",
      containers: [{ name: "c", ports: [{ containerPort: 80, hostPort: 8080, protocol: "TCP" }] }],
    },
    status: { podIP: "10.244.1.5", podIPs: [{ ip: "10.244.1.5" }] },
  };

  test("conditions iptables cannot read fail the pod's setup with a clear error", () => {
    const result = hostportRulesForNode(makeCluster({ pods: [pod], nodes: [nodeObject] }), node, {
      impl: "portmap",
      portmap: { name: "cbr0", conditionsV4: ["-a", "b"] },
    });
    expect(result.pods).toHaveLength(1);
    expect(result.pods[0]?.error).toBe('invalid conditions ["-a","b"]: unknown option "-a"');
    const v4 = result.families.find((f) => f.family === "IPv4");
    expect(v4?.nat.chains.some((c) => c.name.startsWith("CNI-DN-"))).toBe(false);
  });

  test("readable conditions end every entry rule, typed as the parser reads them", () => {
    const result = hostportRulesForNode(makeCluster({ pods: [pod], nodes: [nodeObject] }), node, {
      impl: "portmap",
      portmap: { name: "cbr0", conditionsV4: ["!", "-s", "10.0.0.1"] },
    });
    const v4 = result.families.find((f) => f.family === "IPv4");
    const entries = v4?.nat.chains.find((c) => c.name === "CNI-HOSTPORT-DNAT")?.rules ?? [];
    expect(entries).toHaveLength(1);
    expect(entries[0]?.written).toMatch(/--destination-ports 8080 ! -s 10\.0\.0\.1 -j CNI-DN-/);
    expect(entries[0]?.source).toMatchObject({ negated: true });
    expectSameAsParsed("IPv4", v4!.nat);
  });
});
