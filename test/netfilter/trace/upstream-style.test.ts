import { describe, expect, test } from "@jest/globals";
import { readFileSync } from "node:fs";
import { parseIptables } from "../../../src/netfilter/parse/iptables.js";
import { parseUpstreamWords, traceUpstreamStyle } from "../../../src/netfilter/trace/index.js";
import type { Rule } from "../../../src/netfilter/model.js";
import { chain, rule, ruleSet, table, jump, ACCEPT } from "./builders.js";
import { ACCEPTANCE_DIR } from "../../helpers/shared.js";

const CASE = `${ACCEPTANCE_DIR}/iptables/trace-packet-static`;
// SOURCE.md: the tracer's local addresses are testNodeIPs (plus 127.0.0.1 and ::1, always added).
const NODE_IPS = ["192.168.0.2", "192.168.1.2", "192.168.99.11", "2001:db8::1", "2001:db8:1::2"];

function flows(file: string) {
  const [header, ...lines] = readFileSync(file, "utf8").replace(/\n$/, "").split("\n");
  const cols = header!.split("\t");
  return lines.map(
    (l) => Object.fromEntries(l.split("\t").map((v, i) => [cols[i]!, v])) as Record<string, string>,
  );
}

describe("traceUpstreamStyle", () => {
  describe("acceptance: iptables/trace-packet-static", () => {
    // The fixture is not valid iptables-restore input; read it with kube-proxy's fake's leniencies.
    const rs = parseIptables(readFileSync(`${CASE}/input.iptables`, "utf8"), {
      dialect: "upstream-test",
    });
    for (const f of flows(`${CASE}/flows.tsv`))
      test(f.name!, () => {
        const r = traceUpstreamStyle(rs, NODE_IPS, {
          protocol: f.protocol!,
          sourceIP: f.sourceIP!,
          destIP: f.destIP!,
          destPort: f.destPort!,
        });
        expect({ output: r.output, masq: String(r.masq) }).toEqual({
          output: f.expected_output ?? "",
          masq: f.masq,
        });
      });
  });

  test("the upstream word reader skips -m MODULE and unknown words, and keeps negation", () => {
    const p = parseUpstreamWords([
      "-m",
      "comment",
      "--comment",
      "kubernetes",
      "service",
      "portals",
      "!",
      "-s",
      "10.0.0.0/8",
      "--nfacct-name",
      "x",
      "-j",
      "KUBE-SERVICES",
    ]);
    expect(p.get("--comment")).toEqual({ negated: false, value: "kubernetes" });
    expect(p.get("-s")).toEqual({ negated: true, value: "10.0.0.0/8" });
    expect(p.get("-j")).toEqual({ negated: false, value: "KUBE-SERVICES" });
    expect(p.has("--nfacct-name")).toBe(false);
  });

  const words = (w: string): Rule => ({ ...rule(undefined), written: w });

  test("rules with --mark, --ctstate or --rcheck never match; statistic chains collect every endpoint", () => {
    const rs = ruleSet([
      table("nat", [
        chain("PREROUTING", [words("-j KUBE-SERVICES")]),
        chain("KUBE-SERVICES", [
          words("-m mark --mark 0x1/0x1 -j DNAT --to-destination 1.1.1.1:1"),
          words("-m conntrack --ctstate NEW -j DNAT --to-destination 1.1.1.1:2"),
          words("-m recent --rcheck --name X -j DNAT --to-destination 1.1.1.1:3"),
          words("-p tcp -d 172.30.0.1 --dport 80 -j KUBE-SVC"),
        ]),
        chain("KUBE-SVC", [
          words("-s 10.0.0.0/8 -j KUBE-MARK-MASQ"),
          words("-m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-A"),
          words("-j KUBE-SEP-B"),
        ]),
        chain("KUBE-SEP-A", [words("-p tcp -j DNAT --to-destination 10.180.0.1:80")]),
        chain("KUBE-SEP-B", [words("-p tcp -j DNAT --to-destination 10.180.0.2:80")]),
      ]),
    ]);
    const r = traceUpstreamStyle(rs, [], {
      protocol: "",
      sourceIP: "10.1.1.1",
      destIP: "172.30.0.1",
      destPort: 80,
    });
    expect(r).toMatchObject({ output: "10.180.0.1:80, 10.180.0.2:80", masq: true });
    const other = traceUpstreamStyle(rs, [], {
      protocol: "udp",
      sourceIP: "10.1.1.1",
      destIP: "172.30.0.1",
      destPort: 80,
    });
    expect(other).toMatchObject({ output: "", masq: false });
  });

  test("--src-type / --dst-type LOCAL use the given addresses plus 127.0.0.1 and ::1", () => {
    const rs = ruleSet([
      table("filter", [chain("KUBE-SERVICES", [words("-m addrtype --src-type LOCAL -j ACCEPT")])]),
    ]);
    const t = (src: string) =>
      traceUpstreamStyle(rs, ["192.168.0.2"], {
        protocol: "tcp",
        sourceIP: src,
        destIP: "1.1.1.1",
        destPort: 1,
      }).output;
    expect(t("192.168.0.2")).toBe("ACCEPT");
    expect(t("127.0.0.1")).toBe("ACCEPT");
    expect(t("127.0.0.2")).toBe("");
  });

  test("without written words the typed rule's -p and target are used", () => {
    const rs = ruleSet([
      table("filter", [
        chain("KUBE-NODEPORTS", [rule(jump("X"), { p: "udp" }), rule(ACCEPT, { p: "tcp" })]),
        chain("X", []),
      ]),
    ]);
    expect(
      traceUpstreamStyle(rs, [], {
        protocol: "tcp",
        sourceIP: "1.1.1.1",
        destIP: "1.1.1.2",
        destPort: 1,
      }).output,
    ).toBe("ACCEPT");
  });
});
