import { extensionContract } from "../contract.js";

extensionContract("conntrack", {
  canonical: [
    "-m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j ACCEPT",
    "-m conntrack --ctstate INVALID",
    "-m conntrack --ctorigdst 10.0.0.0/8 ! --ctorigdstport 80",
    "-m conntrack --ctorigsrc 10.1.2.3/8",
    "-m conntrack ! --ctstatus SEEN_REPLY,ASSURED --ctdir REPLY",
  ],
  normalizes: [
    ["-m conntrack --ctstate ESTABLISHED,RELATED", "-m conntrack --ctstate RELATED,ESTABLISHED"],
    ["-m conntrack --ctorigsrc 1.2.3.4", "-m conntrack --ctorigsrc 1.2.3.4"],
    // iptables-nft 1.8.9 keeps 16 bits of a --ct*port number (what iptables-save printed).
    ["-m conntrack --ctorigdstport 70000", "-m conntrack --ctorigdstport 4464"],
    ["-m conntrack --ctorigsrcport 65536", "-m conntrack --ctorigsrcport 0"],
    ["-m conntrack --ctorigdstport 70000:70001", "-m conntrack --ctorigdstport 4464:4465"],
  ],
  invalid: [
    ["-m conntrack --ctstate BOGUS", 'bad value "BOGUS"'],
    ["-m conntrack", "at least one option"],
    ["-m conntrack ! --ctdir REPLY", "cannot be inverted"],
  ],
  evaluate: [
    ["-m conntrack --ctstate NEW", {}, "match"],
    [
      "-m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT",
      { ctState: ["ESTABLISHED", "DNAT"] },
      "no-match",
    ],
    ["-m conntrack --ctstate DNAT", { ctState: ["NEW", "DNAT"] }, "match"],
  ],
});
