/**
 * shared/acceptance/iptables: clusterip-sctp and the seven nodeports variants. Flows are traced
 * with upstream's test-tracer semantics (traceUpstreamStyle) over the rendered node tables;
 * KUBE-FIREWALL is compared as exact text (shared/acceptance/README.md).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "@jest/globals";
import { traceUpstreamStyle } from "../../../src/netfilter/trace/upstream-style.js";
import { renderIptables } from "../../../src/proxiers/iptables/render-iptables.js";
import { ACCEPTANCE, chainLines, loadCase, readFlows } from "./helpers.js";

const VARIANTS = join(ACCEPTANCE, "nodeports", "variants");
const cases = [
  join(ACCEPTANCE, "clusterip-sctp"),
  ...readdirSync(VARIANTS).map((v) => join(VARIANTS, v)),
];

describe.each(cases)("%s", (dir) => {
  const c = loadCase(dir);
  const rendered = renderIptables(c.cluster, c);
  const local = c.node.interfaces.flatMap((i) => i.addresses);

  test.each(readFlows(join(dir, "flows.tsv")))("flow: $name", (flow) => {
    const r = traceUpstreamStyle(rendered.ruleSet, local, flow);
    expect({ output: r.output, masq: r.masq }).toEqual({ output: flow.output, masq: flow.masq });
  });

  const firewall = join(dir, "expected-filter-KUBE-FIREWALL.rules");
  if (dir.includes("nodeports")) {
    test("filter KUBE-FIREWALL text", () => {
      const lines = chainLines(rendered.restore, "filter", "KUBE-FIREWALL");
      expect(lines.map((l) => `${l}\n`).join("")).toBe(readFileSync(firewall, "utf8"));
    });
  }

  test("restore input is consistent: every jump declared, every declared chain used", () => {
    const declared = new Set<string>();
    const jumped = new Set<string>();
    let table = "";
    const targets = new Set(["ACCEPT", "DROP", "REJECT", "RETURN", "DNAT", "MARK", "MASQUERADE"]);
    for (const line of rendered.restore.split("\n")) {
      if (line.startsWith("*")) table = line.slice(1);
      if (line.startsWith(":")) declared.add(`${table}/${line.slice(1).split(" ")[0]}`);
      const m = / -j (\S+)/.exec(line);
      if (line.startsWith("-A ")) {
        expect(declared).toContain(`${table}/${line.split(" ")[1]}`);
        if (m !== null && !targets.has(m[1]!)) {
          expect(declared).toContain(`${table}/${m[1]}`);
          jumped.add(`${table}/${m[1]}`);
        }
      }
    }
    for (const d of declared) if (/KUBE-(SVC|SVL|EXT|FW|SEP)-/.test(d)) expect(jumped).toContain(d);
  });
});
