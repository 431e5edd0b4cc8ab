/**
 * packetFlowTests over the upstream-style acceptance case clusterip-sctp (shared/acceptance:
 * flows.tsv from upstream's runPacketFlowTests rows): every row passes as its own jest test, the
 * dataplane given as iptables-save text; a wrong row fails with the row, both answers and the rule path.
 */
import { join } from "node:path";
import { describe, expect, test } from "@jest/globals";
import { renderIptables } from "../../../src/proxiers/iptables/render-iptables.js";
import {
  checkPacketFlow,
  packetFlowTests,
  type PacketFlowRow,
} from "../../../src/testing/packet-flow-tests.js";
import { formatIptablesSave } from "../../../src/netfilter/format/save.js";
import { parseIptables } from "../../../src/netfilter/parse/iptables.js";
import { ACCEPTANCE, loadCase, readFlows } from "../../proxiers/iptables/helpers.js";

const dir = join(ACCEPTANCE, "clusterip-sctp");
const c = loadCase(dir);
const rendered = renderIptables(c.cluster, c);
// What the node shows: iptables-save of the whole rendered state (restore input lacks the
// built-in chains' jumps kube-proxy ensures separately).
const saveText = formatIptablesSave(rendered.ruleSet);
const localAddrs = c.node.interfaces.flatMap((i) => i.addresses);
const rows: PacketFlowRow[] = readFlows(join(dir, "flows.tsv")).map((f) => ({
  name: f.name,
  sourceIP: f.sourceIP,
  destIP: f.destIP,
  destPort: f.destPort,
  output: f.output,
  masq: f.masq,
  protocol: f.protocol as NonNullable<PacketFlowRow["protocol"]>,
}));

describe("packetFlowTests: clusterip-sctp rows from upstream", () => {
  test("the case has rows", () => {
    expect(rows.length).toBeGreaterThan(0);
  });
  packetFlowTests({ rules: saveText, localAddrs }, rows);
});

describe("checkPacketFlow", () => {
  const ruleSet = parseIptables(saveText);
  const first = rows[0]!;

  test("an agreeing row gives no message", () => {
    expect(checkPacketFlow(ruleSet, localAddrs, first)).toBeUndefined();
  });

  test("a wrong row names the row, both answers and the rule path", () => {
    const wrong: PacketFlowRow = { ...first, output: "10.9.9.9:1", masq: !first.masq };
    const message = checkPacketFlow(ruleSet, localAddrs, wrong);
    expect(message).toBeDefined();
    const lines = (message ?? "").split("\n");
    expect(lines[0]).toBe(
      `packet flow ${first.name}: ${first.protocol === "" ? "tcp" : first.protocol} ${first.sourceIP} -> ${first.destIP}:${first.destPort}`,
    );
    expect(lines[1]).toBe(`  expected: output "10.9.9.9:1", masq ${String(!first.masq)}`);
    expect(lines[2]).toBe(
      `  traced:   output ${JSON.stringify(first.output)}, masq ${String(first.masq)}`,
    );
    expect(lines[3]).toMatch(/^ {2}rule path: nat\/PREROUTING#\d+ -> /);
  });

  test("a packet to no service: only the jump into KUBE-SERVICES is on the path", () => {
    const nowhere: PacketFlowRow = {
      name: "unknown address",
      sourceIP: "10.0.0.2",
      destIP: "198.51.100.77",
      destPort: 9,
      output: "ACCEPT",
      masq: false,
    };
    const message = checkPacketFlow(ruleSet, localAddrs, nowhere) ?? "";
    expect(message).toContain('traced:   output "", masq false');
    expect(message).toMatch(/\n {2}rule path: nat\/PREROUTING#\d+$/);
  });

  test("a table without rules says no rule matched", () => {
    const empty = parseIptables("*nat\n:PREROUTING ACCEPT [0:0]\nCOMMIT\n");
    const row: PacketFlowRow = { ...first, output: "ACCEPT" };
    expect(checkPacketFlow(empty, localAddrs, row)).toMatch(
      /\n {2}rule path: \(no rule with a jump matched\)$/,
    );
  });
});

describe("packetFlowTests wiring", () => {
  test("one test per row named by the row; a wrong row's test throws the check's message", () => {
    const g = globalThis as unknown as { test: unknown };
    const realTest = g.test;
    const defined: { name: string; fn: () => void }[] = [];
    g.test = (name: string, fn: () => void): void => {
      defined.push({ name, fn });
    };
    const wrong: PacketFlowRow = { ...rows[0]!, name: "wrong row", output: "DROP" };
    try {
      packetFlowTests({ rules: saveText, localAddrs }, [rows[0]!, wrong]);
    } finally {
      g.test = realTest;
    }
    expect(defined.map((d) => d.name)).toEqual([rows[0]!.name, "wrong row"]);
    expect(() => defined[0]!.fn()).not.toThrow();
    const expected = checkPacketFlow(parseIptables(saveText), localAddrs, wrong);
    expect(expected).toContain('expected: output "DROP"');
    expect(() => defined[1]!.fn()).toThrow(expected);
  });

  test("no rows is an error, not a silently empty suite", () => {
    expect(() => packetFlowTests({ rules: saveText }, [])).toThrow(
      "packetFlowTests: no rows given",
    );
  });
});
