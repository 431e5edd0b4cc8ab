/** `-j REJECT [--reject-with TYPE]`; the save form always names the type (canonical spelling). */
import type { IPFamily } from "../../net/index.js";
import { fail, single } from "../matches/extension.js";
import { REJECTED, type TargetExtension } from "./extension.js";

type Reject = { readonly kind: "REJECT"; readonly rejectWith?: string };

/**
 * The reject types with their aliases, in libipt_REJECT's and libip6t_REJECT's order: a
 * `--reject-with` word names the first type whose name or alias it starts, in any case
 * (checked on the kernel: `icmp-p` is icmp-proto-unreachable, `P` too, IPv6 `p` is
 * icmp6-port-unreachable, and an empty word the first type).
 */
const V4: readonly (readonly [string, string])[] = [
  ["icmp-net-unreachable", "net-unreach"],
  ["icmp-host-unreachable", "host-unreach"],
  ["icmp-proto-unreachable", "proto-unreach"],
  ["icmp-port-unreachable", "port-unreach"],
  ["icmp-net-prohibited", "net-prohib"],
  ["icmp-host-prohibited", "host-prohib"],
  ["tcp-reset", "tcp-rst"],
  ["icmp-admin-prohibited", "admin-prohib"],
];
const V6: readonly (readonly [string, string])[] = [
  ["icmp6-no-route", "no-route"],
  ["icmp6-adm-prohibited", "adm-prohibited"],
  ["icmp6-addr-unreachable", "addr-unreach"],
  ["icmp6-port-unreachable", "port-unreach"],
  ["tcp-reset", "tcp-rst"],
  ["icmp6-policy-fail", "policy-fail"],
  ["icmp6-reject-route", "reject-route"],
];

export function defaultRejectWith(family: IPFamily): string {
  return family === "IPv4" ? "icmp-port-unreachable" : "icmp6-port-unreachable";
}

export const rejectTarget: TargetExtension<Reject> = {
  name: "REJECT",
  kind: "REJECT",
  // The kernel's REJECT is a filter-table target: iptables-nft 1.8.9 refuses it in raw, mangle,
  // nat and security chains of every hook (probed in a scratch netns).
  tables: ["filter"],
  hooks: ["INPUT", "FORWARD", "OUTPUT"],
  options: { "--reject-with": { args: 1, negatable: false } },
  build(options, env) {
    const w = single(options, "REJECT").get("--reject-with");
    if (w === undefined) return { kind: "REJECT", rejectWith: defaultRejectWith(env.family) };
    const word = (w.args[0] as string).toLowerCase();
    const row = (env.family === "IPv4" ? V4 : V6).find(
      ([n, a]) => n.startsWith(word) || a.startsWith(word),
    );
    if (row === undefined) fail(`REJECT: unknown reject type "${w.args[0]}"`);
    if (row[0] === "tcp-reset" && (env.protocol?.value !== "tcp" || env.protocol.negated))
      fail(`REJECT: --reject-with tcp-reset is only valid with -p tcp`);
    return { kind: "REJECT", rejectWith: row[0] };
  },
  format: (t, family) => `--reject-with ${t.rejectWith ?? defaultRejectWith(family)}`,
  touches: () => 0,
  apply: () => REJECTED,
};
