import { describe, expect, test } from "@jest/globals";
import { hostportChainName, portmapDnatChainName } from "../../src/hostports/index.js";

describe("KUBE-HP chain names (spec A.3, verified upstream names)", () => {
  test.each([
    ["id", 8080, "TCP", "", "KUBE-HP-IJHALPHTORMHHPPK"],
    ["id", 8081, "UDP", "", "KUBE-HP-63UPIDJXVRSZGSUZ"],
    ["id", 8083, "SCTP", "", "KUBE-HP-XU6AWMMJYOZOFTFZ"],
    ["id", 8443, "TCP", "", "KUBE-HP-WFBOALXEP42XEMJK"],
    ["id", 8888, "TCP", "127.0.0.1", "KUBE-HP-TUKTZ736U5JD5UTK"],
    ["id", 8888, "TCP", "127.0.0.2", "KUBE-HP-CAAJ45HDITK7ARGM"],
    ["id", 9999, "TCP", "", "KUBE-HP-WFUNFVXVDLD5ZVXN"],
    ["id", 9999, "UDP", "", "KUBE-HP-4MFWH2F2NAOMYD6A"],
  ] as const)("(%s, %d, %s, %j) → %s", (id, port, proto, hostIP, expected) => {
    expect(hostportChainName(id, port, proto, hostIP)).toBe(expected);
  });

  test("names are 24 characters and differ by port (upstream TestGetHostportChain)", () => {
    const names = new Set(
      [57119, 55429, 56833].map((p) => hostportChainName("testrdma-2", p, "TCP")),
    );
    expect(names.size).toBe(3);
    for (const n of names) expect(n).toMatch(/^KUBE-HP-[A-Z2-7]{16}$/);
  });
});

describe("CNI-DN chain names (spec B.2)", () => {
  const cid =
    "icee6giejonei6sohng6ahngee7laquohquee9shiGo7fohferakah3Feiyoolu2pei7ciPhoh7shaoX6vai3vuf0ahfaeng8yohb9ceu0daez5hashee8ooYai5wa3y";
  test("network test + upstream container id", () => {
    expect(portmapDnatChainName("test", cid)).toBe("CNI-DN-67e92b96e692a494b6b85");
  });
  test("network testNetName + upstream container id", () => {
    expect(portmapDnatChainName("testNetName", cid)).toBe("CNI-DN-bfd599665540dd91d5d28");
  });
});
