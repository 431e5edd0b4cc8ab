import { extensionContract } from "../contract.js";

extensionContract("sctp", {
  canonical: [
    "-p sctp -m sctp --dport 1:2 -j DROP",
    "-p sctp -m sctp ! --sport 7 --chunk-types any DATA,INIT",
  ],
  normalizes: [["-p sctp --dport 5000", "-p sctp -m sctp --dport 5000"]],
  invalid: [
    ["-m sctp --dport 1", "SCTP match requires '-p sctp'"],
    ["-p sctp --chunk-types some DATA", "bad match type"],
    ["-p sctp --chunk-types any DATA:B", "chunk flags"],
    ["-p sctp --dport 5:3", "invalid portrange (min > max)"],
  ],
  evaluate: [
    ["-p sctp -m sctp --dport 80", { protocol: "sctp" }, "match"],
    [
      "-p sctp -m sctp --chunk-types only INIT",
      { protocol: "sctp", ctState: ["ESTABLISHED"] },
      "no-match",
    ],
  ],
});
