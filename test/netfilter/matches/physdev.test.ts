import { extensionContract } from "../contract.js";

extensionContract("physdev", {
  canonical: [
    "-m physdev --physdev-in eth0",
    "-m physdev ! --physdev-is-in ! --physdev-is-bridged",
  ],
  invalid: [
    ["-m physdev", "at least one option"],
    ["-m physdev --physdev-in abcdefghijklmnopq", "invalid interface"],
  ],
  evaluate: [
    ["-m physdev --physdev-is-bridged", {}, "no-match"],
    ["-m physdev ! --physdev-is-bridged", {}, "match"],
  ],
});
