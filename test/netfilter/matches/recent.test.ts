import { extensionContract } from "../contract.js";

extensionContract("recent", {
  canonical: [
    "-m recent --rcheck --seconds 10800 --reap --name foo --mask 255.255.255.255 --rsource -j ACCEPT",
    "-m recent --set --name foo --mask 255.255.255.255 --rsource",
    "-m recent ! --update --seconds 5 --hitcount 3 --name DEFAULT --mask 255.255.0.0 --rdest",
  ],
  normalizes: [
    ["-m recent --name foo --set", "-m recent --set --name foo --mask 255.255.255.255 --rsource"],
    // Both sides: the later one counts (as iptables-nft 1.8.9 saves it).
    [
      "-m recent --set --rsource --rdest",
      "-m recent --set --name DEFAULT --mask 255.255.255.255 --rdest",
    ],
    [
      "-m recent --set --rdest --rsource",
      "-m recent --set --name DEFAULT --mask 255.255.255.255 --rsource",
    ],
  ],
  invalid: [
    ["-m recent --name x", "you must specify one of"],
    ["-m recent --set --seconds 5", "can only be used with"],
    ["-m recent --rcheck --reap", "requires"],
  ],
  evaluate: [
    ["-m recent --set --name x", {}, "match"],
    ["-m recent --rcheck --name seen", {}, "match"],
    ["-m recent --rcheck --name other", {}, "no-match"],
    ["-m recent ! --rcheck --name other", {}, "match"],
  ],
});
extensionContract("recent (IPv6)", {
  family: "IPv6",
  canonical: [
    "-m recent --set --name foo --mask ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff --rsource",
  ],
  invalid: [["-m recent --set --mask 255.0.0.0", "invalid address"]],
});
