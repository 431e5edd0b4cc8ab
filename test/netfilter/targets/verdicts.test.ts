import { extensionContract } from "../contract.js";

extensionContract("ACCEPT/DROP/RETURN and jumps", {
  canonical: ["-j ACCEPT", "-j DROP", "-j RETURN", "-j X", "-g X", ""],
  invalid: [
    ["-j ACCEPT --foo", 'unknown option "--foo"'],
    ["-j NOPE", 'chain "NOPE" does not exist'],
    ["-j ACCEPT -j DROP", "multiple -j"],
    ["! -j ACCEPT", "cannot be used"],
  ],
});
