import { extensionContract } from "../contract.js";

extensionContract("addrtype", {
  canonical: [
    "-m addrtype --src-type LOCAL -j RETURN",
    "-m addrtype ! --dst-type LOCAL,BROADCAST --limit-iface-in",
  ],
  normalizes: [
    ["-m addrtype --dst-type broadcast,local", "-m addrtype --dst-type LOCAL,BROADCAST"],
  ],
  invalid: [
    ["-m addrtype", "--src-type or --dst-type"],
    ["-m addrtype --dst-type LOCAL --limit-iface-in --limit-iface-out", "both"],
    ["-m addrtype --dst-type HOME", "bad value"],
  ],
  evaluate: [
    ["-m addrtype --dst-type LOCAL", {}, "match"],
    ["-m addrtype --src-type LOCAL", {}, "no-match"],
  ],
});
