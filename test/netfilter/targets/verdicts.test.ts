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

// iptables-nft 1.8.9 refuses DROP in the nat table (its message, from iptables-restore on the kernel).
extensionContract("DROP in the nat table", {
  table: "nat",
  canonical: ["-j ACCEPT", "-j RETURN"],
  invalid: [["-j DROP", 'The "nat" table is not intended for filtering']],
});
