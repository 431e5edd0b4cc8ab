import { extensionContract } from "../contract.js";

extensionContract("tcp", {
  canonical: [
    "-p tcp -m tcp --dport 443 -j ACCEPT",
    "-p tcp -m tcp ! --sport 1:1024 --dport 80",
    "-p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN",
  ],
  normalizes: [
    ["-m tcp -p tcp --dport 80", "-p tcp -m tcp --dport 80"],
    ["-p tcp --syn", "-p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN"],
    ["-p tcp --destination-port 1000:2000", "-p tcp -m tcp --dport 1000:2000"],
  ],
  invalid: [
    ["-m tcp --dport 80", "TCP match requires '-p tcp'"],
    ["-p tcp --dport 70000", "invalid port"],
    // libxt_tcp refuses a reversed range (iptables-nft 1.8.9, probed).
    ["-p tcp --dport 2000:1000", "invalid portrange (min > max)"],
    ["-p tcp --bogus", 'unknown option "--bogus"'],
    ["-p tcp --dport", "requires an argument"],
  ],
  evaluate: [
    ["-p tcp -m tcp --dport 80", {}, "match"],
    ["-p tcp -m tcp ! --dport 80", {}, "no-match"],
    ["-p tcp -m tcp --dport 80", { fragment: true }, "no-match"],
    ["-p tcp -m tcp --syn", { ctState: ["ESTABLISHED"] }, "no-match"],
  ],
});
