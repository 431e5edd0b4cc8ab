/**
 * The tracer against the real kernel, IPv4: random DNAT/REJECT/DROP/ACCEPT/MARK/MASQUERADE rule
 * sets are loaded into the node namespace of a client/node/server topology, real TCP and UDP
 * connections are made from the client, and what the kernel did (which server address and port
 * answered, and the source it saw; refused; timed out; unreachable) must be what the tracer
 * predicts (generators and comparison: trace-oracle.ts; IPv6: trace-kernel-ipv6.test.ts).
 */
import { expect } from "@jest/globals";
import { kernelTest } from "../../helpers/kernel.js";
import { parseIptables } from "../../../src/netfilter/parse/iptables.js";
import { buildDataplane, trace } from "../../../src/netfilter/trace/index.js";
import { describeKernelOracle, IPV4_CASE } from "./trace-oracle.js";

const VIP = IPV4_CASE.vip;
const CLIENT = IPV4_CASE.addrs.client;
const SERVERS = IPV4_CASE.addrs.servers;

// Over IPv4 an ICMP error may still show as a timeout: "unreachable" is not required here.
describeKernelOracle(
  "tracer vs the Linux kernel (netns topology)",
  IPV4_CASE,
  "kns-tr",
  "iptables",
  ["reached-node", "reached-server", "reached-server-masqueraded", "refused", "timeout"],
  (topo) => {
    // Runs only where the kernel has SCTP sockets (this one has none: skipped with that reason).
    // Node has no SCTP sockets either, so the probe is the kernel's own conntrack entry.
    kernelTest(
      "SCTP: a DNAT rule set loads and the kernel's conntrack entry is what the tracer says",
      ["root", "ip", "iptables", "sctp"],
      () => {
        const t = topo();
        const text = [
          "*nat",
          ":PREROUTING ACCEPT [0:0]",
          `-A PREROUTING -d ${VIP}/32 -p sctp -m sctp --dport 80 -j DNAT --to-destination ${SERVERS[0]}:8080`,
          "COMMIT",
          "",
        ].join("\n");
        t.loadRules(text);
        const dp = buildDataplane({
          ruleSets: [parseIptables(text, { family: "IPv4" })],
          interfaces: t.nodeInterfaces,
        });
        const r = trace(dp, { proto: "sctp", src: CLIENT, dst: VIP, dport: 80 });
        expect(r.outcomes.map((o) => o.destination)).toEqual([`${SERVERS[0]}:8080`]);
        const sent = t.client.run("sh", [
          "-c",
          `command -v ncat >/dev/null && ncat --sctp -w 1 ${VIP} 80 </dev/null; true`,
        ]);
        expect(sent.status).toBe(0);
        const ct = t.node.run("cat", ["/proc/net/nf_conntrack"]);
        if (ct.status === 0 && ct.stdout.includes("sctp"))
          expect(ct.stdout).toContain(`dst=${SERVERS[0]}`);
      },
    );
  },
);
