/**
 * A collected snapshot read back: the iptables rule set of each family (the front end whose
 * save holds kube-proxy's chains, else the default one), ipsets, IPVS, and the interfaces with
 * their addresses from `ip -j addr`, as the tracer's node dataplane.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { IPFamily } from "../../net/index.js";
import { ipsetTest, parseIpsetSave } from "../../netfilter/ipset/index.js";
import { ipvsHook, parseIpvsadmSave } from "../../netfilter/ipvs/index.js";
import type { RuleSet } from "../../netfilter/model.js";
import { parseIptables } from "../../netfilter/parse/iptables.js";
import {
  buildDataplane,
  type DataplaneInterface,
  type DataplaneRoute,
  type NodeDataplane,
} from "../../netfilter/trace/dataplane.js";
import { MANIFEST_FILE, type SnapshotManifest } from "./collect.js";
import type { IssueCode } from "../../issue/issue.js";
import { inputIssue, ValidationError } from "../../issue/validation-error.js";

/** A snapshot directory that is not one `snapshot collect` wrote (a file missing or unreadable): bad input. */
export class SnapshotError extends ValidationError {
  constructor(message: string, code: IssueCode = "invalid") {
    super([inputIssue(code, message)]);
    this.name = "SnapshotError";
  }
}

export interface Snapshot {
  readonly dir: string;
  readonly manifest: SnapshotManifest;
  /** Per family: the rule set and the file it came from. */
  readonly rules: readonly {
    readonly family: IPFamily;
    readonly file: string;
    readonly ruleSet: RuleSet;
  }[];
  readonly ipsets: string;
  readonly ipvs: string;
  /** `nft list ruleset` text (empty when not collected). */
  readonly nftables: string;
  readonly interfaces: readonly DataplaneInterface[];
  /** The main table's unicast routes (`ip -j route`), which decide MASQUERADE's source address. */
  readonly routes: readonly DataplaneRoute[];
  readonly modules: readonly string[];
  readonly sysctls: Readonly<Record<string, string>>;
}

const FRONT_ENDS: Readonly<Record<IPFamily, readonly string[]>> = {
  IPv4: ["iptables-save.txt", "iptables-nft-save.txt", "iptables-legacy-save.txt"],
  IPv6: ["ip6tables-save.txt", "ip6tables-nft-save.txt", "ip6tables-legacy-save.txt"],
};

interface IpRouteJson {
  readonly type?: string;
  readonly table?: string;
  readonly dst?: string;
  readonly gateway?: string;
  readonly dev?: string;
}

/** `ip -j route show table all`: the main table's unicast routes (local/broadcast ones are implied). */
function mainRoutes(list: readonly IpRouteJson[] | undefined): DataplaneRoute[] {
  if (list === undefined) return [];
  return list
    .filter(
      (r) =>
        r.dst !== undefined &&
        (r.table === undefined || r.table === "main") &&
        (r.type === undefined || r.type === "unicast"),
    )
    .map((r) => ({
      dst: r.dst!,
      ...(r.gateway !== undefined ? { gateway: r.gateway } : {}),
      ...(r.dev !== undefined ? { dev: r.dev } : {}),
    }));
}

interface IpAddrJson {
  readonly ifname?: string;
  readonly addr_info?: readonly {
    readonly family?: string;
    readonly local?: string;
    readonly prefixlen?: number;
  }[];
}

function read(dir: string, file: string): string | undefined {
  const p = join(dir, file);
  return existsSync(p) ? readFileSync(p, "utf8") : undefined;
}

/** A JSON file of the snapshot (undefined when absent); one that does not parse is bad input. */
function readJson<T>(dir: string, file: string): T | undefined {
  const text = read(dir, file);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    throw new SnapshotError(`${join(dir, file)}: ${(e as Error).message}`);
  }
}

export function readSnapshot(dir: string): Snapshot {
  const manifest = readJson<SnapshotManifest>(dir, MANIFEST_FILE);
  if (manifest === undefined)
    throw new SnapshotError(
      `${dir}: no ${MANIFEST_FILE} (not a directory written by \`kube-netsim snapshot collect\`)`,
      "not-found",
    );
  if ((manifest as { kind?: unknown } | null)?.kind !== "kube-netsim-snapshot")
    throw new SnapshotError(`${join(dir, MANIFEST_FILE)}: kind is not kube-netsim-snapshot`);
  const rules: { family: IPFamily; file: string; ruleSet: RuleSet }[] = [];
  for (const family of ["IPv4", "IPv6"] as const) {
    const present = FRONT_ENDS[family].flatMap((f) => {
      const text = read(dir, f);
      return text === undefined ? [] : [{ file: f, text }];
    });
    const chosen =
      present.find((p) => p.text.includes(":KUBE-")) ?? present.find((p) => p.text.trim() !== "");
    if (chosen === undefined) continue;
    rules.push({
      family,
      file: chosen.file,
      ruleSet: parseIptables(chosen.text, { file: join(dir, chosen.file), family }),
    });
  }
  const list = readJson<readonly IpAddrJson[]>(dir, "ip-addr.json");
  const interfaces: DataplaneInterface[] = [];
  if (list !== undefined) {
    for (const l of list) {
      if (l.ifname === undefined) continue;
      const addresses = (l.addr_info ?? [])
        .filter((a) => (a.family === "inet" || a.family === "inet6") && a.local !== undefined)
        .map((a) => `${a.local}/${a.prefixlen ?? (a.family === "inet" ? 32 : 128)}`);
      interfaces.push({ name: l.ifname, addresses });
    }
  }
  return {
    dir,
    manifest,
    rules,
    ipsets: read(dir, "ipset-save.txt") ?? "",
    ipvs: read(dir, "ipvsadm-save.txt") ?? "",
    nftables: read(dir, "nft-ruleset.txt") ?? "",
    interfaces,
    routes: mainRoutes(readJson<readonly IpRouteJson[]>(dir, "ip-route.json")),
    modules: (read(dir, "modules.txt") ?? "").split("\n").filter((m) => m !== ""),
    sysctls: readJson<Record<string, string>>(dir, "sysctls.json") ?? {},
  };
}

/** The node a snapshot describes, as the tracer's dataplane (for `trace --snapshot`). */
export function snapshotDataplane(dir: string): {
  readonly dataplane: NodeDataplane;
  readonly ruleSets: readonly RuleSet[];
  readonly localAddresses: readonly string[];
} {
  const s = readSnapshot(dir);
  const ruleSets = s.rules.map((r) => r.ruleSet);
  const sets =
    s.ipsets.trim() !== "" ? parseIpsetSave(s.ipsets, join(dir, "ipset-save.txt")) : undefined;
  const ipvs =
    s.ipvs.trim() !== "" ? parseIpvsadmSave(s.ipvs, join(dir, "ipvsadm-save.txt")) : undefined;
  const dataplane = buildDataplane({
    ruleSets,
    interfaces: s.interfaces,
    routes: s.routes,
    ...(sets !== undefined ? { ipsets: { test: (name, key) => ipsetTest(sets, name, key) } } : {}),
    ...(ipvs !== undefined ? { ipvs: ipvsHook(ipvs) } : {}),
  });
  return { dataplane, ruleSets, localAddresses: s.interfaces.flatMap((i) => i.addresses) };
}
