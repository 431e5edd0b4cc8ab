import { extensionContract } from "../contract.js";

extensionContract("MARK/CONNMARK", {
  canonical: [
    "-j MARK --set-xmark 0x4000/0x4000",
    "-j MARK --set-xmark 0x4000/0x0",
    "-j CONNMARK --save-mark --nfmask 0xffffffff --ctmask 0xffffffff",
    "-j CONNMARK --set-xmark 0x1/0xff",
    "-j CONNMARK --restore-mark --nfmask 0xff --ctmask 0xff",
  ],
  normalizes: [
    ["-j MARK --or-mark 0x4000", "-j MARK --set-xmark 0x4000/0x4000"],
    ["-j MARK --xor-mark 0x4000", "-j MARK --set-xmark 0x4000/0x0"],
    ["-j MARK --and-mark 0xff", "-j MARK --set-xmark 0x0/0xffffff00"],
    ["-j MARK --set-mark 0x1/0x2", "-j MARK --set-xmark 0x1/0x3"],
    [
      "-j CONNMARK --restore-mark --mask 0xff",
      "-j CONNMARK --restore-mark --nfmask 0xff --ctmask 0xff",
    ],
  ],
  invalid: [
    ["-j MARK", "exactly one"],
    ["-j MARK --or-mark 1 --xor-mark 2", "exactly one"],
    ["-j CONNMARK --set-mark 1 --nfmask 2", "only valid with"],
  ],
});
