import { extensionContract } from "../contract.js";

extensionContract("state", {
  canonical: ["-m state --state NEW", "-m state ! --state RELATED,ESTABLISHED"],
  invalid: [
    ["-m state --state DNAT", "bad value"],
    ["-m state", "required"],
  ],
  evaluate: [
    ["-m state --state NEW", {}, "match"],
    ["-m state --state ESTABLISHED", {}, "no-match"],
  ],
});
