import { describe, expect } from "@jest/globals";
import { it, test } from "@fast-check/jest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { formatIP, parseIP } from "../../../src/net/index.js";
import {
  IPVS_FLAG_PERSISTENT,
  IpvsParseError,
  formatIpvsadmList,
  formatIpvsadmSave,
  parseIpvsadmList,
  parseIpvsadmSave,
  sortIpvsTable,
  type IpvsTable,
} from "../../../src/netfilter/ipvs/index.js";
import { ipvsTable } from "./arbitraries.js";
import { ACCEPTANCE_DIR } from "../../helpers/shared.js";

const ACCEPTANCE = join(ACCEPTANCE_DIR, "ipvs");

const ip = (s: string) => {
  const a = parseIP(s);
  if (a === undefined) throw new Error(s);
  return a;
};

/** The table as plain strings, order-free, for comparing. */
function summary(t: IpvsTable): string[] {
  return sortIpvsTable(t).services.map(
    (s) =>
      `${s.virtualServer.protocol} ${formatIP(s.virtualServer.address)}:${s.virtualServer.port} ` +
      `${s.virtualServer.scheduler} f${s.virtualServer.flags} t${s.virtualServer.timeout} m${s.virtualServer.netmask} -> ` +
      s.realServers
        .map((r) => `${formatIP(r.address)}:${r.port}/${r.weight}/${r.forward}`)
        .join(","),
  );
}

// shared/spec/ipvs-proxier.md §8.2
const SPEC_SAVE = `-A -t 10.20.30.41:80 -s rr
-a -t 10.20.30.41:80 -r 10.180.0.1:80 -m -w 1
-A -u 10.96.0.10:53 -s rr
-a -u 10.96.0.10:53 -r 10.244.0.2:53 -m -w 1
-A -t 10.20.30.42:80 -s rr -p 10800
-A --sctp-service 100.101.102.103:3001 -s rr
-a --sctp-service 100.101.102.103:3001 -r 10.180.0.1:80 -m -w 1
-A -t [2020::1]:80 -s rr
-a -t [2020::1]:80 -r [1002:ab8::2:10]:80 -m -w 1
`;

// shared/spec/ipvs-proxier.md §8.1 (one service block per entry)
const SPEC_LIST_BLOCKS = [
  "TCP  10.96.0.1:443 rr\n  -> 192.168.49.2:8443            Masq    1      0          0         \n",
  "TCP  10.20.30.41:80 rr persistent 10800\n  -> 10.180.0.1:80                Masq    1      0          0         \n",
  "UDP  10.96.0.10:53 rr\n  -> 10.244.0.2:53                Masq    1      0          0         \n",
  "SCTP 10.20.30.41:80 rr\n",
  "TCP  [2020::1]:80 rr\n  -> [1002:ab8::2:10]:80          Masq    0      3          1         \n",
];
const SPEC_LIST =
  "IP Virtual Server version 1.2.1 (size=4096)\n" +
  "Prot LocalAddress:Port Scheduler Flags\n" +
  "  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn\n" +
  SPEC_LIST_BLOCKS.join("");

