/**
 * IPVS in the trace (see the IPVS hook in dataplane.ts): for a NEW packet addressed to a
 * virtual server, one branch per real server with weight > 0 (probability weight / total),
 * destination rewritten to the real server; no such real server: REJECT (ICMP port
 * unreachable from IPVS).
 */
import { formatIP, joinHostPort } from "../../net/index.js";
import type { HookRunner } from "./hooks.js";
import type { TraceStep } from "./result.js";
import type { WalkState } from "./walk-state.js";
import { patch } from "./walk-state.js";

/** undefined = IPVS does not take this packet. */
export function ipvsStage(
  r: HookRunner,
  s: WalkState,
  hookPoint: "LOCAL_IN" | "LOCAL_OUT",
): WalkState[] | undefined {
  const hook = r.dp.ipvs;
  if (hook === undefined || s.untracked || !s.pkt.ctState.includes("NEW")) return undefined;
  const p = s.pkt;
  const decision = hook.schedule({
    family: p.family,
    protocol: p.protocol,
    src: p.src,
    sport: p.sport,
    dst: p.dst,
    dport: p.dport,
    mark: p.mark,
    hookPoint,
  });
  if (decision === undefined) return undefined;
  const vs = decision.virtualServer;
  const vsText = `${vs.protocol.toUpperCase()} ${joinHostPort(formatIP(vs.address), vs.port)}`;
  const usable = decision.realServers.filter((rs) => rs.weight > 0);
  const total = usable.reduce((a, rs) => a + rs.weight, 0);
  if (usable.length === 0) {
    const t: TraceStep = { kind: "ipvs-no-real-servers", virtualServer: vsText };
    const st = r.explain ? patch(s, { steps: { head: t, tail: s.steps } }) : s;
    r.finals.push({ state: st, stoppedBy: "REJECT", delivery: "stopped" });
    return [];
  }
  return usable.map((rs) => {
    const probability = rs.weight / total;
    const t: TraceStep = {
      kind: "ipvs",
      virtualServer: vsText,
      realServer: joinHostPort(formatIP(rs.address), rs.port),
      probability,
    };
    const next: WalkState = patch(s, {
      prob: s.prob * probability,
      dnat: true,
      pkt: {
        ...p,
        dst: rs.address,
        dport: rs.port,
        ctState: p.ctState.includes("DNAT") ? p.ctState : [...p.ctState, "DNAT"],
      },
      ipvs: {
        isIpvs: true,
        vaddr: vs.address,
        vport: vs.port,
        vproto: vs.protocol,
        vdir: "ORIGINAL",
      },
    });
    return r.explain ? patch(next, { steps: { head: t, tail: next.steps } }) : next;
  });
}
