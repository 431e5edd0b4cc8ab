import { describe, expect, test } from "@jest/globals";
import { interfaceMatches, ruleMatchesStandard } from "../../../src/netfilter/index.js";
import { packet, parseRule } from "../contract.js";

describe("standard options", () => {
  test.each([
    ["-p tcp", {}, true],
    ["! -p tcp", {}, false],
    ["-p udp", {}, false],
    ["-p all", { protocol: "sctp" as const }, true],
    ["-s 10.0.0.0/8", {}, true],
    ["! -s 10.0.0.0/8", {}, false],
    ["-d 172.30.0.41", {}, true],
    ["-d 172.30.0.42", {}, false],
    ["-i eth+", {}, true],
    ["-i eth1", {}, false],
    ["! -i lo", {}, true],
    ["-o eth0", {}, false],
    ["-f", { fragment: true }, true],
    ["! -f", { fragment: true }, false],
  ])("%s", (body, over, want) => {
    expect(ruleMatchesStandard(parseRule(body), packet("IPv4", over))).toBe(want);
  });
  test("a rule of the other family never matches", () => {
    expect(ruleMatchesStandard(parseRule("! -s fd00::/8", "IPv6"), packet("IPv4"))).toBe(false);
  });
  test("interface wildcards", () => {
    expect(interfaceMatches("veth+", "veth123")).toBe(true);
    expect(interfaceMatches("+", "")).toBe(true);
    expect(interfaceMatches("eth0", "eth0.1")).toBe(false);
  });
});
