/**
 * toEqualRules. The equivalences are iptables' own: iptables-save prints `-d` with its prefix
 * length and before `-p`, whatever order the restore input used; chain declaration order and
 * counters are not part of the rules; an empty built-in chain with policy ACCEPT is what every
 * table has anyway. Rule order inside a chain is significant.
 */
import { describe, expect, test } from "@jest/globals";
import "../../src/jest/index.js";
import { parseIptables } from "../../src/netfilter/parse/iptables.js";

const restore = `*nat
:KUBE-B - [0:0]
:KUBE-A - [0:0]
-A PREROUTING -j KUBE-A
-A KUBE-A -p tcp -m tcp --dport 80 -d 10.0.0.1 -j KUBE-B
-A KUBE-A -p udp -m udp --dport 53 -d 10.0.0.2 -j KUBE-B
-A KUBE-B -p tcp -j DNAT --to-destination 10.1.0.1:80
COMMIT
`;

const saved = `*nat
:PREROUTING ACCEPT [12:720]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [3:180]
:POSTROUTING ACCEPT [0:0]
:KUBE-A - [0:0]
:KUBE-B - [0:0]
[12:720] -A PREROUTING -j KUBE-A
-A KUBE-A -d 10.0.0.1/32 -p tcp -m tcp --dport 80 -j KUBE-B
-A KUBE-A -d 10.0.0.2/32 -p udp -m udp --dport 53 -j KUBE-B
-A KUBE-B -p tcp -j DNAT --to-destination 10.1.0.1:80
COMMIT
`;

describe("toEqualRules", () => {
  test("restore input equals its save form: spelling, chain order and counters do not matter", () => {
    expect(saved).toEqualRules(restore);
    expect(parseIptables(restore)).toEqualRules(saved);
  });

  test("rule order inside a chain matters; the failure is a diff of that chain only", () => {
    const swapped = saved.replace(
      "-A KUBE-A -d 10.0.0.1/32 -p tcp -m tcp --dport 80 -j KUBE-B\n-A KUBE-A -d 10.0.0.2/32 -p udp -m udp --dport 53 -j KUBE-B",
      "-A KUBE-A -d 10.0.0.2/32 -p udp -m udp --dport 53 -j KUBE-B\n-A KUBE-A -d 10.0.0.1/32 -p tcp -m tcp --dport 80 -j KUBE-B",
    );
    expect(swapped).not.toEqualRules(restore);
    let message = "";
    try {
      expect(swapped).toEqualRules(restore);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain("1 chain(s) differ");
    expect(message).toContain("nat/KUBE-A:");
    expect(message).not.toContain("nat/KUBE-B:");
  });

  test("a chain or a policy on one side only is named", () => {
    const extra = saved.replace(":KUBE-B - [0:0]", ":KUBE-B - [0:0]\n:KUBE-C - [0:0]");
    expect(() => expect(extra).toEqualRules(restore)).toThrow(
      /nat\/KUBE-C: only in the received rules/,
    );
    const filter = "*filter\n:FORWARD DROP [0:0]\nCOMMIT\n";
    expect(() => expect("*filter\nCOMMIT\n").toEqualRules(filter)).toThrow(
      /filter\/FORWARD: missing from the received rules\n:FORWARD DROP/,
    );
  });

  test("unparsable text fails with the parser's message", () => {
    expect(() => expect("*nat\n-A NOPE -j ACCEPT\nCOMMIT\n").toEqualRules(restore)).toThrow(
      /toEqualRules: .*received/,
    );
  });
});
