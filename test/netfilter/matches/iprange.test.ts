import { extensionContract } from "../contract.js";

extensionContract("iprange", {
  canonical: [
    "-m iprange --src-range 1.2.3.4-1.2.3.9",
    "-m iprange ! --dst-range 10.0.0.1-10.0.0.1",
  ],
  invalid: [
    ["-m iprange", "at least one"],
    ["-m iprange --src-range 1.2.3.4-fd00::1", "invalid address"],
  ],
  evaluate: [
    ["-m iprange --src-range 10.0.0.1-10.0.0.3", {}, "match"],
    ["-m iprange ! --src-range 10.0.0.1-10.0.0.3", {}, "no-match"],
  ],
});
