import { extensionContract } from "../contract.js";

extensionContract("udp", {
  // A reversed range stays as written and matches no port (iptables-nft 1.8.9 saves it so).
  canonical: [
    "-p udp -m udp --dport 53",
    "-p udp -m udp --sport 1:2 ! --dport 3",
    "-p udp -m udp --dport 5:3",
  ],
  normalizes: [
    // Decimal with leading zeros and a sign, cut to 16 bits (checked on the kernel).
    ["-p udp -m udp --dport 010 -j ACCEPT", "-p udp -m udp --dport 10 -j ACCEPT"],
    ["-p udp -m udp --dport +1:08 -j ACCEPT", "-p udp -m udp --dport 1:8 -j ACCEPT"],
    ["-p udp -m udp --dport 99999 -j ACCEPT", "-p udp -m udp --dport 34463 -j ACCEPT"],
    ["-m udp -p udp --dport 53 -j ACCEPT", "-p udp -m udp --dport 53 -j ACCEPT"],
  ],
  invalid: [
    ["-p tcp -m udp --dport 53", "UDP match requires '-p udp'"],
    // udp reads a port as a service (decimal, no hex), in iptables' words.
    ["-p udp --dport x", 'port "x" does not resolve to anything'],
    ["-p udp --dport 0x10", 'port "0x10" does not resolve to anything'],
    ["-p udp --dport -1", 'port "-1" does not resolve to anything'],
  ],
  evaluate: [
    ["-p udp -m udp --dport 53", { protocol: "udp", dport: 53 }, "match"],
    ["-p udp -m udp --dport 53", { protocol: "tcp", dport: 53 }, "no-match"],
    ["-p udp -m udp --dport 5:3", { protocol: "udp", dport: 4 }, "no-match"],
    ["-p udp -m udp ! --dport 5:3", { protocol: "udp", dport: 4 }, "match"],
  ],
});
