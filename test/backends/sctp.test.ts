/**
 * SCTP in the netns backend: the capability is detected by opening a socket
 * (socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP)), each outcome gives its reason, an SCTP probe is
 * skipped with that reason where there are no SCTP sockets, and the Python server and client
 * really run in a namespace (on a kernel without SCTP they fail at the socket call, which is
 * the furthest this kernel lets them go).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { netnsBackend } from "../../src/backends/netns/backend.js";
import { createNetns, deleteNetns, liveNetns } from "../../src/backends/netns.js";
import {
  NO_PYTHON,
  NO_SCTP,
  runSctpClient,
  sctpCapabilityOf,
  startSctpServer,
  trySctpSocket,
} from "../../src/backends/linux/sctp.js";
import type { Scenario } from "../../src/backends/backend.js";
import { parseNodeEnvironment } from "../../src/model/load-node-environment.js";
import { kernelTest } from "../helpers/kernel.js";

describe("the sctpSockets capability from a socket trial", () => {
  it("opened: available, no reason", () => {
    expect(sctpCapabilityOf({ kind: "opened" })).toEqual({
      name: "sctpSockets",
      available: true,
    });
  });
  it("EPROTONOSUPPORT: the kernel has none", () => {
    expect(sctpCapabilityOf({ kind: "failed", error: "Protocol not supported" })).toEqual({
      name: "sctpSockets",
      available: false,
      reason:
        "no SCTP sockets in this kernel (socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP): Protocol not supported)",
    });
    expect(NO_SCTP).toBe(
      "no SCTP sockets in this kernel (socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP): Protocol not supported)",
    );
  });
  it("another error is named", () => {
    expect(
      sctpCapabilityOf({ kind: "failed", error: "Address family not supported by protocol" })
        .reason,
    ).toBe(
      "no SCTP sockets in this kernel (socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP): Address family not supported by protocol)",
    );
  });
  it("no python3: says what to install", () => {
    expect(sctpCapabilityOf({ kind: "no-python" })).toEqual({
      name: "sctpSockets",
      available: false,
      reason: NO_PYTHON,
    });
  });
});

describe("trying a socket on this machine", () => {
  it("opens one exactly when the kernel then lists SCTP in /proc/net/sctp", () => {
    const trial = trySctpSocket();
    expect(trial.kind).not.toBe("no-python");
    // A successful socket() loads the sctp module where it is loadable; a failed one leaves
    // no /proc/net/sctp behind.
    expect(trial.kind === "opened").toBe(existsSync("/proc/net/sctp"));
  });

  it("without python3 on PATH the trial says so", () => {
    const empty = mkdtempSync(join(tmpdir(), "kns-nopath-"));
    try {
      expect(trySctpSocket({ ...process.env, PATH: empty })).toEqual({ kind: "no-python" });
    } finally {
      rmSync(empty, { recursive: true });
    }
  });
});

const NODE = parseNodeEnvironment(
  `apiVersion: kube-netsim.dev/v1alpha1
kind: NodeEnvironment
nodeName: node-1
nodeIPs: [192.168.10.11]
interfaces:
  - { name: lo, addresses: [127.0.0.1/8] }
  - { name: eth0, addresses: [192.168.10.11/24] }
  - { name: cni0, addresses: [10.244.1.1/24] }
`,
  "node.yaml",
);

const SCENARIO: Scenario = {
  node: NODE,
  rules: [{ family: "IPv4", text: "*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n" }],
  pods: [{ name: "ns/a", ip: "10.244.1.5", interface: "vethsctp0" }],
  remoteEndpoints: [],
  ports: [9000],
};

kernelTest(
  "an SCTP probe: delivered where SCTP sockets open, else skipped with the detected reason",
  ["root", "ip", "iptables"],
  async () => {
    expect.hasAssertions();
    const backend = netnsBackend({ timeoutMs: 1500 });
    const cap = (await backend.capabilities()).find((c) => c.name === "sctpSockets")!;
    const running = await backend.open(SCENARIO);
    try {
      const [sctp, tcp] = await backend.probeAll!(running, [
        { protocol: "sctp", from: "node", to: "10.244.1.5", port: 9000, sourcePort: 42001 },
        { protocol: "tcp", from: "node", to: "10.244.1.5", port: 9000, sourcePort: 42002 },
      ]);
      if (cap.available)
        expect(sctp).toEqual({
          kind: "delivered",
          to: "10.244.1.5:9000",
          seenSource: "192.168.10.11",
        });
      else expect(sctp).toEqual({ kind: "skipped", reason: cap.reason });
      // The TCP probe of the same batch ran regardless.
      expect(tcp).toEqual({
        kind: "delivered",
        to: "10.244.1.5:9000",
        seenSource: "192.168.10.11",
      });
    } finally {
      await backend.close(running);
    }
    expect(liveNetns()).toEqual([]);
  },
);

kernelTest(
  "the SCTP server and client run in a namespace (this kernel: refused at socket())",
  ["root", "ip"],
  async () => {
    expect.hasAssertions();
    const ns = createNetns("kns-sctp");
    try {
      ns.exec("ip", ["link", "set", "lo", "up"]);
      const opened = trySctpSocket().kind === "opened";
      const server = startSctpServer(ns, "t", ["127.0.0.1"], [9000]);
      if (opened) await expect(server.then((c) => c.kill())).resolves.toBe(true);
      else await expect(server).rejects.toThrow(/Protocol not supported/);
      const results = await runSctpClient(
        ns,
        [
          { proto: "sctp", src: "127.0.0.1", sport: 42010, dst: "127.0.0.1", dport: 9000 },
          { proto: "sctp", sport: 42011, dst: "127.0.0.1", dport: 9001 },
        ],
        1000,
      );
      if (opened) {
        expect(results[0]).toMatchObject({ kind: "reached" });
        // Nothing listens on 9001: the association is refused (ABORT).
        expect(results[1]).toEqual({ kind: "refused" });
      } else
        expect(results).toEqual([
          { kind: "error", code: "EPROTONOSUPPORT" },
          { kind: "error", code: "EPROTONOSUPPORT" },
        ]);
    } finally {
      deleteNetns(ns);
    }
  },
);
