import { extensionContract } from "../contract.js";

extensionContract("connmark", {
  canonical: ["-m connmark --mark 0x1/0xff", "-m connmark ! --mark 0x0"],
  invalid: [["-m connmark", "required"]],
  evaluate: [
    ["-m connmark --mark 0x1/0xff", { connmark: 0x301 }, "match"],
    ["-m connmark --mark 0x1", { connmark: 0x301 }, "no-match"],
  ],
});
