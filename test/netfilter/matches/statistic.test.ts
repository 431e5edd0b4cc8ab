import { extensionContract } from "../contract.js";

extensionContract("statistic", {
  canonical: [
    "-m statistic --mode random --probability 0.33333333349 -j X",
    "-m statistic --mode random ! --probability 0.50000000000",
    "-m statistic --mode nth --every 3 --packet 1",
    "-m statistic --mode nth ! --every 2 --packet 0",
  ],
  normalizes: [
    [
      "-m statistic --mode random --probability 0.3333333333",
      "-m statistic --mode random --probability 0.33333333349",
    ],
    [
      "-m statistic --mode random --probability 0.000244140625",
      "-m statistic --mode random --probability 0.00024414062",
    ],
  ],
  invalid: [
    ["-m statistic --mode random --probability 1.5", "between 0 and 1"],
    ["-m statistic --mode nth --every 2 --packet 2", "--packet"],
    ["-m statistic --mode dice", "bad mode"],
    ["-m statistic --mode nth --every 2", 'also requires "--packet"'],
    ["-m statistic --probability 0.5", "no --mode"],
  ],
  evaluate: [
    ["-m statistic --mode random --probability 0.5", {}, 0.5],
    ["-m statistic --mode random --probability 0.3333333333", {}, 715827883 / 2147483648],
    ["-m statistic --mode random --probability 1", {}, "match"],
    ["-m statistic --mode random --probability 0", {}, "no-match"],
    ["-m statistic --mode nth --every 4 --packet 0", {}, 0.25],
  ],
});
