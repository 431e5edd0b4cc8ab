/**
 * Tiny TCP/UDP programs run inside network namespaces with `ip netns exec NS node -e`.
 *
 * The server listens on every address (IPv4 or IPv6) for the given TCP and UDP ports and
 * answers each connection or datagram with one JSON line: the address and port it was reached at
 * and the peer it saw (so a test can tell which server was reached and whether the source was
 * masqueraded). The client runs a batch of probes concurrently, each from its own source port,
 * with a bounded timeout, and prints one JSON array.
 */

export interface ServerReply {
  readonly ns: string;
  readonly local: string;
  readonly remote: string;
}

export type ProbeResult =
  | { readonly kind: "reached"; readonly reply: ServerReply }
  | { readonly kind: "refused" }
  | { readonly kind: "unreachable"; readonly code: string }
  | { readonly kind: "timeout" }
  | { readonly kind: "error"; readonly code: string };

export interface Probe {
  /** `sctp` probes run through the SCTP client (sctp-scripts.ts), never this one. */
  readonly proto: "tcp" | "udp" | "sctp";
  readonly src?: string;
  readonly sport: number;
  readonly dst: string;
  readonly dport: number;
  /** UDP: resend the datagram a few times within the timeout. */
  readonly retry?: boolean;
  /** This probe's own timeout in ms, when it must be longer than the batch's (TCP over IPv6). */
  readonly timeoutMs?: number;
}

/** argv: nsLabel, JSON list of addresses, JSON list of ports. Prints "ready" once all listen. */
export const SERVER_SCRIPT = String.raw`
const net = require("node:net");
const dgram = require("node:dgram");
const [label, addressesJson, portsJson] = process.argv.slice(1);
const addresses = JSON.parse(addressesJson);
const ports = JSON.parse(portsJson);
const hp = (a, p) => (a.includes(":") ? "[" + a + "]:" + p : a + ":" + p);
let pending = ports.length * addresses.length * 2;
const ready = () => { if (--pending === 0) process.stdout.write("ready\n"); };
// One socket per address, so a UDP server knows which address a datagram was sent to.
for (const address of addresses) for (const port of ports) {
  const t = net.createServer((s) => {
    s.on("error", () => {});
    s.end(JSON.stringify({ ns: label, local: hp(s.localAddress, s.localPort), remote: hp(s.remoteAddress, s.remotePort) }) + "\n");
  });
  t.listen({ port, host: address }, ready);
  const u = dgram.createSocket({ type: address.includes(":") ? "udp6" : "udp4" });
  u.on("message", (msg, rinfo) => {
    u.send(JSON.stringify({ ns: label, local: hp(address, port), remote: hp(rinfo.address, rinfo.port) }) + "\n", rinfo.port, rinfo.address);
  });
  u.bind({ port, address }, ready);
}
if (pending === 0) process.stdout.write("ready\n");
// Exit once the process that started us is gone (killed with SIGKILL, say): a server must
// never outlive its run.
const parent = process.ppid;
setInterval(() => { if (process.ppid !== parent) process.exit(0); }, 200);
`;

/** argv: JSON list of probes, timeout in ms. */
export const CLIENT_SCRIPT = String.raw`
const net = require("node:net");
const dgram = require("node:dgram");
const [probesJson, timeoutText] = process.argv.slice(1);
const probes = JSON.parse(probesJson);
const timeout = Number(timeoutText);
const classify = (code) =>
  code === "ECONNREFUSED" ? { kind: "refused" }
  : code === "EHOSTUNREACH" || code === "ENETUNREACH" ? { kind: "unreachable", code }
  : { kind: "error", code: String(code) };
function tcp(p) {
  return new Promise((resolve) => {
    let data = "";
    let done = false;
    const finish = (r) => { if (!done) { done = true; clearTimeout(timer); s.destroy(); resolve(r); } };
    const s = net.connect({ host: p.dst, port: p.dport, localPort: p.sport, ...(p.src ? { localAddress: p.src } : {}) });
    const timer = setTimeout(() => finish({ kind: "timeout" }), p.timeoutMs ?? timeout);
    s.on("data", (d) => { data += d; if (data.includes("\n")) finish({ kind: "reached", reply: JSON.parse(data) }); });
    s.on("error", (e) => finish(classify(e.code)));
    s.on("end", () => finish(data ? { kind: "reached", reply: JSON.parse(data) } : { kind: "error", code: "EOF" }));
  });
}
function udp(p) {
  return new Promise((resolve) => {
    let done = false;
    const u = dgram.createSocket({ type: p.dst.includes(":") ? "udp6" : "udp4" });
    let again;
    const finish = (r) => { if (!done) { done = true; clearTimeout(timer); clearInterval(again); try { u.close(); } catch {} resolve(r); } };
    const timer = setTimeout(() => finish({ kind: "timeout" }), timeout);
    u.on("error", (e) => finish(classify(e.code)));
    u.on("message", (m) => finish({ kind: "reached", reply: JSON.parse(m.toString()) }));
    u.bind({ port: p.sport, ...(p.src ? { address: p.src } : {}) }, () => {
      u.connect(p.dport, p.dst, (err) => {
        if (err) return finish(classify(err.code));
        u.send(p.dst + ":" + p.dport);
        // Datagrams may be lost while neighbours resolve: resend on the same socket (same
        // conntrack entry, so the same NAT decision), as UDP clients do.
        if (p.retry) again = setInterval(() => u.send(p.dst + ":" + p.dport), Math.max(100, timeout / 4));
      });
    });
  });
}
Promise.all(probes.map((p) => (p.proto === "tcp" ? tcp(p) : udp(p)))).then((r) => {
  process.stdout.write(JSON.stringify(r) + "\n");
  process.exit(0);
});
`;
