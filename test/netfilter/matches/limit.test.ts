import { extensionContract } from "../contract.js";

extensionContract("limit", {
  canonical: [
    "-m limit --limit 5/min -j LOG",
    "-m limit --limit 3/hour --limit-burst 10",
    "-m limit --limit 100/sec",
  ],
  normalizes: [
    ["-m limit", "-m limit --limit 3/hour"],
    ["-m limit --limit 5/minute --limit-burst 5", "-m limit --limit 5/min"],
    // nf_tables' default burst (checked with iptables-nft 1.8.9 on the kernel).
    ["-m limit --limit 1/second --limit-burst 0", "-m limit --limit 1/sec"],
  ],
  invalid: [
    ["-m limit --limit 0/sec", "bad rate"],
    ["-m limit --limit 5/fortnight", "bad rate"],
    ["-m limit --limit-burst 10001", "invalid value"],
  ],
  evaluate: [["-m limit --limit 1/sec", {}, "match"]],
});
