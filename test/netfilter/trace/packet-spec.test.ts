/**
 * parsePacketSpec reads canonical dotted quads by hand and makes their address objects itself
 * (packet-spec.ts `packetIPv4`): the addresses must be those `parseIP` gives, and print back
 * as the text given.
 */
import { describe, expect } from "@jest/globals";
import { fc, it } from "@fast-check/jest";
import { formatIP, parseIP } from "../../../src/net/index.js";
import { parsePacketSpec } from "../../../src/netfilter/trace/packet-spec.js";

describe("parsePacketSpec", () => {
  it.prop([fc.ipV4(), fc.ipV4(), fc.nat({ max: 65535 }), fc.nat({ max: 65535 })], {
    numRuns: 200,
  })("a canonical IPv4 address is parseIP's", (src, dst, sport, dport) => {
    const { packet, printed } = parsePacketSpec({ proto: "tcp", src, sport, dst, dport });
    expect(packet.src).toStrictEqual(parseIP(src, "lenient"));
    expect(packet.dst).toStrictEqual(parseIP(dst, "lenient"));
    expect(printed.src).toBe(formatIP(packet.src));
    expect(printed.dst).toBe(formatIP(packet.dst));
  });
});
