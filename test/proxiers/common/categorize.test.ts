/** Endpoint selection (spec §1.3, §1.4, §5.13; upstream topology.go CategorizeEndpoints). */
import { describe, expect, test } from "@jest/globals";
import fc from "fast-check";
import { categorizeEndpoints } from "../../../src/proxiers/common/categorize.js";
import {
  endpointsByServicePort,
  hostPort,
  servicePortKey,
  type Endpoint,
} from "../../../src/proxiers/common/endpoint.js";
import {
  servicePortsForFamily,
  type ServicePort,
} from "../../../src/proxiers/common/service-port.js";
import type { EndpointSlice, Service } from "../../../src/model/kinds.js";
import { joinHostPort } from "../../../src/net/index.js";

const topology = { nodeName: "here", zone: "", preferSameTrafficDistribution: true };

function ep(ip: string, o: Partial<Endpoint> = {}): Endpoint {
  return {
    ip,
    port: 80,
    endpoint: `${ip}:80`,
    nodeName: "",
    zone: "",
    isLocal: false,
    ready: true,
    serving: true,
    terminating: false,
    zoneHints: [],
    nodeHints: [],
    ...o,
  };
}

function sp(spec: Service["spec"]): ServicePort {
  const svc: Service = {
    metadata: { namespace: "ns", name: "s" },
    spec: { clusterIP: "10.96.0.1", ...spec },
  };
  return servicePortsForFamily(svc, "IPv4")[0]!;
}

describe("categorizeEndpoints", () => {
  const cluster = sp({ ports: [{ port: 80 }] });
  const etpLocal = sp({
    type: "NodePort",
    externalTrafficPolicy: "Local",
    ports: [{ port: 80, nodePort: 30000 }],
  });
  const itpLocal = sp({ internalTrafficPolicy: "Local", ports: [{ port: 80 }] });

  test("ready endpoints only; not-ready, not-serving ones never", () => {
    const r = categorizeEndpoints(
      [ep("1.1.1.1"), ep("1.1.1.2", { ready: false, serving: false })],
      cluster,
      topology,
    );
    expect(r.clusterEndpoints.map((e) => e.ip)).toEqual(["1.1.1.1"]);
    expect(r.localEndpoints).toEqual([]);
    expect(r.hasAnyEndpoints).toBe(true);
  });

  test("Local policy falls back to local serving+terminating endpoints", () => {
    const r = categorizeEndpoints(
      [
        ep("1.1.1.1", { isLocal: true, ready: false, terminating: true }),
        ep("1.1.1.2", { ready: true }),
      ],
      etpLocal,
      topology,
    );
    expect(r.localEndpoints.map((e) => e.ip)).toEqual(["1.1.1.1"]);
    expect(r.clusterEndpoints.map((e) => e.ip)).toEqual(["1.1.1.2"]);
    expect(r.allReachable.map((e) => e.ip)).toEqual(["1.1.1.1", "1.1.1.2"]);
  });

  test("iTP Local with endpoints only elsewhere: usable somewhere, none here", () => {
    const r = categorizeEndpoints([ep("1.1.1.2")], itpLocal, topology);
    expect(r.hasAnyEndpoints).toBe(true);
    expect(r.clusterEndpoints).toEqual([]);
    expect(r.allReachable).toEqual([]);
  });

  test("PreferSameNode needs the feature gate", () => {
    const eps = [ep("1.1.1.1", { nodeHints: ["here"] }), ep("1.1.1.2", { nodeHints: ["there"] })];
    expect(categorizeEndpoints(eps, cluster, topology).topologyMode).toBe("PreferSameNode");
    const off = categorizeEndpoints(eps, cluster, {
      ...topology,
      preferSameTrafficDistribution: false,
    });
    expect(off.topologyMode).toBe("");
    expect(off.clusterEndpoints).toHaveLength(2);
  });
});

describe("hostPort", () => {
  test("is joinHostPort: ip:port, [ip]:port for IPv6", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.ipV4(),
          fc.ipV6(),
          fc.string({ maxLength: 60 }),
          fc.string({ unit: "grapheme", maxLength: 8 }),
        ),
        fc.oneof(fc.integer({ min: 0, max: 65535 }), fc.integer(), fc.double()),
        (ip, port) => {
          expect(hostPort(ip, port)).toBe(joinHostPort(ip, port));
        },
      ),
      { seed: 17, numRuns: 500 },
    );
  });
});

