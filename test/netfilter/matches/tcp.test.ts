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
    // C strtoul base 0, as libxtables reads ports (checked on the kernel).
    ["-p tcp --dport 010:0x20", "-p tcp -m tcp --dport 8:32"],
    ["-p tcp --sport +1", "-p tcp -m tcp --sport 1"],
  ],
  invalid: [
    ["-m tcp --dport 80", "TCP match requires '-p tcp'"],
    ["-p tcp --dport 70000", "invalid port"],
    ["-p tcp --dport 08", 'invalid port/service "08"'],
    ["-p tcp --dport -1", 'invalid port/service "-1"'],
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
