import { extensionContract } from "../contract.js";

extensionContract("multiport", {
  canonical: [
    "-p udp -m multiport --dports 1,2:3 -j DROP",
    "-p tcp -m multiport ! --sports 80,443",
    "-p tcp -m multiport --ports 1",
    "-p tcp -m multiport --sports 1:443",
  ],
  invalid: [
    ["-m multiport --dports 1", "multiport needs"],
    ["-p tcp -m multiport --dports 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", "too many ports"],
    ["-p tcp -m multiport --dports 1 --sports 2", "exactly one"],
    // iptables-nft-restore v1.8.9: "invalid portrange specified" / "invalid port/service `'".
    ["-p tcp -m multiport --sports 443:443", "invalid portrange"],
    ["-p tcp -m multiport --sports 500:443", "invalid portrange"],
    ["-p tcp -m multiport --sports :443", 'invalid port/service ""'],
    ["-p tcp -m multiport --sports 443:", 'invalid port/service ""'],
  ],
  evaluate: [
    ["-p tcp -m multiport --dports 79:81", {}, "match"],
    ["-p tcp -m multiport --ports 40000", {}, "match"],
    ["-p tcp -m multiport ! --dports 80", {}, "no-match"],
  ],
});
