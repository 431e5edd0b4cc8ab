/**
 * A trace drawn as its path through the netfilter hooks (PREROUTING → routing → INPUT or
 * FORWARD → OUTPUT → POSTROUTING), each hook with the rules that matched there, and the rule
 * that decided the outcome (the DNAT, DROP, REJECT or ACCEPT) highlighted.
 */
import type { TraceResult, TraceStep } from "../netfilter/trace/index.js";
import { esc } from "./escape.js";

export interface HookVisit {
  readonly hook: string;
  readonly rules: readonly { readonly text: string; readonly decides: boolean }[];
}

export interface TracePath {
  readonly summary: string;
  readonly probability: number;
  readonly hooks: readonly HookVisit[];
}

const DECIDING = new Set(["DNAT", "DROP", "REJECT", "ACCEPT"]);

/** The hooks an outcome's steps pass, with the rules matched in each. */
export function tracePaths(result: TraceResult): TracePath[] {
  return result.outcomes.map((o, i) => {
    const steps: readonly TraceStep[] = result.explanation.outcomes[i] ?? [];
    const hooks: { hook: string; rules: { text: string; decides: boolean }[] }[] = [];
    let deciding = -1;
    const ruleSteps: { hook: number; rule: number }[] = [];
    for (const s of steps) {
      switch (s.kind) {
        case "hook":
          if (hooks[hooks.length - 1]?.hook !== s.hook) hooks.push({ hook: s.hook, rules: [] });
          break;
        case "route":
          hooks.push({ hook: `routing: ${s.decision} (${s.outInterface})`, rules: [] });
          break;
        case "ipvs":
          hooks.push({ hook: `IPVS ${s.virtualServer} → ${s.realServer}`, rules: [] });
          break;
        case "rule": {
          if (hooks.length === 0) hooks.push({ hook: "", rules: [] });
          const h = hooks[hooks.length - 1]!;
          h.rules.push({
            text: `${s.table}/${s.chain}#${s.index} → ${s.target}${s.probability !== undefined ? ` (${Math.round(s.probability * 1000) / 10}%)` : ""}`,
            decides: false,
          });
          if (DECIDING.has(s.target) && s.target === o.verdict) deciding = ruleSteps.length;
          ruleSteps.push({ hook: hooks.length - 1, rule: h.rules.length - 1 });
          break;
        }
        default:
          break;
      }
    }
    const d = ruleSteps[deciding];
    if (d !== undefined) hooks[d.hook]!.rules[d.rule]!.decides = true;
    const summary = `${o.verdict}${o.destination !== undefined ? ` → ${o.destination}` : ""}${o.masquerade ? " (masquerade)" : ""}`;
    return { summary, probability: o.probability, hooks };
  });
}

export function tracePathHtml(title: string, paths: readonly TracePath[]): string {
  const outcomes = paths
    .map((p) => {
      const hooks = p.hooks
        .map(
          (h) =>
            `<div class="hook"><div class="hook-name">${esc(h.hook)}</div><ul>${h.rules
              .map(
                (r) =>
                  `<li${r.decides ? ' class="decider" title="the rule that decided this outcome"' : ""}>${esc(r.text)}</li>`,
              )
              .join("")}</ul></div>`,
        )
        .join('<div class="arrow">→</div>');
      return `<div class="outcome"><div class="outcome-head">${esc(p.summary)} <small>${Math.round(p.probability * 10000) / 100}%</small></div><div class="hooks">${hooks}</div></div>`;
    })
    .join("");
  return `<div class="trace"><h4>${esc(title)}</h4>${outcomes || "<p>no outcome</p>"}</div>`;
}
