/**
 * An iptables sync sequence as text: per sync and family, a `#` header, the commands kube-proxy
 * runs outside the restore input (the canary, the built-in jumps) as `# iptables ...` lines, then
 * the iptables-restore input. iptables-restore skips the `#` lines.
 */
import { commandText, type IptablesSync } from "./sync.js";

export function formatIptablesSyncSequence(syncs: readonly IptablesSync[]): string {
  let out = "";
  for (const s of syncs) {
    const head = `# sync ${s.index}/${syncs.length} ${s.name} (t=${s.at}s)`;
    for (const f of s.families) {
      if (f.commands.length > 0) {
        out += `${head}: ${f.family}: run first, outside the restore input\n`;
        for (const c of f.commands) out += `# ${commandText(f.family, c)}\n`;
      }
      const kind = f.full ? "full sync" : "partial sync";
      out += `${head}: ${kind}, ${f.family} iptables-restore --noflush input\n${f.restore}`;
    }
  }
  return out;
}
