/** `kube-netsim render nftables` end to end (through runCli, no subprocess). */
import { join } from "node:path";
import { describe, expect, test } from "@jest/globals";
import { runCli } from "../../../src/cli/program.js";
import { NFT_ACCEPTANCE } from "./helpers.js";
import { caseArgs } from "../../helpers/case-args.js";

async function cli(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCli(args, {
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
    readStdin: () => "",
  });
  return { code, out, err };
}

const dir = join(NFT_ACCEPTANCE, "sync-repeated-initial");
const base = ["render", "nftables", ...caseArgs(dir)];

describe("render nftables", () => {
  test("dump (default) starts with the table and holds the service dispatch", async () => {
    const r = await cli(base);
    expect(r.code).toBe(0);
    expect(r.out.startsWith('add table ip kube-proxy { comment "rules for kube-proxy" ; }\n')).toBe(
      true,
    );
    expect(r.out).toContain(
      "add element ip kube-proxy service-ips { 172.30.0.41 . tcp . 80 : goto service-ULMVA6XW-ns1/svc1/tcp/p80 }\n",
    );
  });

  test("--format list prints nft's nested form; --mark-format padded as kube-proxy", async () => {
    const r = await cli([...base, "--format", "list"]);
    expect(r.code).toBe(0);
    expect(r.out.startsWith("table ip kube-proxy {\n")).toBe(true);
    expect(r.out).toContain("type filter hook prerouting priority dstnat - 10; policy accept;");
    const padded = await cli([...base, "--mark-format", "padded"]);
    expect(padded.out).toContain("mark set mark or 0x00004000\n");
  });

  test("--format transaction flushes what it rewrites", async () => {
    const r = await cli([...base, "--format", "transaction"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      "add chain ip kube-proxy nat-prerouting\ndelete chain ip kube-proxy nat-prerouting\n",
    );
    // readOrReset flushes an element container only when listing it fails for another reason
    // than "no such table" (proxier.go), so a first sync on an empty node flushes none of them.
    expect(r.out).not.toContain("flush map ip kube-proxy service-ips\n");
    expect(r.out).toContain("flush set ip kube-proxy nodeport-ips\n");
  });

  test("a bad format is a usage error", async () => {
    const r = await cli([...base, "--format", "yaml"]);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain("yaml");
  });
});

describe("trace with mode: nftables", () => {
  const d = join(NFT_ACCEPTANCE, "clusterip-general");
  const args = caseArgs(d);

  test("--upstream over flows.tsv gives the upstream outputs", async () => {
    const r = await cli(["trace", ...args, "--upstream", "--packets", join(d, "flows.tsv")]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("packet to unallocated cluster ip\tDROP\tfalse\n");
    expect(r.out).toContain("TCP-only port does not match UDP traffic\tREJECT\tfalse\n");
  });

  test("a packet's outcomes name the nftables rules", async () => {
    const r = await cli([
      "trace",
      ...args,
      "--proto",
      "sctp",
      "--src",
      "10.180.0.2",
      "--dst",
      "172.30.0.42",
      "--dport",
      "53",
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("DNAT, to 10.180.0.1:53, probability 50%");
    expect(r.out).toContain("ip kube-proxy/services#1");
  });
});
