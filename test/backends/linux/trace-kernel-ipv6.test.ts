/**
 * The tracer against the real kernel, IPv6: the same random DNAT/REJECT/DROP/ACCEPT/MARK/
 * MASQUERADE rule sets as the IPv4 test (trace-oracle.ts), written for IPv6 (/128 hosts,
 * `[addr]:port` DNAT targets, ICMPv6 and tcp-reset REJECT types) and loaded into the node with
 * ip6tables-restore; real TCP and UDP connections over IPv6 from the client must end where the
 * tracer (family IPv6, the node's IPv6 addresses) says, including the rest of the connection.
 */
import { afterAll, beforeAll, describe, expect } from "@jest/globals";
import { kernelTest } from "../../helpers/kernel.js";
import { createTraceTopology, type TraceTopology } from "../../../src/backends/linux/topology.js";
import { liveNetns } from "../../../src/backends/netns.js";
import { checkAgainstKernel, IPV6_CASE } from "./trace-oracle.js";

describe("tracer vs the Linux kernel over IPv6 (netns topology)", () => {
  let topo: TraceTopology | undefined;

  beforeAll(async () => {
    if (process.getuid?.() === 0) topo = await createTraceTopology("kns-t6");
  }, 30_000);
  afterAll(() => {
    topo?.close();
    expect(liveNetns().filter((n) => n.startsWith("kns-t6"))).toEqual([]);
  });

  kernelTest(
    "random IPv6 rule sets: every TCP and UDP probe ends where the tracer says",
    ["root", "ip", "ip6tables"],
    async () => {
      const seen = await checkAgainstKernel(topo!, IPV6_CASE, {
        numRuns: 14,
        seed: Number(process.env.KNS_SEED ?? 4242),
        firstSport: 20000,
      });
      // The check has teeth only if the probes ended in every way (the fixed rule set sees to it).
      expect([...seen.keys()]).toEqual(
        expect.arrayContaining([
          "reached-node",
          "reached-server",
          "reached-server-masqueraded",
          "refused",
          "timeout",
          "unreachable",
          "error-EACCES",
        ]),
      );
    },
    120_000,
  );
});
