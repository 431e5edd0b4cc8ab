/** Renders a PolicyExplanation for people (the JSON form is the data itself). */
import { assertNever } from "../util/assert-never.js";
import type { AdminLevel, AdminTier } from "./compiled.js";
import type {
  PassTrace,
  AdminPolicyTrace,
  Decision,
  DirectionExplanation,
  EntryMatch,
  PolicyExplanation,
  RuleTrace,
} from "./explanation.js";

function decisionText(d: Decision, dir: DirectionExplanation): string {
  switch (d.kind) {
    case "not-a-subject":
      return `not subject to policy (${d.reason})`;
    case "loopback":
      return "loopback: a pod may always reach itself (implementation-defined)";
    case "local-node":
      return `traffic from the pod's own node ${d.node} (implementation-defined)`;
    case "admin-rule": {
      const kind = tierLabel(d.tier, d.level);
      const pri = d.priority !== undefined ? ` priority ${d.priority}` : "";
      const name = d.ruleName !== undefined ? ` "${d.ruleName}"` : "";
      return `[${kind}] ${d.action} by ${d.policy}${pri} ${dir.direction.toLowerCase()}[${d.rule}]${name}`;
    }
    case "networkpolicy-allow":
      return `[NPv1] allowed by ${d.policy} ${dir.direction.toLowerCase()}[${d.rule}]`;
    case "networkpolicy-deny":
      return `[NPv1] isolated by ${d.policies.join(", ")}; no ${dir.direction.toLowerCase()} rule allows it`;
    case "default-allow":
      return "no policy decides: allowed by default";
    case "undecidable":
      return `depends on domainNames that cannot be resolved offline (give --dns-map): ${d.rules
        .map(
          (r) =>
            `[${tierLabel(r.tier, r.level)}] ${r.action} by ${r.policy}${r.priority !== undefined ? ` priority ${r.priority}` : ""} ${dir.direction.toLowerCase()}[${r.rule}]${r.ruleName !== undefined ? ` "${r.ruleName}"` : ""} (${r.names.join(", ")})`,
        )
        .join("; ")}`;
    default:
      return assertNever(d);
  }
}

function entry(label: string, e: EntryMatch | undefined): string {
  if (e === undefined) return "";
  if (!e.matched) return `${label} no: ${e.reason}`;
  return e.index === "all" ? `${label} any` : `${label} #${e.index}`;
}

function ruleLine(prefix: string, r: RuleTrace, dir: string): string {
  const action = r.action !== undefined ? ` ${r.action}` : "";
  const name = r.name !== undefined ? ` "${r.name}"` : "";
  const parts = [entry("peer", r.peer), entry("port", r.port)].filter((s) => s !== "");
  return `${prefix}${dir}[${r.index}]${name}${action}: ${r.matched ? "matched" : "no match"} (${parts.join("; ")})`;
}

/** `ANP`, `BANP`, or `CNP Admin` / `CNP Baseline`. */
function tierLabel(tier: AdminTier, level: AdminLevel | undefined): string {
  if (tier === "ClusterNetworkPolicy") return `CNP ${level ?? "Admin"}`;
  return tier === "AdminNetworkPolicy" ? "ANP" : "BANP";
}

function passLine(p: PassTrace, dir: string, to: string): string {
  return `    [${p.tier !== undefined ? tierLabel(p.tier, p.level) : "ANP"}] Pass by ${p.policy} ${dir}[${p.rule}]${p.ruleName !== undefined ? ` "${p.ruleName}"` : ""} -> ${to}`;
}

function adminLines(ts: readonly AdminPolicyTrace[], dir: string): string[] {
  const out: string[] = [];
  for (const t of ts) {
    const kind = tierLabel(t.tier, t.level);
    out.push(
      `    ${kind} ${t.policy}${t.priority !== undefined ? ` (priority ${t.priority})` : ""} selects the subject`,
    );
    for (const r of t.rules) out.push(ruleLine("      ", r, dir));
  }
  return out;
}

export function formatDirection(d: DirectionExplanation): string[] {
  const dir = d.direction.toLowerCase();
  const out = [
    `  ${d.direction} of ${d.subject} (peer ${d.peer}): ${d.verdict}: ${decisionText(d.decision, d)}`,
  ];
  if (d.passed !== undefined)
    out.push(
      passLine(
        d.passed,
        dir,
        d.passed.tier === undefined ? "NetworkPolicy/BANP" : "NetworkPolicy/Baseline tier",
      ),
    );
  if (d.baselinePassed !== undefined) out.push(passLine(d.baselinePassed, dir, "default allow"));
  out.push(...adminLines(d.adminPolicies, dir));
  for (const t of d.networkPolicies) {
    out.push(`    NetworkPolicy ${t.policy} selects the subject for ${d.direction}`);
    if (t.rules.length === 0) out.push(`      no ${dir} rules: allows nothing`);
    for (const r of t.rules) out.push(ruleLine("      ", r, dir));
  }
  out.push(...adminLines(d.baselinePolicies, dir));
  return out;
}

export function formatExplanation(e: PolicyExplanation): string {
  const lines = [`${e.from} -> ${e.to} ${e.protocol}/${e.port}: ${e.verdict}`];
  lines.push(...formatDirection(e.egress), ...formatDirection(e.ingress));
  for (const c of e.choices)
    lines.push(`  note: ${c.message}${c.option !== undefined ? ` (option ${c.option})` : ""}`);
  return `${lines.join("\n")}\n`;
}
