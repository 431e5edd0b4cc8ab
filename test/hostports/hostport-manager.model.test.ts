/**
 * Model-based tests of HostportManager: random Add/Remove sequences against a small model of
 * what kubelet guarantees (a TCP/UDP host port is held by at most one pod; SCTP never opens a
 * socket; a failed Add changes nothing; Remove leaves no trace of the pod).
 */
import { describe, expect } from "@jest/globals";
import { fc, test } from "@fast-check/jest";
import {
  HostportError,
  HostportManager,
  hostportChainName,
  podIPs,
  podPortMappings,
  sandboxIDOf,
  type HostSocket,
  type PodPortMapping,
} from "../../src/hostports/index.js";
import type { Pod } from "../../src/model/kinds.js";
import { hostPortPod } from "../../src/testing/arbitraries/hostPortPod.js";

interface Model {
  /** Pods whose Add succeeded and that were not removed since. */
  readonly added: Set<number>;
}
interface Real {
  readonly manager: HostportManager;
  readonly pods: readonly Pod[];
}

const toMapping = (pod: Pod): PodPortMapping => ({
  namespace: pod.metadata?.namespace ?? "",
  name: pod.metadata?.name ?? "",
  ip: podIPs(pod)[0] ?? "",
  hostNetwork: false,
  portMappings: podPortMappings(pod),
});

function socketsOf(pod: Pod): HostSocket[] {
  return podPortMappings(pod)
    .filter((m) => m.protocol !== "SCTP")
    .map((m) => ({
      family: "IPv4" as const,
      hostIP: m.hostIP ?? "",
      port: m.hostPort,
      protocol: m.protocol === "TCP" ? ("tcp" as const) : ("udp" as const),
    }));
}
const key = (s: HostSocket) => `${s.family} ${s.hostIP} ${s.port} ${s.protocol}`;

function checkInvariants(m: Model, r: Real): void {
  const expected = [...m.added]
    .flatMap((i) => socketsOf(r.pods[i]!))
    .map(key)
    .sort();
  const actual = r.manager.openSockets().map(key).sort();
  expect(actual).toEqual(expected);
  // No (hostIP, port, protocol) is held twice.
  expect(new Set(actual).size).toBe(actual.length);
  const saved = r.manager.save();
  r.pods.forEach((pod, i) => {
    for (const pm of podPortMappings(pod)) {
      const chain = hostportChainName(sandboxIDOf(pod), pm.hostPort, pm.protocol, pm.hostIP ?? "");
      expect([pod.metadata?.name, chain, saved.includes(`:${chain} `)]).toEqual([
        pod.metadata?.name,
        chain,
        m.added.has(i),
      ]);
    }
  });
  const jumps = saved.split("\n").filter((l) => l.startsWith("-A KUBE-HOSTPORTS "));
  const mappings = [...m.added].reduce((n, i) => n + podPortMappings(r.pods[i]!).length, 0);
  expect(jumps).toHaveLength(mappings);
}

const hostportLines = (save: string) =>
  save.split("\n").filter((l) => l.startsWith("-A KUBE-") || l.startsWith(":KUBE-HP-"));

class AddCommand implements fc.Command<Model, Real> {
  constructor(readonly index: number) {}
  check(m: Readonly<Model>): boolean {
    return !m.added.has(this.index);
  }
  run(m: Model, r: Real): void {
    const pod = r.pods[this.index]!;
    const held = new Set([...m.added].flatMap((i) => socketsOf(r.pods[i]!)).map(key));
    const own = socketsOf(pod).map(key);
    const conflict = own.some((k) => held.has(k)) || new Set(own).size !== own.length;
    const before = r.manager.save();
    let error: HostportError | undefined;
    try {
      r.manager.add(sandboxIDOf(pod), toMapping(pod));
    } catch (e) {
      if (!(e instanceof HostportError)) throw e;
      error = e;
    }
    expect(error?.detail.kind).toBe(conflict ? "cannot-open-hostport" : undefined);
    if (error === undefined) m.added.add(this.index);
    // A failed Add programs none of the pod's rules (only the static rules may appear).
    else expect(hostportLines(r.manager.save())).toEqual(hostportLines(before));
    checkInvariants(m, r);
  }
  toString(): string {
    return `add(hp-${this.index})`;
  }
}

class RemoveCommand implements fc.Command<Model, Real> {
  constructor(readonly index: number) {}
  check(m: Readonly<Model>): boolean {
    return m.added.has(this.index);
  }
  run(m: Model, r: Real): void {
    const pod = r.pods[this.index]!;
    r.manager.remove(sandboxIDOf(pod), toMapping(pod));
    m.added.delete(this.index);
    checkInvariants(m, r);
    // Idempotent.
    r.manager.remove(sandboxIDOf(pod), toMapping(pod));
    checkInvariants(m, r);
  }
  toString(): string {
    return `remove(hp-${this.index})`;
  }
}

const POD_COUNT = 5;
const pods = fc.tuple(
  ...Array.from({ length: POD_COUNT }, (_, index) =>
    hostPortPod({ index, hostIPs: ["127.0.0.1", "192.168.0.2"] }),
  ),
);
const commands = fc.commands(
  [
    fc.integer({ min: 0, max: POD_COUNT - 1 }).map((i) => new AddCommand(i)),
    fc.integer({ min: 0, max: POD_COUNT - 1 }).map((i) => new RemoveCommand(i)),
  ],
  { maxCommands: 25 },
);

describe("HostportManager model", () => {
  test.prop([pods, commands], { numRuns: 150 })(
    "random Add/Remove sequences keep kubelet's guarantees",
    (podList, cmds) => {
      const manager = new HostportManager({ family: "IPv4", natInterfaceName: "cbr0" });
      fc.modelRun(
        () => ({ model: { added: new Set<number>() }, real: { manager, pods: podList } }),
        cmds,
      );
    },
  );

  test.prop([fc.array(hostPortPod({ protocols: ["SCTP"] }), { minLength: 1, maxLength: 4 })], {
    numRuns: 50,
  })("SCTP host ports never open a socket and never conflict", (list) => {
    const manager = new HostportManager({ family: "IPv4", natInterfaceName: "cbr0" });
    list.forEach((pod, i) => manager.add(`sandbox-${i}`, toMapping(pod)));
    expect(manager.openSockets()).toEqual([]);
  });

  test.prop(
    [
      fc.tuple(
        ...[0, 1, 2, 3, 4].map((index) =>
          hostPortPod({ index, hostIPs: ["127.0.0.1", "192.168.0.2"] }),
        ),
      ),
    ],
    { numRuns: 100 },
  )("kernel bind semantics: no held socket overlaps another (wildcard included)", (list) => {
    const manager = new HostportManager({
      family: "IPv4",
      natInterfaceName: "cbr0",
      bindSemantics: "kernel",
    });
    for (const pod of list) {
      try {
        manager.add(sandboxIDOf(pod), toMapping(pod));
      } catch (e) {
        if (!(e instanceof HostportError)) throw e;
      }
    }
    const held = manager.openSockets();
    held.forEach((a, i) =>
      held.slice(i + 1).forEach((b) => {
        const overlap =
          a.protocol === b.protocol &&
          a.port === b.port &&
          (a.hostIP === b.hostIP || a.hostIP === "" || b.hostIP === "");
        expect([key(a), key(b), overlap]).toEqual([key(a), key(b), false]);
      }),
    );
  });
});
