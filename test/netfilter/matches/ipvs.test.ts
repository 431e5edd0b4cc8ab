import { extensionContract } from "../contract.js";

extensionContract("ipvs", {
  canonical: [
    "-m ipvs --ipvs --vaddr 10.96.0.1 --vport 80 --vdir ORIGINAL",
    "-m ipvs ! --ipvs",
    "-m ipvs --vproto 6 ! --vaddr 10.0.0.0/8",
  ],
  invalid: [
    ["-m ipvs", "at least one"],
    ["-m ipvs --vdir SIDEWAYS", "bad value"],
  ],
  evaluate: [
    ["-m ipvs --ipvs", {}, "no-match"],
    ["-m ipvs ! --ipvs", {}, "match"],
    ["-m ipvs --vport 80", {}, "no-match"],
  ],
});
