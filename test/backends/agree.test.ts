/**
 * `agrees(prediction, observation)`: an observation agrees when some predicted outcome of
 * non-zero probability is exactly it. Predictions come from the tracer over small rule sets.
 */
import { describe, expect, it } from "@jest/globals";
import { agrees, compareObservation } from "../../src/backends/agree.js";
import type { Scenario } from "../../src/backends/backend.js";
import { simulatorBackend } from "../../src/backends/simulator/backend.js";
import { DEFAULT_KERNEL } from "../../src/model/node-environment.js";

const RULES = `*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A PREROUTING -d 10.96.0.1/32 -p tcp --dport 80 -m statistic --mode random --probability 0.5 -j DNAT --to-destination 10.244.1.5:8080
-A PREROUTING -d 10.96.0.1/32 -p tcp --dport 80 -j DNAT --to-destination 10.244.2.5:8080
-A POSTROUTING -d 10.244.2.5/32 -j MASQUERADE
COMMIT
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -d 10.96.0.2/32 -p tcp -j REJECT
-A FORWARD -d 10.96.0.3/32 -p tcp -j DROP
COMMIT
`;

const SCENARIO: Scenario = {
  node: {
    nodeName: "n",
    ipFamilies: ["IPv4"],
    nodeIPs: ["192.168.0.2"],
    interfaces: [
      { name: "lo", addresses: ["127.0.0.1/8"] },
      { name: "eth0", addresses: ["192.168.0.2/24"] },
      { name: "cni0", addresses: ["10.244.1.1/24"] },
    ],
    kernel: DEFAULT_KERNEL,
  },
  rules: [{ family: "IPv4", text: RULES }],
  pods: [{ name: "default/a", ip: "10.244.1.9", interface: "vetha" }],
  remoteEndpoints: ["10.244.2.5"],
  ports: [8080],
};

async function predict(to: string) {
  const sim = simulatorBackend();
  const running = await sim.open(SCENARIO);
  const r = sim.predict(running, { protocol: "tcp", from: "default/a", to, port: 80 });
  await sim.close(running);
  return r;
}

describe("agrees", () => {
  it("a delivery agrees when it is one of the outcomes, with the source the outcome says", async () => {
    const p = await predict("10.96.0.1");
    expect(p.outcomes).toHaveLength(2);
    expect(agrees(p, { kind: "delivered", to: "10.244.1.5:8080", seenSource: "10.244.1.9" })).toBe(
      true,
    );
    // The remote endpoint is reached masqueraded: with the node's eth0 address.
    expect(agrees(p, { kind: "delivered", to: "10.244.2.5:8080", seenSource: "192.168.0.2" })).toBe(
      true,
    );
    expect(agrees(p, { kind: "delivered", to: "10.244.2.5:8080", seenSource: "10.244.1.9" })).toBe(
      false,
    );
    expect(agrees(p, { kind: "delivered", to: "10.244.1.5:8081", seenSource: "10.244.1.9" })).toBe(
      false,
    );
    expect(agrees(p, { kind: "delivered", to: "10.244.3.5:8080", seenSource: "10.244.1.9" })).toBe(
      false,
    );
    expect(agrees(p, { kind: "rejected" })).toBe(false);
    expect(agrees(p, { kind: "dropped" })).toBe(false);
  });

  it("REJECT agrees only with a rejection, DROP only with a drop", async () => {
    const rejected = await predict("10.96.0.2");
    expect(agrees(rejected, { kind: "rejected" })).toBe(true);
    expect(agrees(rejected, { kind: "dropped" })).toBe(false);
    const dropped = await predict("10.96.0.3");
    expect(agrees(dropped, { kind: "dropped" })).toBe(true);
    expect(agrees(dropped, { kind: "rejected" })).toBe(false);
  });

  it("no rule: delivered to the destination as sent", async () => {
    const p = await predict("10.244.2.5");
    expect(agrees(p, { kind: "delivered", to: "10.244.2.5:80", seenSource: "192.168.0.2" })).toBe(
      true,
    );
    expect(agrees(p, { kind: "delivered", to: "10.244.2.5:80", seenSource: "10.244.1.9" })).toBe(
      false,
    );
  });

  it("a skipped observation is neither agreement nor disagreement", async () => {
    const p = await predict("10.96.0.1");
    const skipped = { kind: "skipped", reason: "no SCTP sockets" } as const;
    expect(compareObservation(p, skipped)).toBe("skipped");
    expect(agrees(p, skipped)).toBe(false);
    expect(compareObservation(p, { kind: "dropped" })).toBe("disagree");
  });
});
