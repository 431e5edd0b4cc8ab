/**
 * The simulator backend: the tracer over the scenario's own rule texts. It never skips: every
 * protocol, IPVS, ipset and nftables rule set is modelled. Its observation is the most likely predicted outcome;
 * `predict` gives the whole distribution (what other backends are compared against).
 */
import { trace } from "../../netfilter/trace/tracer.js";
import type { NodeDataplane } from "../../netfilter/trace/dataplane.js";
import type { PacketSpec, TraceResult } from "../../netfilter/trace/result.js";
import { deliveredTo } from "../agree.js";
import type {
  Backend,
  Capability,
  Observation,
  Probe,
  RunningScenario,
  Scenario,
} from "../backend.js";
import { layoutOf, resolveSource, type ScenarioLayout } from "../layout.js";
import { dataplaneOfScenario } from "./dataplane-of-scenario.js";

interface Opened {
  readonly dataplane: NodeDataplane;
  readonly layout: ScenarioLayout;
}

const opened = new WeakMap<RunningScenario, Opened>();
let next = 0;

/** The packet a probe sends, as the tracer takes it. */
export function packetOfProbe(
  scenario: Scenario,
  layout: ScenarioLayout,
  probe: Probe,
): PacketSpec {
  const source = resolveSource(scenario, layout, probe);
  return {
    proto: probe.protocol,
    src: source.ip,
    dst: probe.to,
    dport: probe.port,
    ...(probe.sourcePort !== undefined ? { sport: probe.sourcePort } : {}),
    ...(source.where === "node" ? { origin: "local" as const } : { origin: "remote" as const }),
  };
}

function openedOf(running: RunningScenario): Opened {
  const o = opened.get(running);
  if (o === undefined) throw new Error(`scenario ${running.id} is not open in the simulator`);
  return o;
}

export interface SimulatorBackend extends Backend {
  /** Every outcome of the probe with its probability. */
  predict(running: RunningScenario, probe: Probe): TraceResult;
}

export function simulatorBackend(): SimulatorBackend {
  const predict = (running: RunningScenario, probe: Probe): TraceResult => {
    const o = openedOf(running);
    return trace(o.dataplane, packetOfProbe(running.scenario, o.layout, probe), { explain: false });
  };
  return {
    name: "simulator",
    capabilities(): Promise<Capability[]> {
      const names = [
        "iptables",
        "ip6tables",
        "ipset",
        "ipvs",
        "tcpSockets",
        "udpSockets",
        "sctpSockets",
        "nftables",
      ] as const;
      return Promise.resolve(names.map((name) => ({ name, available: true })));
    },
    open(scenario: Scenario): Promise<RunningScenario> {
      const running: RunningScenario = { backend: "simulator", id: `sim-${++next}`, scenario };
      opened.set(running, { dataplane: dataplaneOfScenario(scenario), layout: layoutOf(scenario) });
      return Promise.resolve(running);
    },
    predict,
    probe(running: RunningScenario, probe: Probe): Promise<Observation> {
      const r = predict(running, probe);
      const best = [...r.outcomes].sort((a, b) => b.probability - a.probability)[0];
      if (best === undefined) return Promise.resolve({ kind: "dropped" });
      const d = deliveredTo(r.packet, best);
      if (d !== undefined) return Promise.resolve({ kind: "delivered", ...d });
      return Promise.resolve({ kind: best.verdict === "REJECT" ? "rejected" : "dropped" });
    },
    close(running: RunningScenario): Promise<void> {
      opened.delete(running);
      return Promise.resolve();
    },
  };
}
