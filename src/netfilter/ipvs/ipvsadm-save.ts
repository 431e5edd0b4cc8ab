/**
 * `ipvsadm-save -n` (= `ipvsadm -S -n`): one `-A` line per virtual server, then one `-a` line
 * per real server, both in ipvsadm's sort order. SCTP services are spelled `--sctp-service`,
 * the only spelling ipvsadm accepts for them (ipvsadm ≥1.27 prints it; older ones printed every
 * non-TCP service as `-u`, which is why we never emit that).
 */
import { formatIP, type IPAddress } from "../../net/index.js";
import { assertNever } from "../../util/assert-never.js";
import { formatAddrPort, parseAddrPort } from "./address-port.js";
import {
  IPVS_FLAG_ONEPACKET,
  IPVS_FLAG_PERSISTENT,
  hostNetmask,
  makeRealServer,
  schedulerFlagNames,
  schedulerFlagsFromNames,
  sortIpvsTable,
  virtualServerKey,
  type ForwardMethod,
  type IpvsProtocol,
  type IpvsService,
  type IpvsTable,
  type RealServer,
  type VirtualServer,
} from "./model.js";
import { IpvsParseError } from "./parse-error.js";

function protocolSwitch(p: IpvsProtocol): string {
  switch (p) {
    case "TCP":
      return "-t";
    case "UDP":
      return "-u";
    case "SCTP":
      return "--sctp-service";
    default:
      return assertNever(p);
  }
}

function forwardSwitch(f: ForwardMethod): string {
  switch (f) {
    case "masq":
      return "-m";
    case "tunnel":
      return "-i";
    // ipvsadm prints local-node and direct routing alike.
    case "local":
    case "route":
      return "-g";
    default:
      return assertNever(f);
  }
}

function netmaskText(address: IPAddress, prefix: number): string {
  if (address.family === "IPv6") return String(prefix);
  const m = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return formatIP({ family: "IPv4", value: m });
}

function serviceSpec(vs: VirtualServer): string {
  return `${protocolSwitch(vs.protocol)} ${formatAddrPort(vs.address, vs.port)}`;
}

export function formatVirtualServerRule(vs: VirtualServer): string {
  let line = `-A ${serviceSpec(vs)} -s ${vs.scheduler}`;
  const sched = schedulerFlagNames(vs.scheduler, vs.flags);
  if (sched.length > 0) line += ` -b ${sched.join(",")}`;
  if ((vs.flags & IPVS_FLAG_PERSISTENT) !== 0) {
    line += ` -p ${vs.timeout}`;
    if (vs.netmask !== hostNetmask(vs.address))
      line += ` -M ${netmaskText(vs.address, vs.netmask)}`;
  }
  if ((vs.flags & IPVS_FLAG_ONEPACKET) !== 0) line += " -o";
  return line;
}

export function formatRealServerRule(vs: VirtualServer, rs: RealServer): string {
  return realServerRule(`-a ${serviceSpec(vs)} -r `, rs);
}

/** A real server's line after its service's `-a SPEC -r ` (`head`, the same for all of them). */
function realServerRule(head: string, rs: RealServer): string {
  return `${head}${formatAddrPort(rs.address, rs.port)} ${forwardSwitch(rs.forward)} -w ${rs.weight}`;
}

export function formatIpvsadmSave(table: IpvsTable): string {
  // Each service's lines joined into one flat string as it comes: a text grown line by line
  // (`out +=`) is a tree of every line's pieces, all kept until it is printed (~500 bytes of
  // heap per real server where the text has ~45; docs/ipvs-proxier.md).
  const services: string[] = [];
  const lines: string[] = [];
  for (const svc of sortIpvsTable(table).services) {
    lines.push(formatVirtualServerRule(svc.virtualServer));
    const head = `-a ${serviceSpec(svc.virtualServer)} -r `;
    for (const rs of svc.realServers) lines.push(realServerRule(head, rs));
    lines.push("");
    services.push(lines.join("\n"));
    lines.length = 0;
  }
  return services.join("");
}

// ---- parsing ----

const PROTOCOL_OPTIONS: Readonly<Record<string, IpvsProtocol>> = {
  "-t": "TCP",
  "--tcp-service": "TCP",
  "-u": "UDP",
  "--udp-service": "UDP",
  "--sctp-service": "SCTP",
};

const FORWARD_OPTIONS: Readonly<Record<string, ForwardMethod>> = {
  "-m": "masq",
  "--masquerading": "masq",
  "-g": "route",
  "--gatewaying": "route",
  "-i": "tunnel",
  "--ipip": "tunnel",
};

