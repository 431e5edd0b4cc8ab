/**
 * The text-only path of `render nftables` (writeNftablesDump: each service port written as it is
 * planned into a DumpWriter, which keeps only bytes) must print the bytes of the data path: the
 * typed table (TableBuilder, nftablesTable) printed by the Dump formatter (dumpTable). Checked on
 * the feature cases (dual stack included), random clusters in both families and both mark
 * formats, and on random sequences of table operations against TableBuilder directly (repeated
 * chains and sets, rules out of chain order, re-added element keys, names beyond ASCII).
 */
import { describe, expect } from "@jest/globals";
import { fc, test } from "@fast-check/jest";
import type { Cluster } from "../../../src/model/cluster.js";
import type { NodeEnvironment } from "../../../src/model/node-environment.js";
import type { KubeProxyConfiguration } from "../../../src/model/proxy-config.js";
import { TableBuilder } from "../../../src/netfilter/nftables/builder.js";
import { dumpTable, inDumpOrder } from "../../../src/netfilter/nftables/dump.js";
import { DumpWriter } from "../../../src/netfilter/nftables/dump-writer.js";
import {
  goto,
  jump,
  match,
  payload,
  value,
  verdictStatement,
  type Family,
  type Rule,
} from "../../../src/netfilter/nftables/model.js";
import type { TableSink } from "../../../src/netfilter/nftables/table-sink.js";
import {
  nftablesTable,
  renderNftables,
  writeNftablesDump,
} from "../../../src/proxiers/nftables/render-nftables.js";
import type { MarkFormat } from "../../../src/proxiers/nftables/settings.js";
import { runCli } from "../../../src/cli/program.js";
import { kubeCluster } from "../../../src/testing/arbitraries/kubeCluster.js";
import { V4, V6, clusterOf, scenarioOf, serviceSpecArb } from "../../differential/scenario.js";
import { FEATURE_CASES, NFT_CONFIG } from "./feature-cases.js";
import { FAKE_NODE } from "../iptables/helpers.js";
import { NFT_ACCEPTANCE } from "./helpers.js";
import { join } from "node:path";
import { caseArgs } from "../../helpers/case-args.js";

/** The streamed bytes, read as pieces that are written over after each call (as the CLI does). */
function streamed(
  cluster: Cluster,
  opts: {
    node: NodeEnvironment;
    proxyConfig: KubeProxyConfiguration;
    masqueradeMarkFormat?: MarkFormat;
  },
): string {
  const pieces: Buffer[] = [];
  writeNftablesDump(cluster, opts, (b) => {
    pieces.push(Buffer.from(b));
    b.fill(0);
  });
  return Buffer.concat(pieces).toString("utf8");
}

function expectSameDump(
  cluster: Cluster,
  node: NodeEnvironment,
  proxyConfig: KubeProxyConfiguration,
  masqueradeMarkFormat: MarkFormat = "short",
): void {
  const opts = { node, proxyConfig, masqueradeMarkFormat };
  const formatted = node.ipFamilies.map((f) => dumpTable(nftablesTable(cluster, f, opts))).join("");
  expect(formatted.startsWith("add table ")).toBe(true);
  expect(streamed(cluster, opts)).toBe(formatted);
  expect(renderNftables(cluster, opts).dump).toBe(formatted);
}

const DUAL_NODE: NodeEnvironment = {
  ...FAKE_NODE,
  ipFamilies: ["IPv4", "IPv6"],
  nodeIPs: ["192.168.0.2", "2001:db8::1"],
};

describe("render nftables, text only: the bytes of the typed table's Dump", () => {
  test.each(FEATURE_CASES.map((c) => [c.name, c] as const))("feature case %s", (_name, c) => {
    expectSameDump(c.cluster, c.node, c.proxyConfig);
    expectSameDump(c.cluster, c.node, c.proxyConfig, "padded");
  });

  test.prop(
    [
      kubeCluster({ maxServices: 6 }),
      fc.constantFrom<NodeEnvironment>(FAKE_NODE, DUAL_NODE),
      fc.constantFrom<MarkFormat>("short", "padded"),
    ],
    { numRuns: 60, seed: 17 },
  )("random clusters, one or two families", (g, node, mark) => {
    expectSameDump(g.cluster, node, NFT_CONFIG, mark);
  });

  test.prop([fc.array(serviceSpecArb, { minLength: 1, maxLength: 4 }), fc.constantFrom(V4, V6)], {
    numRuns: 60,
    seed: 23,
  })("random services with affinity, firewalls, external IPs and local policies", (specs, plan) => {
    const cluster = clusterOf(scenarioOf(specs, plan));
    const proxyConfig: KubeProxyConfiguration = {
      ...plan.iptablesConfig,
      mode: "nftables",
      nodePortAddresses: [plan.family === "IPv4" ? "0.0.0.0/0" : "::/0"],
    };
    expectSameDump(cluster, plan.node, proxyConfig);
  });

  test("the CLI prints the same bytes as the library's dump, to a pipe and to a file", async () => {
    const dir = join(NFT_ACCEPTANCE, "sync-repeated-initial");
    const args = ["render", "nftables", ...caseArgs(dir)];
    let text = "";
    const noBytes = await runCli(args, {
      stdout: (s) => (text += s),
      stderr: () => undefined,
      readStdin: () => "",
    });
    const outputs: string[] = [];
    for (const sync of [false, true]) {
      const pieces: Buffer[] = [];
      const code = await runCli(args, {
        stdout: () => {
          throw new Error("the dump is printed as bytes");
        },
        stderr: () => undefined,
        readStdin: () => "",
        // A file's write is done when it returns: the writer may reuse the piece.
        stdoutBytes: (b) => pieces.push(sync ? Buffer.from(b) : (b as Buffer)),
        stdoutBytesSync: sync,
      });
      expect(code).toBe(0);
      outputs.push(Buffer.concat(pieces).toString("utf8"));
    }
    expect(noBytes).toBe(0);
    expect(text).toContain("add rule ip kube-proxy ");
    expect(outputs).toEqual([text, text]);
  });
});

