/**
 * The tracer against the real kernel, IPv6: the same random DNAT/REJECT/DROP/ACCEPT/MARK/
 * MASQUERADE rule sets as the IPv4 test (trace-oracle.ts), written for IPv6 (/128 hosts,
 * `[addr]:port` DNAT targets, ICMPv6 and tcp-reset REJECT types) and loaded into the node with
 * ip6tables-restore; real TCP and UDP connections over IPv6 from the client must end where the
 * tracer (family IPv6, the node's IPv6 addresses) says, including the rest of the connection.
 */
import { describeKernelOracle, IPV6_CASE } from "./trace-oracle.js";

// "unreachable" is strict here: an ICMPv6 error aborts the connect within the probe's time.
describeKernelOracle(
  "tracer vs the Linux kernel over IPv6 (netns topology)",
  IPV6_CASE,
  "kns-t6",
  "ip6tables",
  [
    "reached-node",
    "reached-server",
    "reached-server-masqueraded",
    "refused",
    "timeout",
    "unreachable",
    "error-EACCES",
  ],
);
