/** One rule in canonical `iptables-save` form: `-A CHAIN` + standard options + matches + target. */
import type { IPFamily } from "../../net/index.js";
import type { Rule } from "../model.js";
import { formatCidrSave } from "../matches/format-addr.js";
import { protocolNumber, protocolSaveName } from "../matches/protocol.js";
import { formatMatchOptions, formatTargetOptions } from "../registry.js";

function bang(negated: boolean): string {
  return negated ? " !" : "";
}

/** The words after `-A CHAIN` (without a leading space), canonical order and spelling. */
export function formatRuleBody(rule: Rule, family: IPFamily): string {
  let out = "";
  // A /0 address matches everything and leaves no trace in the kernel's rule.
  const s = rule.source;
  const d = rule.destination;
  if (s && (s.negated || s.value.prefix !== 0))
    out += `${bang(s.negated)} -s ${formatCidrSave(s.value)}`;
  if (d && (d.negated || d.value.prefix !== 0))
    out += `${bang(d.negated)} -d ${formatCidrSave(d.value)}`;
  // So does `-i +` (every interface name starts with the empty prefix); `! -i +` stays.
  const i = rule.inInterface;
  const o = rule.outInterface;
  if (i && (i.negated || i.value !== "+")) out += `${bang(i.negated)} -i ${i.value}`;
  if (o && (o.negated || o.value !== "+")) out += `${bang(o.negated)} -o ${o.value}`;
  if (rule.protocol) {
    const name = protocolSaveName(protocolNumber(rule.protocol.value) ?? 0);
    if (name !== undefined) out += `${bang(rule.protocol.negated)} -p ${name}`;
  }
  if (rule.fragment && family === "IPv4") out += `${bang(rule.fragment.negated)} -f`;
  for (const m of rule.matches) {
    const opts = formatMatchOptions(m, family);
    out += opts === "" ? ` -m ${m.module}` : ` -m ${m.module} ${opts}`;
  }
  const t = rule.target;
  if (t !== undefined) {
    if (t.kind === "jump") out += `${t.goto ? " -g" : " -j"} ${t.chain}`;
    else {
      const opts = formatTargetOptions(t, family);
      out += opts === "" ? ` -j ${t.kind}` : ` -j ${t.kind} ${opts}`;
    }
  }
  return out.slice(1);
}

export function formatRuleSave(chain: string, rule: Rule, family: IPFamily): string {
  const body = formatRuleBody(rule, family);
  return body === "" ? `-A ${chain}` : `-A ${chain} ${body}`;
}