// ---- DumpWriter against TableBuilder, operation by operation ----

type Op =
  | {
      readonly kind: "chain";
      readonly name: string;
      readonly comment?: string | undefined;
      readonly base: boolean;
    }
  | {
      readonly kind: "rule";
      readonly chain: string;
      readonly target: string;
      readonly comment?: string | undefined;
    }
  | { readonly kind: "set"; readonly name: string; readonly map: boolean }
  | {
      readonly kind: "element";
      readonly set: string;
      readonly key: string;
      readonly comment?: string | undefined;
    };

/** Few names, so that chains, sets and element keys repeat; some beyond ASCII. */
const NAME = fc.oneof(
  fc.constantFrom("a", "b"),
  fc.constantFrom("a", "b", "ab", "B", "endpoint-X", "é", "z", "ü-1", "a-b"),
);
const KEY = fc.constantFrom("10.0.0.1", "10.0.0.2", "fd00::1", "tcp");
const COMMENT = fc.option(fc.constantFrom("c", "ns/svc:p", "ümlaut"), { nil: undefined });

const OP: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant("chain" as const),
    name: NAME,
    comment: COMMENT,
    base: fc.boolean(),
  }),
  fc.record({ kind: fc.constant("rule" as const), chain: NAME, target: NAME, comment: COMMENT }),
  fc.record({ kind: fc.constant("set" as const), name: NAME, map: fc.boolean() }),
  fc.record({ kind: fc.constant("element" as const), set: NAME, key: KEY, comment: COMMENT }),
);

/** Applies `op`; what a sink refuses is reported as its message. */
function apply(sink: TableSink, op: Op, n: number): string | undefined {
  try {
    switch (op.kind) {
      case "chain":
        sink.addChain(op.name, {
          ...(op.comment === undefined ? {} : { comment: op.comment }),
          ...(op.base ? { base: { type: "nat", hook: "output", priority: -100 } } : {}),
        });
        return String(sink.hasChain(op.name));
      case "rule": {
        const rule: Rule = {
          statements: [
            match(payload("ip", "daddr"), value(`10.0.${n >> 8}.${n & 255}`)),
            verdictStatement(n % 2 === 0 ? jump(op.target) : goto(op.target)),
          ],
          ...(op.comment === undefined ? {} : { comment: op.comment }),
        };
        sink.addRule(op.chain, rule);
        return undefined;
      }
      case "set":
        sink.addSet(
          op.map
            ? {
                kind: "map",
                name: op.name,
                keyType: ["ipv4_addr"],
                valueType: "verdict",
                flags: [],
              }
            : { kind: "set", name: op.name, keyType: ["ipv4_addr"], flags: ["interval"] },
        );
        return undefined;
      case "element":
        sink.addElement(op.set, {
          key: [op.key],
          ...(op.comment === undefined ? {} : { comment: op.comment }),
          ...(n % 3 === 0 ? { value: { kind: "verdict", verdict: { kind: "drop" } } } : {}),
        });
        return undefined;
    }
  } catch (e) {
    return (e as Error).message;
  }
}

describe("DumpWriter: the Dump of what TableBuilder builds", () => {
  test.prop([fc.array(OP, { maxLength: 40 }), fc.constantFrom<Family>("ip", "ip6", "inet")], {
    numRuns: 300,
    seed: 29,
  })("random operations", (ops, family) => {
    const builder = new TableBuilder(family, "kube-proxy", "rules for kube-proxy");
    const writer = new DumpWriter(family, "kube-proxy", "rules for kube-proxy");
    // A set, a map and a chain first, so that elements and rules mostly land somewhere.
    const all: Op[] = [
      { kind: "set", name: "a", map: false },
      { kind: "set", name: "b", map: true },
      { kind: "chain", name: "a", base: false },
      ...ops,
    ];
    const answers = all.map((op, i) => [apply(builder, op, i), apply(writer, op, i)]);
    for (const [a, b] of answers) expect(b).toBe(a);
    const text = writer.text();
    expect(text).toBe(dumpTable(inDumpOrder(builder.build())));
    // Printing does not consume what was written.
    expect(writer.text()).toBe(text);
  });

  test("many chains: sorted by name across chunks, each with its rules", () => {
    const builder = new TableBuilder("ip", "t");
    const writer = new DumpWriter("ip", "t", undefined, 10);
    for (let i = 0; i < 30000; i++) {
      const name = `endpoint-${((i * 7919) % 30011).toString(36)}-ns/svc${i}/tcp/p__10.0.0.1/80`;
      for (const sink of [builder, writer]) {
        sink.addChain(name);
        sink.addRule(name, { statements: [verdictStatement(jump(`c${i % 7}`))] });
      }
    }
    const expected = dumpTable(inDumpOrder(builder.build()));
    expect(expected.length).toBeGreaterThan(1 << 21);
    expect(writer.text()).toBe(expected);
  });
});
