/**
 * Every option a command accepts either works or is refused with one line (issue #19 item 4),
 * usage errors are one line and a hint, an input without objects is an error, and `-o` is
 * `--output` everywhere.
 */
import { afterEach, describe, expect, test } from "@jest/globals";
import { run } from "./helpers.js";

afterEach(() => {
  process.exitCode = undefined;
});

const HP = [
  "render",
  "hostports",
  "-f",
  "examples/sctp-hostport/",
  "--node-env",
  "examples/sctp-hostport/node.yaml",
];
const NP = [
  "-f",
  "examples/sctp-nodeport/cluster.yaml",
  "--node-env",
  "examples/sctp-nodeport/node.yaml",
];

describe("options are honoured or refused", () => {
  test("render hostports refuses --proxy-config (even a missing file) instead of ignoring it", async () => {
    const r = await run([...HP, "--proxy-config", "does-not-exist.yaml"]);
    expect(r).toEqual({
      code: 2,
      out: "",
      err: "kube-netsim: --proxy-config: render hostports does not read a KubeProxyConfiguration (the kubelet hostport manager and CNI portmap do not use kube-proxy's settings)\n",
    });
  });

  test.each([
    [
      ["--nat-interface", "br0", "--impl", "portmap"],
      "--nat-interface: only for --impl kubenet (this is --impl portmap)",
    ],
    [["--network-name", "n"], "--network-name: only for --impl portmap (this is --impl kubenet)"],
    [
      ["--mark-masq-bit", "13"],
      "--mark-masq-bit: only for --impl portmap (this is --impl kubenet)",
    ],
    [["--no-snat"], "--no-snat: only for --impl portmap (this is --impl kubenet)"],
    [
      ["-o", "json", "--format", "restore"],
      "--format: only for text output (--output json holds both restore and save)",
    ],
  ])("render hostports %j", async (extra, message) => {
    const r = await run([...HP, ...extra]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`kube-netsim: ${message}\n`);
  });

  test("an implementation's own options still work", async () => {
    const r = await run([...HP, "--impl", "portmap", "--network-name", "n", "--no-snat"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("CNI-HOSTPORT-DNAT");
  });

  test("render ipvs --ipvs-format with --only of another section is refused", async () => {
    const r = await run([
      "render",
      "ipvs",
      ...NP,
      "--proxy-config",
      "examples/sctp-nodeport/proxy-ipvs.yaml",
      "--only",
      "ipset",
      "--ipvs-format",
      "list",
    ]);
    expect(r).toEqual({
      code: 2,
      out: "",
      err: "kube-netsim: --ipvs-format: only shapes the ipvs section (--only ipset)\n",
    });
  });
});

describe("-o is --output", () => {
  test.each([
    [["validate", "-f", "examples/sctp-test-plan/"]],
    [["render", "iptables", ...NP]],
    [["render", "ipvs", ...NP, "--proxy-config", "examples/sctp-nodeport/proxy-ipvs.yaml"]],
    [HP],
  ])("%j", async (args) => {
    const short = await run([...args, "-o", "json"]);
    const long = await run([...args, "--output", "json"]);
    expect(short.code).toBe(0);
    expect(short).toEqual(long);
    expect(() => JSON.parse(short.out) as unknown).not.toThrow();
  });
});

describe("usage errors", () => {
  test("one line and a hint naming the command's help, not the help page", async () => {
    const r = await run(["render", "iptables", "--bogus"]);
    expect(r).toEqual({
      code: 2,
      out: "",
      err: "error: unknown option '--bogus'\n(see kube-netsim render iptables --help)\n",
    });
  });

  test("an unknown command", async () => {
    const r = await run(["rendr"]);
    expect(r.code).toBe(2);
    expect(r.err.split("\n")).toEqual([
      "error: unknown command 'rendr' (Did you mean render?)",
      "(see kube-netsim --help)",
      "",
    ]);
  });

  test("a bad choice; user text in the message is escaped", async () => {
    const r = await run(["validate", "-f", "x", "--validation", "la\nx\u001b[2J"]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      "error: option '--validation <mode>' argument 'la\\nx\\x1b[2J' is invalid. Allowed choices are strict, warn.\n(see kube-netsim validate --help)\n",
    );
  });
});

describe("an input with no objects is an error (kubectl: no objects passed)", () => {
  test.each([
    [""],
    ["---\n---\n"],
    ["# only a comment\n"],
    ["apiVersion: v1\nkind: List\nitems: []\n"],
  ])("%j", async (stdin) => {
    for (const args of [["validate"], ["render", "iptables", "--node", "n"]]) {
      const r = await run([...args, "-f", "-"], stdin);
      expect(r).toEqual({
        code: 2,
        out: "",
        err: "kube-netsim: no objects passed: standard input holds no Kubernetes objects\n",
      });
    }
  });

  test("objects of kinds we do not model are objects", async () => {
    const r = await run(
      ["validate", "-f", "-"],
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n",
    );
    expect(r.code).toBe(0);
    expect(r.out).toBe("ok\n");
  });
});
