/**
 * The IPVS table as the tracer's IPVS hook (src/netfilter/trace/dataplane.ts): a lookup of the
 * virtual server a packet addresses, returning its real servers with their weights; the tracer
 * branches over them (weight-proportional, weight 0 never chosen) or answers with port
 * unreachable when none is usable. A persistence template, when given, narrows the choice to the
 * pinned real server.
 */
import { assertNever } from "../../util/assert-never.js";
import type { IpvsDecision, IpvsHook } from "../trace/dataplane.js";
import type { IpvsTable } from "./model.js";
import {
  NO_TEMPLATES,
  indexIpvsTable,
  ipvsSchedule,
  type PersistenceTemplates,
} from "./simulator.js";

export function ipvsHook(
  table: IpvsTable,
  templates: PersistenceTemplates = NO_TEMPLATES,
): IpvsHook {
  const index = indexIpvsTable(table);
  return {
    schedule(packet): IpvsDecision | undefined {
      const d = ipvsSchedule(index, packet, templates);
      switch (d.kind) {
        case "no-service":
          return undefined;
        case "no-destination":
          return {
            virtualServer: {
              address: d.virtualServer.address,
              port: d.virtualServer.port,
              protocol: packet.protocol,
            },
            realServers: [],
          };
        case "schedule":
          return {
            virtualServer: {
              address: d.virtualServer.address,
              port: d.virtualServer.port,
              protocol: packet.protocol,
            },
            // The tracer turns weights into probabilities; a pinned choice has weight 1.
            realServers: d.choices.map((c) => ({
              address: c.realServer.address,
              port: c.realServer.port,
              weight: d.byPersistence ? 1 : c.realServer.weight,
            })),
          };
        default:
          return assertNever(d);
      }
    },
  };
}
