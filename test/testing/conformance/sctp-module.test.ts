/**
 * The SCTP plan's side condition, "if sctp.ko was not loaded before a test, it is not loaded
 * after": the module state as /proc/modules and /sys/module show it, and the plan's test on a
 * kernel backend (a stand-in named netns, over the simulator, with a scripted kernel): it runs
 * the plan's probes over TCP and UDP between the two readings (never SCTP, whose socket would
 * load the module itself) and fails when the module appeared.
 */
import { describe, expect, test } from "@jest/globals";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Backend } from "../../../src/backends/backend.js";
import { kernelModuleState, type ModuleState } from "../../../src/backends/linux/kernel-module.js";
import { simulatorBackend } from "../../../src/backends/simulator/backend.js";
import {
  kubeProxyIptables,
  runPlanTest,
  SCTP_PLAN,
  type PlanTest,
} from "../../../src/testing/index.js";

const SIDE_CONDITION = SCTP_PLAN.find((t) => t.name.startsWith("if sctp.ko was not loaded"));

function sideCondition(): PlanTest {
  if (SIDE_CONDITION === undefined) throw new Error("the plan has no sctp.ko test");
  return SIDE_CONDITION;
}

describe("kernelModuleState", () => {
  const withFiles = (
    proc: string | undefined,
    sysEntries: readonly string[] | undefined,
  ): ModuleState => {
    const dir = mkdtempSync(join(tmpdir(), "kns-modules-"));
    try {
      if (proc !== undefined) writeFileSync(join(dir, "modules"), proc);
      if (sysEntries !== undefined)
        for (const e of ["", ...sysEntries]) mkdirSync(join(dir, "sys", e), { recursive: true });
      return kernelModuleState("sctp", {
        procModules: join(dir, "modules"),
        sysModule: join(dir, "sys"),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  test("loaded module, built-in, absent, no module support, nothing to read", () => {
    const lsmod = "nf_nat 57344 1 xt_nat, Live 0x0\nsctp 409600 4 - Live 0x0\n";
    expect(withFiles(lsmod, ["sctp"]).kind).toBe("loaded");
    // A name that merely starts with "sctp" is another module.
    expect(withFiles("sctp_diag 16384 0 - Live 0x0\n", []).kind).toBe("absent");
    expect(withFiles("nf_nat 57344 1 xt_nat, Live 0x0\n", ["sctp"])).toMatchObject({
      kind: "loaded",
      source: expect.stringContaining("(built in)"),
    });
    expect(withFiles(undefined, ["8250"])).toMatchObject({
      kind: "absent",
      source: expect.stringContaining("this kernel cannot load modules"),
    });
    expect(withFiles(undefined, undefined).kind).toBe("unknown");
  });
});

describe("the plan's sctp.ko test on a kernel backend", () => {
  /** The simulator under the netns backend's name, counting probes. */
  function kernelStandIn(): { backend: Backend; probes: () => number } {
    const sim = simulatorBackend();
    let n = 0;
    return {
      backend: {
        ...sim,
        name: "netns",
        probe: (r, p) => {
          n++;
          return sim.probe(r, p);
        },
      },
      probes: () => n,
    };
  }
  const absent: ModuleState = { kind: "absent", source: "/proc/modules" };
  const loaded: ModuleState = { kind: "loaded", source: "/proc/modules" };

  test("absent before, loaded after the probes: fails, saying so", async () => {
    const { backend, probes } = kernelStandIn();
    const readings: number[] = [];
    const states = [absent, loaded];
    const r = await runPlanTest(kubeProxyIptables, sideCondition(), {
      backend,
      kernel: {
        moduleState: (name) => {
          expect(name).toBe("sctp");
          readings.push(probes());
          return states[readings.length - 1] ?? loaded;
        },
      },
    });
    // Read once before anything ran, once after the plan's probes over TCP and UDP (2 x 6).
    expect(readings).toEqual([0, 12]);
    expect(r.failures).toEqual([
      "sctp.ko was not loaded before the run (/proc/modules) and is after it (/proc/modules): loading kube-proxy (iptables mode)'s state or its probes loaded it",
    ]);
  });

  test("absent before and after: passes, with what it observed", async () => {
    const r = await runPlanTest(kubeProxyIptables, sideCondition(), {
      backend: kernelStandIn().backend,
      kernel: { moduleState: () => absent },
    });
    expect(r.failures).toEqual([]);
    expect(r.notes).toEqual([
      "kernel: sctp not loaded (/proc/modules) before the run; sctp not loaded (/proc/modules) after it",
    ]);
  });

  test("already loaded, or unreadable: skipped with the reason", async () => {
    const before = await runPlanTest(kubeProxyIptables, sideCondition(), {
      backend: kernelStandIn().backend,
      kernel: { moduleState: () => loaded },
    });
    expect(before.failures).toEqual([]);
    expect(before.notes).toEqual([
      "kernel check skipped: sctp loaded (/proc/modules) before the run, so a load cannot be observed",
    ]);
    const unknown = await runPlanTest(kubeProxyIptables, sideCondition(), {
      backend: kernelStandIn().backend,
      kernel: { moduleState: () => ({ kind: "unknown", reason: "no /sys" }) },
    });
    expect(unknown.notes).toEqual(["kernel check skipped: no /sys"]);
  });

  test("the simulator: only the adapter's sockets are checked, and the note says so", async () => {
    const r = await runPlanTest(kubeProxyIptables, sideCondition());
    expect(r.failures).toEqual([]);
    expect(r.notes).toEqual([
      "kernel check not run: the simulator backend loads nothing into a kernel (the netns backend watches sctp.ko)",
    ]);
  });

  test("an adapter that reports an SCTP socket fails on every backend", async () => {
    const r = await runPlanTest(
      {
        ...kubeProxyIptables,
        name: "sctp listener",
        nodeState: async (input) => ({
          ...(await kubeProxyIptables.nodeState(input)),
          sockets: [{ protocol: "sctp", port: 5005 }],
        }),
      },
      sideCondition(),
    );
    expect(r.failures).toEqual([
      "sctp listener opens an SCTP socket on port 5005: opening it loads sctp.ko (kube-proxy and kubelet never do)",
    ]);
  });
});
