import { extensionContract } from "../contract.js";

extensionContract("comment", {
  canonical: [
    '-m comment --comment x -m comment --comment "a\\"b c" -m comment --comment ""',
    '-d 10.96.0.1/32 -p tcp -m comment --comment "default/kubernetes:https cluster IP" -m tcp --dport 443 -j X',
  ],
  normalizes: [['-m comment --comment "it\'s"', '-m comment --comment "it\\\'s"']],
  invalid: [
    ["-m comment", '"--comment" is required'],
    [`-m comment --comment ${"a".repeat(256)}`, "comment too long"],
  ],
  evaluate: [["-m comment --comment x", {}, "match"]],
});
