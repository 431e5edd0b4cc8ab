import { extensionContract } from "../contract.js";

extensionContract("DNAT/SNAT/MASQUERADE", {
  table: "nat",
  canonical: [
    "-p tcp -j DNAT --to-destination 10.0.0.1:80",
    "-j DNAT --to-destination 10.0.0.1-10.0.0.5 --random",
    "-j SNAT --to-source 1.2.3.4 --random-fully",
    "-j MASQUERADE --random-fully",
    "-p udp -j MASQUERADE --to-ports 1000-2000",
  ],
  invalid: [
    ["-j DNAT --to-destination 10.0.0.1:80", "port specification"],
    ["-j DNAT", "--to-destination"],
    ["-j DNAT --to-destination 10.0.0.300", "invalid address"],
  ],
});
extensionContract("DNAT (IPv6)", {
  family: "IPv6",
  table: "nat",
  canonical: ["-p tcp -j DNAT --to-destination [fd00::1]:80", "-j DNAT --to-destination fd00::1"],
  invalid: [["-p tcp -j DNAT --to-destination [fd00::1:80", "invalid address"]],
});
extensionContract("DNAT outside nat", {
  canonical: [],
  invalid: [["-j DNAT --to-destination 10.0.0.1", "only valid in the nat table"]],
});