describe("ipvsadm-save -n", () => {
  test("reads the spec example, SCTP via --sctp-service", () => {
    const t = parseIpvsadmSave(SPEC_SAVE);
    expect(t.services).toHaveLength(5);
    const sctp = t.services.find((s) => s.virtualServer.protocol === "SCTP");
    expect(sctp?.virtualServer.port).toBe(3001);
    expect(
      sctp?.realServers.map((r) => [formatIP(r.address), r.port, r.weight, r.forward]),
    ).toEqual([["10.180.0.1", 80, 1, "masq"]]);
    const persistent = t.services.find((s) => s.virtualServer.timeout === 10800);
    expect(persistent?.virtualServer.flags).toBe(IPVS_FLAG_PERSISTENT);
    expect(persistent?.virtualServer.netmask).toBe(32);
    const v6 = t.services.find((s) => s.virtualServer.address.family === "IPv6");
    expect(v6?.virtualServer.netmask).toBe(128);
  });

  test("prints in ipvsadm order: family, protocol number, address, port", () => {
    const out = formatIpvsadmSave(parseIpvsadmSave(SPEC_SAVE));
    expect(out.split("\n").filter((l) => l.startsWith("-A"))).toEqual([
      "-A -t 10.20.30.41:80 -s rr",
      "-A -t 10.20.30.42:80 -s rr -p 10800",
      "-A -u 10.96.0.10:53 -s rr",
      "-A --sctp-service 100.101.102.103:3001 -s rr",
      "-A -t [2020::1]:80 -s rr",
    ]);
  });

  test.each(["nodeport-udp", "nodeport-sctp-multiple-node-ips"])(
    "acceptance %s expected.ipvs round-trips byte for byte",
    (name) => {
      const text = readFileSync(join(ACCEPTANCE, name, "expected.ipvs"), "utf8");
      expect(formatIpvsadmSave(parseIpvsadmSave(text))).toBe(text);
    },
  );

  test("numeric sort, not text sort: 10.96.0.10 after 10.96.0.1:443 and before 10.100.x", () => {
    const t = parseIpvsadmSave(
      "-A -t 10.100.108.207:80 -s rr\n-A -u 10.96.0.10:53 -s rr\n-A -t 10.96.0.10:9153 -s rr\n-A -t 10.96.0.10:53 -s rr\n-A -t 10.96.0.1:443 -s rr\n",
    );
    expect(
      formatIpvsadmSave(t)
        .trim()
        .split("\n")
        .map((l) => l.split(" ").slice(1, 3).join(" ")),
    ).toEqual([
      "-t 10.96.0.1:443",
      "-t 10.96.0.10:53",
      "-t 10.96.0.10:9153",
      "-t 10.100.108.207:80",
      "-u 10.96.0.10:53",
    ]);
  });

  test("bad input is an error naming the line", () => {
    expect(() => parseIpvsadmSave("-A -t 10.0.0.1:80 -s rr\n-A -x 1.2.3.4:5\n", "f.ipvs")).toThrow(
      new IpvsParseError('unknown or unsupported ipvsadm option "-x"', 2, "f.ipvs"),
    );
    expect(() => parseIpvsadmSave("-a -t 10.0.0.1:80 -r 1.2.3.4:5 -m -w 1\n")).toThrow(
      /:1: real server for a virtual server not defined before/,
    );
    expect(() => parseIpvsadmSave("-A -t 10.0.0.300:80 -s rr\n")).toThrow(
      /invalid service address/,
    );
  });

  test("-p without a value takes ipvsadm's default of 300 s; -M narrows the template", () => {
    const t = parseIpvsadmSave("-A -t 10.0.0.1:80 -s rr -p -M 255.255.255.0\n");
    expect(t.services[0]?.virtualServer).toMatchObject({ timeout: 300, netmask: 24 });
    expect(formatIpvsadmSave(t)).toBe("-A -t 10.0.0.1:80 -s rr -p 300 -M 255.255.255.0\n");
  });

  it.prop([ipvsTable(["masq", "route", "tunnel"])], { numRuns: 100 })(
    "format then parse gives the same table",
    (t) => {
      expect(summary(parseIpvsadmSave(formatIpvsadmSave(t)))).toEqual(summary(t));
    },
  );
});

describe("ipvsadm -Ln", () => {
  test("prints the spec example's blocks exactly (trailing spaces kept)", () => {
    const t = parseIpvsadmList(SPEC_LIST);
    expect(t.services).toHaveLength(5);
    const out = formatIpvsadmList(t);
    expect(out.startsWith("IP Virtual Server version 1.2.1 (size=4096)\n")).toBe(true);
    for (const block of SPEC_LIST_BLOCKS) expect(out).toContain(block);
  });

  test("reads connection counters and weight 0", () => {
    const t = parseIpvsadmList(SPEC_LIST);
    const v6 = t.services.find((s) => s.virtualServer.address.family === "IPv6");
    expect(v6?.realServers[0]).toMatchObject({
      address: ip("1002:ab8::2:10"),
      weight: 0,
      activeConn: 3,
      inactiveConn: 1,
    });
  });

  test("matches the save form of the same table", () => {
    const fromList = parseIpvsadmList(SPEC_LIST);
    expect(summary(parseIpvsadmSave(formatIpvsadmSave(fromList)))).toEqual(summary(fromList));
  });

  test("bad line names its number", () => {
    expect(() => parseIpvsadmList("TCP  10.0.0.1:80 rr\n  -> 1.2.3.4:80 Bogus 1 0 0\n")).toThrow(
      /:2: unknown forwarding method "Bogus"/,
    );
  });

  it.prop([ipvsTable(["masq", "route", "tunnel", "local"])], { numRuns: 100 })(
    "format then parse gives the same table, counters included",
    (t) => {
      const back = parseIpvsadmList(formatIpvsadmList(t));
      expect(summary(back)).toEqual(summary(t));
      const counters = (x: IpvsTable) =>
        sortIpvsTable(x).services.flatMap((s) =>
          s.realServers.map((r) => [r.activeConn, r.inactiveConn]),
        );
      expect(counters(back)).toEqual(counters(t));
    },
  );
});
