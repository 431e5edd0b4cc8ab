/**
 * `render nftables|iptables --sequence DIR`: the states of a sync sequence, read from a
 * directory. Layout: every entry of DIR whose name starts with a digit is one state, in byte
 * order of the names (`01-initial.yaml`, `02-add-svc3/`, ...): a manifest file (`.yaml`,
 * `.yml`, `.json`) or a directory of them, each a whole cluster (not a patch). Other entries
 * (a README, node.yaml, proxy.yaml) are ignored. A name ending in `+Ns` before its extension
 * (`05-restore+0.5s.yaml`, `06-later+120s/`) gives the seconds since the previous sync; other
 * states are `--sync-interval` seconds apart.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Cluster } from "../../model/cluster.js";
import { formatIssue } from "../../model/issue.js";
import { loadCluster } from "../../model/load-files.js";
import { CliError } from "../exit.js";
import { refuseEmpty, type ManifestOptions } from "../load.js";
import type { CliIO } from "../program.js";

export interface SequenceState {
  readonly name: string;
  readonly cluster: Cluster;
  readonly elapsedSeconds?: number;
}

const MANIFEST = /\.(ya?ml|json)$/;
const ELAPSED = /\+(\d+(?:\.\d+)?)s(?:\.(?:ya?ml|json))?$/;

/** The `--sync-interval` value: seconds, a non-negative number. */
export function parseSyncInterval(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0)
    throw new CliError(`--sync-interval: expected seconds (a number >= 0), got "${value}"`);
  return n;
}

export function readSequenceDir(dir: string, opts: ManifestOptions, io: CliIO): SequenceState[] {
  if (opts.filename !== undefined && opts.filename.length > 0)
    throw new CliError(
      "--sequence DIR cannot be combined with -f: every state in DIR is a whole cluster",
    );
  let names: string[];
  try {
    if (!statSync(dir).isDirectory())
      throw new CliError(`--sequence ${dir}: not a directory (expected one state per entry)`);
    names = readdirSync(dir);
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`--sequence ${dir}: no such directory`);
  }
  const entries = names
    .filter((n) => /^\d/.test(n))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .filter((n) => MANIFEST.test(n) || statSync(join(dir, n)).isDirectory());
  if (entries.length === 0)
    throw new CliError(
      `--sequence ${dir}: no states: expected entries named like 01-name.yaml or 01-name/ (a digit first), one whole cluster each`,
    );
  return entries.map((name) => {
    const path = join(dir, name);
    const cluster = loadCluster([path], {
      validation: opts.validation ?? "strict",
      featureGates: opts.featureGates ?? {},
    });
    for (const w of cluster.warnings) io.stderr(`${formatIssue(w)}\n`);
    refuseEmpty(cluster, [path]);
    const m = ELAPSED.exec(name);
    return m?.[1] !== undefined
      ? { name, cluster, elapsedSeconds: Number(m[1]) }
      : { name, cluster };
  });
}
