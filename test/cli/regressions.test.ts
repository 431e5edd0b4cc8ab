/** Issue #19 items 6, 7 and 11, each as the user met it. */
import { afterEach, describe, expect, test } from "@jest/globals";
import { run } from "./helpers.js";

afterEach(() => {
  process.exitCode = undefined;
});

const NODE = ["--node-env", "examples/sctp-nodeport/node.yaml"];
const SVC = `apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {clusterIP: 10.96.0.10, ports: [{port: 80}]}
`;

describe("what validate accepts, every command handles", () => {
  const slice = `${SVC}---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-1, namespace: default, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
`;
  test("item 6: an EndpointSlice without endpoints", async () => {
    expect(await run(["validate", "-f", "-"], slice)).toEqual({ code: 0, out: "ok\n", err: "" });
    for (const args of [
      ["render", "iptables", ...NODE],
      ["render", "ipvs", ...NODE],
      [
        "trace",
        ...NODE,
        "--proto",
        "tcp",
        "--src",
        "10.0.0.2",
        "--dst",
        "10.96.0.10",
        "--dport",
        "80",
      ],
    ]) {
      const r = await run([...args, "-f", "-"], slice);
      expect([args, r.code, r.err]).toEqual([args, 0, ""]);
    }
  });

  test("item 7: a Node address without address", async () => {
    const text = `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {addresses: [{type: InternalIP}]}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec: {nodeName: n1, containers: [{name: c, image: i}]}
status: {podIP: 10.244.0.5}
`;
    const v = await run(["validate", "-f", "-"], text);
    expect(v.code).toBe(0);
    expect(v.err).toBe(
      '<stdin>:4:22: Node n1: status.addresses[0].address: warning: Invalid value: "": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)\n',
    );
    const m = await run(["policy", "matrix", "-f", "-", "--ports", "80"], text);
    expect(m.code).toBe(0);
    expect(m.out).toContain("default/p\tdefault/p\t80\tTCP\ttrue");
  });
});

describe("item 11: one problem, one line", () => {
  test("a newline and escape codes in a name or a key cannot forge a line", async () => {
    const text = `apiVersion: v1
kind: Service
metadata: {name: "s\\nfake.yaml:1:1: Service x/y: forged", namespace: "n\\u001b[31m"}
spec: {ports: [{port: 80}], "k\\n\\u0000": 1}
`;
    const r = await run(["validate", "-f", "-"], text);
    expect(r.code).toBe(2);
    const lines = r.err.trimEnd().split("\n");
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines)
      expect(l).toMatch(
        /^<stdin>:\d+:\d+: Service n\\x1b\[31m\/s\\nfake\.yaml:1:1: Service x\/y: forged: /,
      );
    expect(r.err).toContain('spec[k\\n\\x00]: warning: unknown field "spec[k\\n\\x00]"');
  });

  test("a control character in a rules file is escaped in parse errors", async () => {
    const r = await run(["parse", "--check", "-"], "*filter\nbad\u001b[2J\nCOMMIT\n");
    expect(r.code).toBe(2);
    expect(r.err).toBe('<stdin>:2: unknown or unsupported command "bad\\x1b[2J"\n');
  });
});

describe("parse prints comments as iptables-save prints them", () => {
  // Golden from the kernel: iptables-restore of these lines in a fresh namespace, then
  // iptables-save (iptables 1.8, nf_tables): control characters inside a quoted comment are
  // printed raw, only `"`, `\` and `'` are backslash-escaped (xtables_save_string).
  test("control characters stay as they are in the rules output", async () => {
    const r = await run(
      ["parse", "-"],
      '*filter\n:X - [0:0]\n-A X -m comment --comment "a\u001bb\u0007c\u007fd" -j ACCEPT\n-A X -m comment --comment "tab\there" -j ACCEPT\nCOMMIT\n',
    );
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      '-A X -m comment --comment "a\u001bb\u0007c\u007fd" -j ACCEPT\n-A X -m comment --comment "tab\there" -j ACCEPT\n',
    );
  });
});