describe("endpointsByServicePort", () => {
  const slice = (
    name: string,
    nodeName: string | undefined,
    extra: Partial<EndpointSlice> = {},
  ): EndpointSlice => ({
    metadata: { namespace: "ns", name, labels: { "kubernetes.io/service-name": "s" } },
    addressType: "IPv4",
    endpoints: [{ addresses: ["10.0.0.01"], ...(nodeName === undefined ? {} : { nodeName }) }],
    ports: [{ name: "p", protocol: "UDP", port: 53 }],
    ...extra,
  });

  test("matched by port name and protocol; addresses normalised; a local duplicate wins", () => {
    const m = endpointsByServicePort([slice("b", "here"), slice("a", undefined)], "IPv4", "here");
    const eps = m.get(servicePortKey("ns", "s", "p", "UDP"))!;
    expect(eps).toHaveLength(1);
    expect(eps[0]).toMatchObject({ ip: "10.0.0.1", endpoint: "10.0.0.1:53", isLocal: true });
    expect(m.get(servicePortKey("ns", "s", "p", "TCP"))).toBeUndefined();
  });

  test("slices without the service label, of another family, or ports without a name are ignored", () => {
    const m = endpointsByServicePort(
      [
        slice("a", undefined, { metadata: { namespace: "ns", name: "a" } }),
        slice("b", undefined, { addressType: "IPv6", endpoints: [{ addresses: ["fd00::1"] }] }),
        slice("c", undefined, { ports: [{ protocol: "UDP", port: 53 }] }),
      ],
      "IPv4",
      "here",
    );
    expect([...m.values()].flat()).toEqual([]);
  });

  // endpointslicecache keeps one endpoint per ip:port: the first seen (slices in name order)
  // unless a later copy is local. Several copies, out of order, several ports.
  test("duplicates across slices: first copy, or the last local one; sorted by ip:port string", () => {
    const many = (name: string, eps: EndpointSlice["endpoints"]): EndpointSlice => ({
      metadata: { namespace: "ns", name, labels: { "kubernetes.io/service-name": "s" } },
      addressType: "IPv4",
      endpoints: eps,
      ports: [
        { name: "p", protocol: "UDP", port: 53 },
        { name: "q", protocol: "TCP", port: 8080 },
      ],
    });
    const m = endpointsByServicePort(
      [
        many("d", [{ addresses: ["10.0.0.2"], nodeName: "here", zone: "z-d" }]),
        many("c", [{ addresses: ["10.0.0.2"], nodeName: "here", zone: "z-c" }]),
        many("b", [
          { addresses: ["10.0.0.10"], nodeName: "there", zone: "z-b" },
          { addresses: ["10.0.0.2"], nodeName: "there", zone: "z-b" },
        ]),
        many("a", [
          { addresses: ["10.0.0.9"], nodeName: "there", zone: "z-a" },
          { addresses: ["10.0.0.10"], nodeName: "there", zone: "z-a" },
        ]),
      ],
      "IPv4",
      "here",
    );
    for (const [portName, proto, port] of [
      ["p", "UDP", 53],
      ["q", "TCP", 8080],
    ] as const) {
      const eps = m.get(servicePortKey("ns", "s", portName, proto))!;
      expect(eps.map((e) => [e.endpoint, e.zone])).toEqual([
        [`10.0.0.10:${port}`, "z-a"],
        [`10.0.0.2:${port}`, "z-d"],
        [`10.0.0.9:${port}`, "z-a"],
      ]);
    }
  });
  // The reading kube-proxy's endpointslicecache gives, written plainly: slices in name order,
  // one entry per ip:port (the first copy, unless a later one is local), sorted by ip:port.
  test("lists are the plain reading's, with many endpoints or few, in any order", () => {
    const address = fc.tuple(fc.nat(3), fc.nat(12)).map(([a, b]) => `10.0.${a}.${b}`);
    const endpoint = fc.record({
      addresses: fc.tuple(address),
      nodeName: fc.constantFrom("here", "there"),
      zone: fc.constantFrom("z1", "z2"),
    });
    const slices = fc.array(fc.array(endpoint, { maxLength: 40 }), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(slices, (lists) => {
        const input: EndpointSlice[] = lists.map((endpoints, i) => ({
          metadata: {
            namespace: "ns",
            name: `e${i}`,
            labels: { "kubernetes.io/service-name": "s" },
          },
          addressType: "IPv4",
          endpoints,
          ports: [{ name: "p", protocol: "TCP", port: 80 }],
        }));
        const chosen = new Map<string, { zone: string; isLocal: boolean }>();
        for (const e of lists.flat()) {
          const key = `${e.addresses[0]}:80`;
          const isLocal = e.nodeName === "here";
          if (!chosen.has(key) || isLocal) chosen.set(key, { zone: e.zone, isLocal });
        }
        const expected = [...chosen.keys()]
          .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
          .map((k) => [k, chosen.get(k)!.zone, chosen.get(k)!.isLocal]);
        const got = endpointsByServicePort(input, "IPv4", "here").get(
          servicePortKey("ns", "s", "p", "TCP"),
        );
        expect((got ?? []).map((e) => [e.endpoint, e.zone, e.isLocal])).toEqual(expected);
      }),
      { seed: 17, numRuns: 300 },
    );
  });
});
