import { extensionContract } from "../contract.js";

extensionContract("set", {
  canonical: ["-m set --match-set KUBE-CLUSTER-IP dst,dst -j ACCEPT", "-m set ! --match-set s src"],
  invalid: [
    ["-m set --match-set s up", "'src' or 'dst'"],
    ["-m set --match-set s", "requires an argument"],
    ["-m set --match-set s src,src,src,src,src,src,src", "too many"],
  ],
  evaluate: [
    ["-m set --match-set present dst,dst", {}, "match"],
    ["-m set --match-set absent dst", {}, "no-match"],
    ["-m set ! --match-set absent dst", {}, "match"],
    ["-m set --match-set missing dst", {}, "no-match"],
  ],
});
