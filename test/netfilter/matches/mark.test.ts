import { extensionContract } from "../contract.js";

extensionContract("mark", {
  canonical: ["-m mark --mark 0x4000/0x4000 -j ACCEPT", "-m mark ! --mark 0x1"],
  normalizes: [
    ["-m mark --mark 16384/0x4000", "-m mark --mark 0x4000/0x4000"],
    ["-m mark --mark 0x1/0xffffffff", "-m mark --mark 0x1"],
  ],
  invalid: [
    ["-m mark --mark 0x100000000", "invalid value"],
    ["-m mark --mark x", "invalid value"],
  ],
  evaluate: [
    ["-m mark --mark 0x4000/0x4000", { mark: 0x4001 }, "match"],
    ["-m mark ! --mark 0x4000/0x4000", { mark: 0x4000 }, "no-match"],
  ],
});
