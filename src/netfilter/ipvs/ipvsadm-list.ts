/**
 * `ipvsadm -Ln`: a version header, two title lines, then each virtual server followed by its
 * real servers, in ipvsadm's sort order. Widths follow ipvsadm's printf formats: the service
 * column is `%-4s %s` (protocol, address:port; IPv4 cut at 33 chars), real servers are
 * `  -> %-28s %-7s %-6d %-10u %-10u` (IPv4 address cut at 28), trailing spaces kept.
 */
import { assertNever } from "../../util/assert-never.js";
import { formatIP } from "../../net/index.js";
import { formatAddrPort, parseAddrPort } from "./address-port.js";
import {
  IPVS_FLAG_ONEPACKET,
  IPVS_FLAG_PERSISTENT,
  hostNetmask,
  makeRealServer,
  schedulerFlagNames,
  schedulerFlagsFromNames,
  sortIpvsTable,
  type ForwardMethod,
  type IpvsProtocol,
  type IpvsTable,
  type RealServer,
  type VirtualServer,
} from "./model.js";
import { IpvsParseError } from "./parse-error.js";

export const IPVSADM_LIST_HEADER =
  "IP Virtual Server version 1.2.1 (size=4096)\n" +
  "Prot LocalAddress:Port Scheduler Flags\n" +
  "  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn\n";

function forwardName(f: ForwardMethod): string {
  switch (f) {
    case "masq":
      return "Masq";
    case "local":
      return "Local";
    case "tunnel":
      return "Tunnel";
    case "route":
      return "Route";
    default:
      return assertNever(f);
  }
}

const FORWARD_BY_NAME: Readonly<Record<string, ForwardMethod>> = {
  Masq: "masq",
  Local: "local",
  Tunnel: "tunnel",
  Route: "route",
};

function serviceLine(vs: VirtualServer): string {
  let name = `${vs.protocol.padEnd(4)} ${formatAddrPort(vs.address, vs.port)}`;
  if (vs.address.family === "IPv4") name = name.slice(0, 33);
  let line = `${name} ${vs.scheduler}`;
  const sched = schedulerFlagNames(vs.scheduler, vs.flags);
  if (sched.length > 0) line += ` (${sched.join(",")})`;
  if ((vs.flags & IPVS_FLAG_PERSISTENT) !== 0) {
    line += ` persistent ${vs.timeout}`;
    if (vs.netmask !== hostNetmask(vs.address)) {
      line +=
        vs.address.family === "IPv6"
          ? ` mask ${vs.netmask}`
          : ` mask ${formatIP({ family: "IPv4", value: vs.netmask === 0 ? 0 : (0xffffffff << (32 - vs.netmask)) >>> 0 })}`;
    }
  }
  if ((vs.flags & IPVS_FLAG_ONEPACKET) !== 0) line += " ops";
  return line;
}

function realServerLine(vs: VirtualServer, rs: RealServer): string {
  let name = formatAddrPort(rs.address, rs.port);
  if (vs.address.family === "IPv4") name = name.slice(0, 28);
  return (
    `  -> ${name.padEnd(28)} ${forwardName(rs.forward).padEnd(7)} ${String(rs.weight).padEnd(6)} ` +
    `${String(rs.activeConn).padEnd(10)} ${String(rs.inactiveConn).padEnd(10)}`
  );
}

export function formatIpvsadmList(table: IpvsTable): string {
  let out = IPVSADM_LIST_HEADER;
  for (const svc of sortIpvsTable(table).services) {
    out += `${serviceLine(svc.virtualServer)}\n`;
    for (const rs of svc.realServers) out += `${realServerLine(svc.virtualServer, rs)}\n`;
  }
  return out;
}

const SERVICE_LINE = /^(TCP|UDP|SCTP)\s+(\S+)\s+(\S+)(.*)$/;
const REAL_SERVER_LINE = /^->\s+(\S+)\s+(\S+)\s+([0-9]+)\s+([0-9]+)\s+([0-9]+)$/;

function parseNetmaskWord(word: string, family: "IPv4" | "IPv6"): number | undefined {
  if (family === "IPv6") return /^[0-9]{1,3}$/.test(word) ? Number(word) : undefined;
  const parts = word.split(".").map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255))
    return undefined;
  let prefix = 0;
  for (const p of parts) {
    for (let bit = 7; bit >= 0; bit--) {
      if (((p >> bit) & 1) === 0) return prefix;
      prefix++;
    }
  }
  return prefix;
}

/** Reads `ipvsadm -Ln` output (header lines optional). Connection counters are kept. */
export function parseIpvsadmList(text: string, file?: string): IpvsTable {
  const services: { virtualServer: VirtualServer; realServers: RealServer[] }[] = [];
  text.split("\n").forEach((raw, i) => {
    const lineNo = i + 1;
    const line = raw.trim();
    const fail = (msg: string): never => {
      throw new IpvsParseError(msg, lineNo, file);
    };
    if (
      line === "" ||
      line.startsWith("IP Virtual Server version") ||
      line.startsWith("Prot LocalAddress") ||
      line.startsWith("-> RemoteAddress")
    )
      return;
    if (line.startsWith("->")) {
      const m = REAL_SERVER_LINE.exec(line) ?? fail(`cannot read real server line "${line}"`);
      const current = services[services.length - 1] ?? fail("real server before any service");
      const ap = parseAddrPort(m[1]!) ?? fail(`invalid real server address "${m[1]}"`);
      const forward = FORWARD_BY_NAME[m[2]!] ?? fail(`unknown forwarding method "${m[2]}"`);
      current.realServers.push(
        makeRealServer({
          ...ap,
          forward,
          weight: Number(m[3]),
          activeConn: Number(m[4]),
          inactiveConn: Number(m[5]),
        }),
      );
      return;
    }
    const m = SERVICE_LINE.exec(line) ?? fail(`cannot read service line "${line}"`);
    const protocol = m[1] as IpvsProtocol;
    const ap = parseAddrPort(m[2]!) ?? fail(`invalid service address "${m[2]}"`);
    let flags = 0;
    let timeout = 0;
    let netmask = hostNetmask(ap.address);
    const rest = m[4]!.trim() === "" ? [] : m[4]!.trim().split(/\s+/);
    for (let w = 0; w < rest.length; w++) {
      const word = rest[w]!;
      if (word.startsWith("(") && word.endsWith(")")) {
        flags |=
          schedulerFlagsFromNames(word.slice(1, -1).split(",")) ??
          fail(`unknown scheduler flags "${word}"`);
      } else if (word === "persistent") {
        flags |= IPVS_FLAG_PERSISTENT;
        const t = rest[++w];
        if (t === undefined || !/^[0-9]+$/.test(t)) fail("persistent needs a timeout");
        timeout = Number(t);
      } else if (word === "mask") {
        const t = rest[++w] ?? fail("mask needs a value");
        netmask = parseNetmaskWord(t, ap.address.family) ?? fail(`invalid mask "${t}"`);
      } else if (word === "ops") {
        flags |= IPVS_FLAG_ONEPACKET;
      } else {
        fail(`unknown service flag "${word}"`);
      }
    }
    services.push({
      virtualServer: { ...ap, protocol, scheduler: m[3]!, flags, timeout, netmask },
      realServers: [],
    });
  });
  return { services };
}
