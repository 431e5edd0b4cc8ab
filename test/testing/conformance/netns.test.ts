/**
 * The SCTP plan with the netns backend: the TCP and UDP probes run on this machine's kernel
 * through the adapter's own rules and ipsets; SCTP probes the kernel cannot run are decided by
 * the simulator and say so. The example plugin passes, its protocol bug fails the same test on
 * the real kernel, and the sctp.ko side condition reads this kernel's modules before and after.
 * (kube-proxy's own rules on the kernel are test/backends' subject.)
 */
import { expect } from "@jest/globals";
import { join } from "node:path";
import { netnsBackend } from "../../../src/backends/netns/backend.js";
import { liveNetns } from "../../../src/backends/netns.js";
import { runSctpPlan, type ConformanceAdapter } from "../../../src/testing/index.js";
import { kernelTest } from "../../helpers/kernel.js";

const PLUGIN = join(__dirname, "../../../examples/plugin-repo-cjs/src/netpol-plugin.ts");
interface PluginModule {
  readonly tinypol: ConformanceAdapter;
  readonly tinypolProtocolDropped: ConformanceAdapter;
}

kernelTest(
  "tinypol and tinypol with its protocol bug on the real kernel",
  ["root", "ip", "iptables", "ipset"],
  async () => {
    const { tinypol, tinypolProtocolDropped } = (await import(PLUGIN)) as PluginModule;
    // Most of the plan's probes are expected drops, each waiting the whole timeout (1 s by
    // default); a delivery on these veths to a listening server takes milliseconds, so 500 ms
    // leaves a wide margin for a busy machine and takes about a minute off a loaded run.
    const backend = netnsBackend({ timeoutMs: 500 });
    const good = await runSctpPlan(tinypol, { backend });
    expect(good.flatMap((r) => r.failures)).toEqual([]);
    // The side condition watched this kernel's sctp module around the run (or says why not).
    const side = good.find((r) => r.name.startsWith("if sctp.ko was not loaded"));
    expect(side?.notes).toHaveLength(1);
    expect(side?.notes?.[0]).toMatch(
      /^kernel: sctp not loaded \(.+\) before the run; sctp not loaded \(.+\) after it$|^kernel check skipped: sctp loaded /,
    );
    const bad = await runSctpPlan(tinypolProtocolDropped, { backend });
    const failed = bad.filter((r) => r.failures.length > 0);
    expect(failed.map((r) => r.name)).toEqual([
      "A NetworkPolicy matching an SCTP port does not allow TCP or UDP traffic",
    ]);
    // TCP was observed by the kernel, not the simulator: no "traced by the simulator" note.
    expect(failed[0]?.failures[0]).toContain(
      "traced:   delivered to 10.244.1.20:5000 from 10.244.1.10\n",
    );
    expect(liveNetns()).toEqual([]);
  },
  // Two plan runs of real namespaces and probes: about 100 s on a busy two-core machine.
  300_000,
);
