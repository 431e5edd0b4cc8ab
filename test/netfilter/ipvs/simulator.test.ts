import { describe, expect } from "@jest/globals";
import { fc, it, test } from "@fast-check/jest";
import { parseIP } from "../../../src/net/index.js";
import {
  indexIpvsTable,
  ipvsSchedule,
  parseIpvsadmSave,
  persistenceTemplates,
} from "../../../src/netfilter/ipvs/index.js";
import { ipvsTable } from "./arbitraries.js";

const ip = (s: string) => {
  const a = parseIP(s);
  if (a === undefined) throw new Error(s);
  return a;
};

const TABLE = parseIpvsadmSave(`-A -t 10.96.0.1:80 -s rr
-a -t 10.96.0.1:80 -r 10.0.0.1:8080 -m -w 1
-a -t 10.96.0.1:80 -r 10.0.0.2:8080 -m -w 3
-a -t 10.96.0.1:80 -r 10.0.0.3:8080 -m -w 0
-A --sctp-service 10.96.0.1:80 -s rr
-A -u 10.96.0.2:53 -s rr -p 10800
-a -u 10.96.0.2:53 -r 10.0.0.1:53 -m -w 1
-a -u 10.96.0.2:53 -r 10.0.0.2:53 -m -w 1
-A -t 10.96.0.4:80 -s rr
-a -t 10.96.0.4:80 -r 10.0.0.9:80 -m -w 0
`);
const index = indexIpvsTable(TABLE);
const pkt = (protocol: string, dst: string, dport: number, src = "10.1.1.1") => ({
  protocol,
  src: ip(src),
  dst: ip(dst),
  dport,
});

describe("IPVS scheduling", () => {
  test("weight-proportional choices; weight 0 never chosen", () => {
    const d = ipvsSchedule(index, pkt("tcp", "10.96.0.1", 80));
    expect(d.kind).toBe("schedule");
    if (d.kind !== "schedule") return;
    expect(d.choices.map((c) => [c.realServer.address, c.probability])).toEqual([
      [ip("10.0.0.1"), 0.25],
      [ip("10.0.0.2"), 0.75],
    ]);
  });

  test("protocol is part of the identity: the SCTP VS on the same address has no RS", () => {
    expect(ipvsSchedule(index, pkt("sctp", "10.96.0.1", 80)).kind).toBe("no-destination");
    expect(ipvsSchedule(index, pkt("udp", "10.96.0.1", 80)).kind).toBe("no-service");
    expect(ipvsSchedule(index, pkt("icmp", "10.96.0.1", 0)).kind).toBe("no-service");
  });

  test("only weight-0 real servers: no destination (port unreachable)", () => {
    expect(ipvsSchedule(index, pkt("tcp", "10.96.0.4", 80)).kind).toBe("no-destination");
  });

  test("persistence template pins the client; other clients are scheduled afresh", () => {
    const svc = TABLE.services.find((s) => s.virtualServer.port === 53)!;
    const templates = persistenceTemplates([
      { virtualServer: svc.virtualServer, client: ip("10.1.1.1"), realServer: svc.realServers[1]! },
    ]);
    const pinned = ipvsSchedule(index, pkt("udp", "10.96.0.2", 53), templates);
    expect(pinned).toMatchObject({ kind: "schedule", byPersistence: true });
    if (pinned.kind === "schedule")
      expect(pinned.choices[0]?.realServer.address).toEqual(ip("10.0.0.2"));
    const other = ipvsSchedule(index, pkt("udp", "10.96.0.2", 53, "10.1.1.2"), templates);
    expect(other).toMatchObject({ kind: "schedule", byPersistence: false });
    if (other.kind === "schedule") expect(other.choices).toHaveLength(2);
  });

  test("a template pointing at a drained (weight 0) server is ignored", () => {
    const svc = TABLE.services.find((s) => s.virtualServer.port === 53)!;
    const templates = persistenceTemplates([
      {
        virtualServer: svc.virtualServer,
        client: ip("10.1.1.1"),
        realServer: { ...svc.realServers[0]!, weight: 0 },
      },
    ]);
    expect(ipvsSchedule(index, pkt("udp", "10.96.0.2", 53), templates)).toMatchObject({
      byPersistence: false,
    });
  });

  it.prop([ipvsTable(["masq"]), fc.nat(20)], { numRuns: 100 })(
    "probabilities sum to 1 over exactly the real servers with weight > 0",
    (t, pick) => {
      const idx = indexIpvsTable(t);
      const svc = t.services[pick % Math.max(1, t.services.length)];
      if (svc === undefined) return;
      const vs = svc.virtualServer;
      const d = ipvsSchedule(idx, {
        protocol: vs.protocol,
        src: ip("1.1.1.1"),
        dst: vs.address,
        dport: vs.port,
      });
      const live = svc.realServers.filter((r) => r.weight > 0);
      if (live.length === 0) expect(d.kind).toBe("no-destination");
      else {
        expect(d.kind).toBe("schedule");
        if (d.kind !== "schedule") return;
        expect(d.choices).toHaveLength(live.length);
        expect(d.choices.reduce((s, c) => s + c.probability, 0)).toBeCloseTo(1, 9);
      }
    },
  );
});
