/** `addr:port` / `[v6]:port` as ipvsadm prints and reads it (numeric form only). */
import { formatIP, parseIP, parsePortNumber, type IPAddress } from "../../net/index.js";

export function formatAddrPort(address: IPAddress, port: number): string {
  const ip = formatIP(address);
  return address.family === "IPv6" ? `[${ip}]:${port}` : `${ip}:${port}`;
}

export function parseAddrPort(s: string): { address: IPAddress; port: number } | undefined {
  let host: string;
  let portText: string;
  if (s.startsWith("[")) {
    const close = s.indexOf("]:");
    if (close === -1) return undefined;
    host = s.slice(1, close);
    portText = s.slice(close + 2);
    if (!host.includes(":")) return undefined;
  } else {
    const colon = s.lastIndexOf(":");
    if (colon === -1) return undefined;
    host = s.slice(0, colon);
    portText = s.slice(colon + 1);
    if (host.includes(":")) return undefined;
  }
  const address = parseIP(host, "strict");
  const port = parsePortNumber(portText);
  if (address === undefined || port === undefined) return undefined;
  return { address, port };
}
