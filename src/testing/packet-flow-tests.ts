/**
 * `packetFlowTests(dataplane, rows)`: upstream kube-proxy's `runPacketFlowTests`
 * (pkg/proxy/iptables/proxier_test.go) for a plugin repository. Each row names a packet
 * (source, destination, port; tcp unless stated) and what upstream's test tracer should answer:
 * the output (DNAT destinations joined with ", ", or ACCEPT/DROP/REJECT, "" for nothing) and
 * whether the packet was marked for masquerade. The rows are traced with the same semantics
 * (traceUpstreamStyle), one jest `test` per row in the consumer's file (its `test` global).
 */
import type { RuleSet } from "../netfilter/model.js";
import { parseIptables } from "../netfilter/parse/iptables.js";
import { traceUpstreamStyle } from "../netfilter/trace/upstream-style.js";

/** A row with upstream's columns; `protocol` empty or absent means tcp, as upstream. */
export interface PacketFlowRow {
  readonly name: string;
  readonly sourceIP: string;
  readonly destIP: string;
  readonly destPort: number;
  readonly output: string;
  readonly masq: boolean;
  readonly protocol?: "tcp" | "udp" | "sctp" | "";
}

export interface PacketFlowDataplane {
  /** The node's `iptables-save` (or `ip6tables-save`) text, or that text already parsed. */
  readonly rules: string | RuleSet;
  /** The node's own addresses (for `--src-type`/`--dst-type LOCAL`); loopback is always local. */
  readonly localAddrs?: readonly string[];
}

export class PacketFlowFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PacketFlowFailure";
  }
}

function ruleSetOf(dataplane: PacketFlowDataplane): RuleSet {
  return typeof dataplane.rules === "string"
    ? parseIptables(dataplane.rules, { file: "<packetFlowTests>" })
    : dataplane.rules;
}

function describeRow(row: PacketFlowRow): string {
  const proto = row.protocol === undefined || row.protocol === "" ? "tcp" : row.protocol;
  return `${row.name}: ${proto} ${row.sourceIP} -> ${row.destIP}:${row.destPort}`;
}

/**
 * Traces one row; returns the failure message (row, expected and traced output/masq, the rule
 * path), or undefined when the trace agrees.
 */
export function checkPacketFlow(
  ruleSet: RuleSet,
  localAddrs: readonly string[],
  row: PacketFlowRow,
): string | undefined {
  const traced = traceUpstreamStyle(ruleSet, localAddrs, {
    protocol: row.protocol ?? "",
    sourceIP: row.sourceIP,
    destIP: row.destIP,
    destPort: row.destPort,
  });
  if (traced.output === row.output && traced.masq === row.masq) return undefined;
  return [
    `packet flow ${describeRow(row)}`,
    `  expected: output ${JSON.stringify(row.output)}, masq ${row.masq}`,
    `  traced:   output ${JSON.stringify(traced.output)}, masq ${traced.masq}`,
    `  rule path: ${traced.path.length === 0 ? "(no rule with a jump matched)" : traced.path.join(" -> ")}`,
  ].join("\n");
}

interface TestGlobal {
  readonly test: (name: string, fn: () => void) => void;
  /** jest's `expect`, where the test file has it as a global. */
  readonly expect?: (actual: unknown) => { toBeUndefined(): void };
}

/** Defines one jest test per row; call it at the top level or inside a `describe`. */
export function packetFlowTests(
  dataplane: PacketFlowDataplane,
  rows: readonly PacketFlowRow[],
): void {
  const g = globalThis as unknown as Partial<TestGlobal>;
  if (typeof g.test !== "function")
    throw new Error("packetFlowTests must be called in a jest test file (no test global)");
  if (rows.length === 0) throw new Error("packetFlowTests: no rows given");
  const defineTest = g.test;
  let parsed: RuleSet | undefined;
  const localAddrs = dataplane.localAddrs ?? [];
  for (const row of rows) {
    defineTest(row.name, () => {
      parsed ??= ruleSetOf(dataplane);
      const message = checkPacketFlow(parsed, localAddrs, row);
      if (message !== undefined) throw new PacketFlowFailure(message);
      // The row's check as a jest assertion too, so that a repository running with
      // expect.hasAssertions() (as kube-netsim's own tests do) counts it.
      g.expect?.(message).toBeUndefined();
    });
  }
}
