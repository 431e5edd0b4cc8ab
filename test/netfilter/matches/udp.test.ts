import { extensionContract } from "../contract.js";

extensionContract("udp", {
  // A reversed range stays as written and matches no port (iptables-nft 1.8.9 saves it so).
  canonical: [
    "-p udp -m udp --dport 53",
    "-p udp -m udp --sport 1:2 ! --dport 3",
    "-p udp -m udp --dport 5:3",
  ],
  normalizes: [["-m udp -p udp --dport 53 -j ACCEPT", "-p udp -m udp --dport 53 -j ACCEPT"]],
  invalid: [
    ["-p tcp -m udp --dport 53", "UDP match requires '-p udp'"],
    ["-p udp --dport x", "invalid port"],
  ],
  evaluate: [
    ["-p udp -m udp --dport 53", { protocol: "udp", dport: 53 }, "match"],
    ["-p udp -m udp --dport 53", { protocol: "tcp", dport: 53 }, "no-match"],
    ["-p udp -m udp --dport 5:3", { protocol: "udp", dport: 4 }, "no-match"],
    ["-p udp -m udp ! --dport 5:3", { protocol: "udp", dport: 4 }, "match"],
  ],
});
