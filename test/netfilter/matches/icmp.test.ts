import { extensionContract } from "../contract.js";

extensionContract("icmp", {
  canonical: [
    "-p icmp -m icmp --icmp-type 8 -j ACCEPT",
    "-p icmp -m icmp ! --icmp-type 3/3",
    "-p icmp -m icmp --icmp-type any",
  ],
  normalizes: [
    ["-p icmp --icmp-type echo-request", "-p icmp -m icmp --icmp-type 8"],
    ["-p icmp --icmp-type port-unreachable", "-p icmp -m icmp --icmp-type 3/3"],
  ],
  invalid: [
    ["-p icmp --icmp-type bogus", "invalid ICMP type"],
    ["-m icmp --icmp-type 8", "ICMP match requires"],
  ],
  evaluate: [
    ["-p icmp -m icmp --icmp-type 8", { protocol: "icmp", icmpType: 8 }, "match"],
    ["-p icmp -m icmp --icmp-type 8", { protocol: "icmp", icmpType: 0 }, "no-match"],
  ],
});
