/** `-m udp`: `[!] --sport`, `[!] --dport`. */
import type { PortRange } from "../../net/index.js";
import type { Negatable } from "../model.js";
import { outcome, single, type MatchExtension } from "./extension.js";
import {
  formatPorts,
  PORT_ALIASES,
  PORT_OPTIONS,
  portOption,
  compilePorts,
  portReads,
  singlePort,
  portsHold,
  requireProtocol,
} from "./port-match.js";

export interface UdpMatch {
  readonly module: "udp";
  readonly sport?: Negatable<PortRange>;
  readonly dport?: Negatable<PortRange>;
}

export const udpMatch: MatchExtension<UdpMatch> = {
  module: "udp",
  options: PORT_OPTIONS,
  aliases: PORT_ALIASES,
  build(options, env) {
    requireProtocol(env, "udp", "UDP");
    const o = single(options, "udp");
    const sport = o.get("--sport");
    const dport = o.get("--dport");
    return {
      module: "udp",
      ...(sport && { sport: portOption(sport, "udp") }),
      ...(dport && { dport: portOption(dport, "udp") }),
    };
  },
  format: (m) => formatPorts(m.sport, m.dport).join(" "),
  protocol: "udp",
  destinationPort: (m) => singlePort(m.dport),
  reads: (m) => portReads(m.sport, m.dport),
  compile: (m) => compilePorts("udp", m.sport, m.dport),
  evaluate: (m, p) =>
    outcome(p.protocol === "udp" && !p.fragment && portsHold(p, m.sport, m.dport)),
};