function parseNetmask(text: string, address: IPAddress): number | undefined {
  if (address.family === "IPv6") {
    const n = Number(text);
    return /^[0-9]{1,3}$/.test(text) && n >= 1 && n <= 128 ? n : undefined;
  }
  const parts = text.split(".").map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255))
    return undefined;
  const v = ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
  const inverted = ~v >>> 0;
  if ((inverted & (inverted + 1)) !== 0) return undefined; // not contiguous
  let prefix = 0;
  for (let bit = 31; bit >= 0 && ((v >>> bit) & 1) === 1; bit--) prefix++;
  return prefix;
}

interface PendingService {
  virtualServer: VirtualServer;
  realServers: RealServer[];
}

/** Reads `ipvsadm-save -n` text. Real servers may refer to any service defined before them. */
export function parseIpvsadmSave(text: string, file?: string): IpvsTable {
  const services = new Map<string, PendingService>();
  const lines = text.split("\n");
  lines.forEach((raw, i) => {
    const lineNo = i + 1;
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const words = line.split(/\s+/);
    const fail = (msg: string): never => {
      throw new IpvsParseError(msg, lineNo, file);
    };
    const command = words[0];
    if (command !== "-A" && command !== "-a")
      fail(`expected -A or -a at the start of the line, got "${command}"`);
    let protocol: IpvsProtocol | undefined;
    let addrPort: { address: IPAddress; port: number } | undefined;
    let scheduler = "wlc";
    let schedFlags = 0;
    let persistent = false;
    let timeout = 0;
    let netmaskWord: string | undefined;
    let onePacket = false;
    let rs: { address: IPAddress; port: number } | undefined;
    let forward: ForwardMethod = "route";
    let weight = 1;
    for (let w = 1; w < words.length; w++) {
      const opt = words[w]!;
      const next = (): string => {
        const v = words[w + 1];
        if (v === undefined) fail(`option ${opt} needs a value`);
        w++;
        return v as string;
      };
      const proto = PROTOCOL_OPTIONS[opt];
      const fwd = FORWARD_OPTIONS[opt];
      if (proto !== undefined) {
        protocol = proto;
        const v = next();
        addrPort = parseAddrPort(v) ?? fail(`invalid service address "${v}"`);
      } else if (fwd !== undefined) {
        forward = fwd;
      } else if (opt === "-s" || opt === "--scheduler") {
        scheduler = next();
      } else if (opt === "-b" || opt === "--sched-flags") {
        const v = next();
        schedFlags =
          schedulerFlagsFromNames(v.split(",")) ?? fail(`unknown scheduler flag in "${v}"`);
      } else if (opt === "-p" || opt === "--persistent") {
        persistent = true;
        const v = words[w + 1];
        if (v !== undefined && /^[0-9]+$/.test(v)) {
          timeout = Number(v);
          w++;
        } else timeout = 300; // ipvsadm's default persistence timeout
      } else if (opt === "-M" || opt === "--netmask") {
        netmaskWord = next();
      } else if (opt === "-o" || opt === "--ops") {
        onePacket = true;
      } else if (opt === "-r" || opt === "--real-server") {
        const v = next();
        rs = parseAddrPort(v) ?? fail(`invalid real server address "${v}"`);
      } else if (opt === "-w" || opt === "--weight") {
        const v = next();
        if (!/^[0-9]+$/.test(v)) fail(`invalid weight "${v}"`);
        weight = Number(v);
      } else {
        fail(`unknown or unsupported ipvsadm option "${opt}"`);
      }
    }
    if (protocol === undefined || addrPort === undefined)
      return fail("missing service (-t, -u or --sctp-service)");
    const key = virtualServerKey({ ...addrPort, protocol });
    if (command === "-A") {
      if (services.has(key))
        fail(`duplicate virtual server ${formatAddrPort(addrPort.address, addrPort.port)}`);
      let netmask = addrPort.address.family === "IPv4" ? 32 : 128;
      if (netmaskWord !== undefined)
        netmask =
          parseNetmask(netmaskWord, addrPort.address) ?? fail(`invalid netmask "${netmaskWord}"`);
      const flags =
        (persistent ? IPVS_FLAG_PERSISTENT : 0) |
        schedFlags |
        (onePacket ? IPVS_FLAG_ONEPACKET : 0);
      services.set(key, {
        virtualServer: {
          ...addrPort,
          protocol,
          scheduler,
          flags,
          timeout: persistent ? timeout : 0,
          netmask,
        },
        realServers: [],
      });
    } else {
      const svc = services.get(key) ?? fail("real server for a virtual server not defined before");
      if (rs === undefined) return fail("missing real server (-r)");
      svc.realServers.push(makeRealServer({ ...rs, forward, weight }));
    }
  });
  return { services: [...services.values()] as IpvsService[] };
}
