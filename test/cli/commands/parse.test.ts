import { describe, expect, test } from "@jest/globals";
import { runCli } from "../../../src/cli/program.js";

async function run(
  argv: string[],
  stdin = "",
): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  process.exitCode = undefined;
  const code = await runCli(argv, {
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
    readStdin: () => stdin,
  });
  process.exitCode = undefined;
  return { code, out, err };
}

describe("kube-netsim parse", () => {
  test("prints the canonical iptables-save form (kernel-checked spelling)", async () => {
    const r = await run(
      ["parse", "-"],
      "*nat\n:X - [0:0]\n-A X -m comment --comment ns/svc:p -m tcp -p tcp -d 10.96.0.1 --dport 443 -j MARK --or-mark 0x4000\nCOMMIT\n",
    );
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      "*nat\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n:X - [0:0]\n" +
        '-A X -d 10.96.0.1/32 -p tcp -m comment --comment "ns/svc:p" -m tcp --dport 443 -j MARK --set-xmark 0x4000/0x4000\nCOMMIT\n',
    );
  });
  test("--check prints nothing and exits 0 on a valid file", async () => {
    const r = await run(["parse", "--check", "examples/netfilter/kube-proxy.rules"]);
    expect(r).toEqual({ code: 0, out: "", err: "" });
  });
  test("errors are FILE:LINE: message in line order, exit 2", async () => {
    const r = await run(["parse", "examples/netfilter/broken.rules"]);
    expect(r.code).toBe(2);
    expect(r.err.split("\n").filter((l) => l !== "")).toEqual([
      'examples/netfilter/broken.rules:3: chain "NOPE" does not exist (jump from chain "X")',
      'examples/netfilter/broken.rules:4: unknown match "foo" (not modelled by kube-netsim)',
      'examples/netfilter/broken.rules:5: unknown option "--bogus"',
    ]);
  });
  test("--family ipv6 and a bad family", async () => {
    const ok = await run(
      ["parse", "--family", "ipv6", "-"],
      "*filter\n-A INPUT -s fd00::1 -j ACCEPT\nCOMMIT\n",
    );
    expect(ok.out).toContain("-A INPUT -s fd00::1/128 -j ACCEPT\n");
    const bad = await run(["parse", "--family", "ipv5", "-"], "");
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--family: unsupported value "ipv5"');
  });
  test("a missing file is one clear line", async () => {
    const r = await run(["parse", "/nonexistent.rules"]);
    expect(r.code).toBe(2);
    expect(r.err).toBe("kube-netsim: /nonexistent.rules: cannot read: ENOENT\n");
  });
});
