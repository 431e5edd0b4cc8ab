import { extensionContract } from "../contract.js";

extensionContract("LOG/NFLOG/NOTRACK/CT", {
  table: "raw",
  canonical: [
    '-j LOG --log-prefix "a b" --log-level 6',
    "-j LOG --log-uid",
    "-j NFLOG --nflog-prefix x --nflog-group 3",
    "-j NOTRACK",
    "-j CT --notrack",
    "-j CT --zone 3",
  ],
  normalizes: [
    ["-j LOG --log-level warning", "-j LOG"],
    ["-j LOG --log-level info", "-j LOG --log-level 6"],
    // A libxtables number, or a name as written (checked on the kernel).
    ["-j LOG --log-level 0x6", "-j LOG --log-level 6"],
    ["-j LOG --log-level panic", "-j LOG --log-level 0"],
    // Longer prefixes are cut as iptables-nft 1.8.9 saves them (probed on the kernel).
    [`-j LOG --log-prefix ${"p".repeat(30)}`, `-j LOG --log-prefix ${"p".repeat(29)}`],
    [`-j NFLOG --nflog-prefix ${"p".repeat(200)}`, `-j NFLOG --nflog-prefix ${"p".repeat(127)}`],
  ],
  invalid: [
    ["-j LOG --log-level loud", "unknown"],
    ["-j LOG --log-level WARNING", 'log level "WARNING" unknown'],
    ["-j LOG --log-level warn", 'log level "warn" unknown'],
    ["-j LOG --log-level 010", 'log level "010" unknown'],
    ["-j CT --notrack --zone 1", "cannot be combined"],
  ],
});
