import { extensionContract } from "../contract.js";

extensionContract("icmp6", {
  family: "IPv6",
  canonical: [
    "-p ipv6-icmp -m icmp6 --icmpv6-type 128",
    "-p ipv6-icmp -m icmp6 ! --icmpv6-type 1/4",
  ],
  normalizes: [["-p icmpv6 --icmpv6-type echo-request", "-p ipv6-icmp -m icmp6 --icmpv6-type 128"]],
  invalid: [
    ["-p icmpv6 --icmpv6-type nope", "invalid ICMPv6 type"],
    ["-p tcp -m icmp6 --icmpv6-type 1", "ICMPv6 match requires"],
  ],
  evaluate: [
    ["-p ipv6-icmp -m icmp6 --icmpv6-type 128", { protocol: "icmpv6", icmpType: 128 }, "match"],
  ],
});
