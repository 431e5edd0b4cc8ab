/** `kube-netsim render iptables --sequence DIR` end to end (through runCli, no subprocess). */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "@jest/globals";
import { runCli } from "../../../src/cli/program.js";
import { sortRestoreLikeUpstream } from "../../../src/proxiers/iptables/upstream-sort.js";
import { ACCEPTANCE } from "./helpers.js";

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

const dir = join(__dirname, "sync-repeated");
const settings = join(ACCEPTANCE, "clusterip-sctp");
const args = [
  "render",
  "iptables",
  "--sequence",
  join(dir, "states"),
  "--node-env",
  join(settings, "node.yaml"),
  "--proxy-config",
  join(settings, "proxy.yaml"),
];

describe("render iptables --sequence", () => {
  test("a header per sync; each section is upstream's restore input", async () => {
    const r = await cli(args);
    expect(r).toMatchObject({ code: 0, err: "" });
    const sections = r.out.split(/^# sync \d+\/8 .*iptables-restore --noflush input\n/m).slice(1);
    expect(sections).toHaveLength(8);
    sections.forEach((text, i) => {
      const body = text.split(/^# sync /m)[0] ?? "";
      const want = readFileSync(join(dir, "expected", `0${i + 1}.rules`), "utf8");
      expect(sortRestoreLikeUpstream(body)).toBe(sortRestoreLikeUpstream(want));
    });
    expect(r.out).toContain("# iptables -t mangle -N KUBE-PROXY-CANARY\n");
    expect(r.out).toContain("# sync 2/8 02-add-svc3.yaml (t=30s): partial sync, IPv4");
  });

  test("-o json has every sync", async () => {
    const r = await cli([...args, "-o", "json"]);
    expect(r.code).toBe(0);
    const parsed = JSON.parse(r.out) as { syncs: { families: { restore: string }[] }[] };
    expect(parsed.syncs).toHaveLength(8);
    expect(parsed.syncs[2]?.families[0]?.restore).toContain("-X KUBE-SVC-2VJB64SDSIJUP5T6\n");
  });

  test("a bad DIR: exit 2, one line", async () => {
    const r = await cli([...args.slice(0, 3), "/nonexistent-kns", ...args.slice(4)]);
    expect(r.code).toBe(2);
    expect(r.err.trim()).toBe("kube-netsim: --sequence /nonexistent-kns: no such directory");
  });
});
