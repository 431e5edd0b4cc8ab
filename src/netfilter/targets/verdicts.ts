/** The standard verdicts: `-j ACCEPT`, `-j DROP`, `-j RETURN` (no options). */
import { ACCEPTED, DROPPED, RETURNED, type TargetExtension } from "./extension.js";

export const acceptTarget: TargetExtension<{ readonly kind: "ACCEPT" }> = {
  name: "ACCEPT",
  kind: "ACCEPT",
  options: {},
  build: () => ({ kind: "ACCEPT" }),
  format: () => "",
  touches: () => 0,
  apply: () => ACCEPTED,
};

export const dropTarget: TargetExtension<{ readonly kind: "DROP" }> = {
  name: "DROP",
  kind: "DROP",
  options: {},
  // iptables-nft 1.8.9 refuses it there (checked on the kernel), for IPv4 and IPv6 alike.
  refusedIn: {
    nat: 'The "nat" table is not intended for filtering, the use of DROP is therefore inhibited.',
  },
  build: () => ({ kind: "DROP" }),
  format: () => "",
  touches: () => 0,
  apply: () => DROPPED,
};

export const returnTarget: TargetExtension<{ readonly kind: "RETURN" }> = {
  name: "RETURN",
  kind: "RETURN",
  options: {},
  build: () => ({ kind: "RETURN" }),
  format: () => "",
  touches: () => 0,
  apply: () => RETURNED,
};
