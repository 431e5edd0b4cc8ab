/**
 * The SCTP probe server and client, as small Python 3 programs run inside network namespaces
 * with `ip netns exec NS python3 -c` (Node.js has no SCTP sockets; Python's socket module
 * opens them with socket(AF_INET[6], SOCK_STREAM, IPPROTO_SCTP), the one-to-one style of
 * RFC 6458 §4, which connects, accepts and reads like TCP).
 *
 * They speak the same protocol as the TCP/UDP programs (probe-scripts.ts): the server answers
 * each association with one JSON line `{ns, local, remote}`; the client takes the same JSON
 * list of probes and prints the same JSON array of results. An association refused by an ABORT
 * is `refused`, ICMP unreachable is `unreachable`, no answer within the timeout is `timeout`.
 */

/** argv: label, JSON list of addresses, JSON list of ports. Prints "ready" once all listen. */
export const SCTP_SERVER_SCRIPT = String.raw`
import json, os, selectors, socket, sys, threading, time
label, addresses, ports = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
def hp(a): return ("[%s]:%d" if ":" in a[0] else "%s:%d") % (a[0], a[1])
sel = selectors.DefaultSelector()
for address in addresses:
    for port in ports:
        fam = socket.AF_INET6 if ":" in address else socket.AF_INET
        s = socket.socket(fam, socket.SOCK_STREAM, socket.IPPROTO_SCTP)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((address, port))
        s.listen(64)
        sel.register(s, selectors.EVENT_READ)
parent = os.getppid()
def watch():
    # Never outlive the process that started us (killed with SIGKILL, say).
    while os.getppid() == parent: time.sleep(0.2)
    os._exit(0)
threading.Thread(target=watch, daemon=True).start()
sys.stdout.write("ready\n"); sys.stdout.flush()
while True:
    for key, _ in sel.select():
        try:
            c, _ = key.fileobj.accept()
            reply = {"ns": label, "local": hp(c.getsockname()), "remote": hp(c.getpeername())}
            c.sendall((json.dumps(reply) + "\n").encode())
            c.close()
        except OSError:
            pass
`;

/** argv: JSON list of probes, timeout in ms. */
export const SCTP_CLIENT_SCRIPT = String.raw`
import errno, json, socket, sys, threading
probes, timeout = json.loads(sys.argv[1]), float(sys.argv[2]) / 1000.0
results = [None] * len(probes)
def classify(e):
    if e == errno.ECONNREFUSED: return {"kind": "refused"}
    if e in (errno.EHOSTUNREACH, errno.ENETUNREACH): return {"kind": "unreachable", "code": errno.errorcode[e]}
    return {"kind": "error", "code": errno.errorcode.get(e, str(e))}
def probe(i, p):
    fam = socket.AF_INET6 if ":" in p["dst"] else socket.AF_INET
    s = None
    try:
        s = socket.socket(fam, socket.SOCK_STREAM, socket.IPPROTO_SCTP)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((p.get("src") or "", p["sport"]))
        s.settimeout(timeout)
        s.connect((p["dst"], p["dport"]))
        data = b""
        while b"\n" not in data:
            chunk = s.recv(4096)
            if not chunk: break
            data += chunk
        results[i] = {"kind": "reached", "reply": json.loads(data)} if data else {"kind": "error", "code": "EOF"}
    except socket.timeout:
        results[i] = {"kind": "timeout"}
    except OSError as e:
        results[i] = classify(e.errno)
    finally:
        if s is not None: s.close()
threads = [threading.Thread(target=probe, args=(i, p)) for i, p in enumerate(probes)]
for t in threads: t.start()
for t in threads: t.join()
sys.stdout.write(json.dumps(results) + "\n")
`;

/**
 * Tries to open an SCTP socket (prints nothing and exits 0 when it can; otherwise prints the
 * error and exits 1): the capability check, run the same way the probes run.
 */
export const SCTP_DETECT_SCRIPT = String.raw`
import socket, sys
try:
    socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_SCTP).close()
except OSError as e:
    sys.stdout.write(e.strerror or str(e)); sys.exit(1)
`;
