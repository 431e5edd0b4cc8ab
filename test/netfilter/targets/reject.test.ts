import { extensionContract } from "../contract.js";

extensionContract("REJECT", {
  canonical: [
    "-j REJECT --reject-with icmp-port-unreachable",
    "-p tcp -j REJECT --reject-with tcp-reset",
    "-j REJECT --reject-with icmp-admin-prohibited",
  ],
  normalizes: [
    ["-j REJECT", "-j REJECT --reject-with icmp-port-unreachable"],
    ["-j REJECT --reject-with host-prohib", "-j REJECT --reject-with icmp-host-prohibited"],
  ],
  invalid: [
    ["-j REJECT --reject-with tcp-reset", "only valid with -p tcp"],
    ["-j REJECT --reject-with nope", "unknown reject type"],
  ],
});
extensionContract("REJECT (IPv6)", {
  family: "IPv6",
  canonical: [
    "-j REJECT --reject-with icmp6-port-unreachable",
    "-j REJECT --reject-with icmp6-adm-prohibited",
  ],
  normalizes: [["-j REJECT --reject-with no-route", "-j REJECT --reject-with icmp6-no-route"]],
  invalid: [["-j REJECT --reject-with icmp-host-prohibited", "unknown reject type"]],
});
