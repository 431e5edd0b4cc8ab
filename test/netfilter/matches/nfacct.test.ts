import { extensionContract } from "../contract.js";

extensionContract("nfacct", {
  canonical: [
    "-m conntrack --ctstate INVALID -m nfacct --nfacct-name ct_state_invalid_dropped_pkts -j DROP",
    "-m nfacct --nfacct-name exists",
  ],
  invalid: [["-m nfacct", "required"]],
  evaluate: [
    ["-m nfacct --nfacct-name exists", {}, "match"],
    ["-m nfacct --nfacct-name gone", {}, "no-match"],
  ],
});
