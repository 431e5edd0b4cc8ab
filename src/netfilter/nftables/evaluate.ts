/**
 * Runs one nftables chain over a packet, as the kernel's nft_do_chain does: rules in order,
 * statements left to right, a failed match or map miss ends the rule; `jump` pushes, `goto`
 * replaces the frame, `return` (or the end of a chain) pops; at a base chain the policy
 * applies. `numgen random mod N vmap` splits into N equally likely branches, so the result is
 * every outcome with its exact probability. NAT statements (`dnat`, `masquerade`) and
 * `reject` end evaluation like the kernel's NF_ACCEPT/NF_DROP they return. Statements this
 * model does not know cannot occur: the Statement union is closed.
 */
import { OperationalError } from "../../issue/operational-error.js";
import { assertNever } from "../../util/assert-never.js";
import { matchAtom, type NftPacket } from "./match-atom.js";
import type {
  DataType,
  Expr,
  NamedSet,
  NatFlag,
  RejectWith,
  Statement,
  Table,
  Verdict,
} from "./model.js";

/** What the rules have done to the packet by the end of a branch. */
export interface NatAction {
  /** `redirect`: a DNAT to the packet's incoming interface (127.0.0.1 / ::1 on output). */
  readonly kind: "dnat" | "masquerade" | "snat" | "redirect";
  readonly address?: string;
  /** The last address of a range (`snat to a-b`). */
  readonly addressTo?: string;
  readonly port?: number;
  /** The last port of a range (`:80-90`). */
  readonly portTo?: number;
  readonly fullyRandom?: boolean;
  /** `random`, `fully-random`, `persistent` (snat, redirect). */
  readonly flags?: readonly NatFlag[];
}

export type Final =
  | { readonly kind: "accept" }
  | { readonly kind: "drop" }
  | { readonly kind: "reject" }
  /** A NAT statement ran (the chain's evaluation ends with accept). */
  | { readonly kind: "nat"; readonly nat: NatAction };

export interface Branch {
  readonly probability: number;
  readonly packet: NftPacket;
  readonly final: Final;
  /** `chain#ruleIndex` (1-based) of every rule that matched, in order. */
  readonly path: readonly string[];
  /** Dynamic set updates (`update @set { key }`), in order. */
  readonly updates: readonly { readonly set: string; readonly key: readonly string[] }[];
}

export interface EvalEnv {
  /** `fib ... type local`. */
  readonly isLocal: (ip: string) => boolean;
  /** Current contents of dynamic sets (e.g. affinity), keyed by set name. */
  readonly dynamic?: ReadonlyMap<string, readonly (readonly string[])[]>;
}

interface Partial {
  readonly probability: number;
  readonly packet: NftPacket;
  readonly path: readonly string[];
  readonly updates: Branch["updates"];
  /** undefined: the chain returned to its caller. */
  readonly final: Final | undefined;
}

const MAX_DEPTH = 64;

export class NftEvaluator {
  private readonly chains: Map<string, Table["chains"][number]>;
  private readonly sets: Map<string, NamedSet>;

  constructor(
    readonly table: Table,
    readonly env: EvalEnv,
  ) {
    this.chains = new Map(table.chains.map((c) => [c.name, c]));
    this.sets = new Map(table.sets.map((s) => [s.name, s]));
  }

  /** Runs a base chain: a branch that returns gets the chain's policy. */
  runBase(chainName: string, packet: NftPacket): Branch[] {
    const chain = this.chains.get(chainName);
    if (chain === undefined) throw new Error(`no chain ${chainName} in table ${this.table.name}`);
    const policy: Final = chain.base?.policy === "drop" ? { kind: "drop" } : { kind: "accept" };
    return this.runChain(
      chainName,
      { probability: 1, packet, path: [], updates: [], final: undefined },
      0,
    ).map((p) => ({ ...p, final: p.final ?? policy }));
  }

  private runChain(name: string, start: Partial, depth: number): Partial[] {
    // A ruleset given as text (a node's state) may loop or name no chain: the trace gives up.
    if (depth > MAX_DEPTH)
      throw new OperationalError(
        "trace-limit",
        `chain ${name}: jumps nest deeper than ${MAX_DEPTH}`,
      );
    const chain = this.chains.get(name);
    if (chain === undefined)
      throw new OperationalError("trace-limit", `jump to missing chain ${name}`);
    return this.runRules(name, 0, start, depth);
  }

  /** Rules from index `from` on; each result has either a final or returned. */
  private runRules(chain: string, from: number, state: Partial, depth: number): Partial[] {
    const rules = this.chains.get(chain)?.rules ?? [];
    for (let i = from; i < rules.length; i++) {
      const rule = rules[i];
      if (rule === undefined) continue;
      const outcome = this.runStatements(chain, i, rule.statements, 0, state, depth);
      if (outcome === "no-match") continue;
      return outcome;
    }
    return [state];
  }

  /**
   * Statements `k..` of rule `i`. "no-match" when a match fails before any branching; after a
   * split each branch carries on by itself.
   */
  private runStatements(
    chain: string,
    i: number,
    stmts: readonly Statement[],
    k: number,
    state: Partial,
    depth: number,
  ): Partial[] | "no-match" {
    const here = `${chain}#${i + 1}`;
    let s = state;
    for (let j = k; j < stmts.length; j++) {
      const st = stmts[j] as Statement;
      switch (st.kind) {
        case "match":
          if (!this.matches(st.left, st.op, st.right, s.packet)) return "no-match";
          continue;
        case "counter":
          continue;
        case "mark-set":
          s = { ...s, packet: { ...s.packet, mark: this.numeric(st.value, s.packet) >>> 0 } };
          continue;
        case "set-update": {
          const key = this.keyOf(st.key, s.packet);
          s = { ...s, updates: [...s.updates, { set: st.set, key }] };
          continue;
        }
        case "reject":
          // nft adds the dependency of `with tcp reset` (meta l4proto tcp) and, in inet, of a
          // family's ICMP kind (meta nfproto): other packets do not match the rule.
          if (!rejectApplies(st.with, s.packet)) return "no-match";
          return [{ ...s, path: [...s.path, here], final: { kind: "reject" } }];
        case "log":
          continue;
        case "limit":
          // Model: every packet is under the limit (docs/nftables-proxier.md, engine).
          if (st.over) return "no-match";
          continue;
        case "ct-mark-set":
          s = { ...s, packet: { ...s.packet, ctMark: this.numeric(st.value, s.packet) >>> 0 } };
          continue;
        case "notrack":
          s = { ...s, packet: { ...s.packet, ctState: "untracked", ctStatus: [] } };
          continue;
        case "snat":
          return [
            {
              ...s,
              path: [...s.path, here],
              final: {
                kind: "nat",
                nat: {
                  kind: "snat",
                  address: st.to.address,
                  ...(st.to.addressTo !== undefined ? { addressTo: st.to.addressTo } : {}),
                  ...(st.to.port !== undefined ? { port: st.to.port } : {}),
                  ...(st.to.portTo !== undefined ? { portTo: st.to.portTo } : {}),
                  flags: st.flags,
                },
              },
            },
          ];
        case "redirect":
          return [
            {
              ...s,
              path: [...s.path, here],
              final: {
                kind: "nat",
                nat: {
                  kind: "redirect",
                  ...(st.port !== undefined ? { port: st.port } : {}),
                  ...(st.portTo !== undefined ? { portTo: st.portTo } : {}),
                  flags: st.flags,
                },
              },
            },
          ];
        case "masquerade":
          return [
            {
              ...s,
              path: [...s.path, here],
              final: { kind: "nat", nat: { kind: "masquerade", fullyRandom: st.fullyRandom } },
            },
          ];
        case "dnat":
          return [
            {
              ...s,
              path: [...s.path, here],
              final: {
                kind: "nat",
                nat: {
                  kind: "dnat",
                  address: st.address,
                  ...(st.port !== undefined ? { port: st.port } : {}),
                },
              },
            },
          ];
        case "verdict":
          return this.applyVerdict(chain, i, st.verdict, { ...s, path: [...s.path, here] }, depth);
        case "vmap": {
          if (st.key.kind === "numgen") {
            if (st.map.kind !== "vmap-literal")
              throw new Error(`${here}: numgen vmap over a named map is not modelled`);
            const n = st.key.mod;
            const out: Partial[] = [];
            for (let v = 0; v < n; v++) {
              const entry = st.map.entries.find((e) => Number(e.key) === v);
              if (entry === undefined) continue; // no element: the rule does not match this value
              out.push(
                ...this.applyVerdict(
                  chain,
                  i,
                  entry.verdict,
                  { ...s, probability: s.probability / n, path: [...s.path, here] },
                  depth,
                ),
              );
            }
            // Values without an element fall through to the next rule.
            const missing = n - st.map.entries.filter((e) => Number(e.key) < n).length;
            if (missing > 0)
              out.push(
                ...this.runRules(
                  chain,
                  i + 1,
                  { ...s, probability: (s.probability * missing) / n },
                  depth,
                ),
              );
            return out;
          }
          const key = this.keyOf(st.key, s.packet);
          const verdict = this.lookupVerdict(st.map, st.key, key);
          if (verdict === undefined) return "no-match";
          return this.applyVerdict(chain, i, verdict, { ...s, path: [...s.path, here] }, depth);
        }
        default:
          return assertNever(st);
      }
    }
    // The rule ran to its end without a verdict: next rule.
    return this.runRules(chain, i + 1, { ...s, path: [...s.path, here] }, depth);
  }

  private applyVerdict(chain: string, i: number, v: Verdict, s: Partial, depth: number): Partial[] {
    switch (v.kind) {
      case "accept":
        return [{ ...s, final: { kind: "accept" } }];
      case "drop":
        return [{ ...s, final: { kind: "drop" } }];
      case "return":
        return [s];
      case "continue":
        return this.runRules(chain, i + 1, s, depth);
      case "goto":
        return this.runChain(v.chain, s, depth + 1);
      case "jump":
        return this.runChain(v.chain, s, depth + 1).flatMap((r) =>
          r.final !== undefined ? [r] : this.runRules(chain, i + 1, r, depth),
        );
      default:
        return assertNever(v);
    }
  }

  private lookupVerdict(
    map: Extract<Statement, { kind: "vmap" }>["map"],
    keyExpr: Expr,
    key: readonly string[],
  ): Verdict | undefined {
    if (map.kind === "vmap-literal") {
      const types = this.typesOf(keyExpr);
      return map.entries.find((e) => matchAtom(types[0], key[0] ?? "", e.key))?.verdict;
    }
    const set = this.sets.get(map.name);
    if (set === undefined) throw new Error(`vmap: no map @${map.name}`);
    for (const e of set.elements) {
      if (
        e.key.every((k, idx) => matchAtom(set.keyType[idx], key[idx] ?? "", k)) &&
        e.value?.kind === "verdict"
      )
        return e.value.verdict;
    }
    return undefined;
  }

  private typesOf(e: Expr): (DataType | undefined)[] {
    return e.kind === "concat" ? e.parts.map((p) => typeOfExpr(p)) : [typeOfExpr(e)];
  }

  /** The packet's value for `e`, one string per concatenated component ("" when absent). */
  private keyOf(e: Expr, p: NftPacket): string[] {
    if (e.kind === "concat") return e.parts.flatMap((x) => this.keyOf(x, p));
    return [valueOf(e, p, this.env)];
  }

  private numeric(e: Expr, p: NftPacket): number {
    switch (e.kind) {
      case "value":
        return Number(e.text);
      case "meta":
        return e.key === "mark" ? p.mark : Number(valueOf(e, p, this.env));
      case "ct":
        return e.key === "mark" ? (p.ctMark ?? 0) : Number(valueOf(e, p, this.env));
      case "bitwise": {
        const l = this.numeric(e.left, p);
        const r = Number(e.right.text);
        return e.op === "and" ? l & r : e.op === "or" ? l | r : l ^ r;
      }
      default:
        return Number(valueOf(e, p, this.env));
    }
  }

  private matches(left: Expr, op: "==" | "!=", right: Expr, p: NftPacket): boolean {
    const hit = this.matchesEq(left, right, p);
    return op === "==" ? hit : !hit;
  }

  private matchesEq(left: Expr, right: Expr, p: NftPacket): boolean {
    if (left.kind === "bitwise")
      return (
        this.numeric(left, p) >>> 0 === Number(right.kind === "value" ? right.text : NaN) >>> 0
      );
    const types = this.typesOf(left);
    const key = this.keyOf(left, p);
    if (key.some((k) => k === "")) return false; // e.g. `ip saddr` on an IPv6 packet
    switch (right.kind) {
      case "value":
        if (left.kind === "ct" && left.key === "state")
          return right.text.split(",").includes(key[0] ?? "");
        if (left.kind === "ct" && left.key === "status")
          return right.text.split(",").some((x) => p.ctStatus.includes(x));
        return matchAtom(types[0], key[0] ?? "", right.text);
      case "set-literal":
        return right.elements.some((el) => matchAtom(types[0], key[0] ?? "", el));
      case "set-ref": {
        const set = this.sets.get(right.name);
        if (set === undefined) throw new Error(`no set @${right.name}`);
        const rows: readonly (readonly string[])[] = set.flags.includes("dynamic")
          ? (this.env.dynamic?.get(right.name) ?? [])
          : set.elements.map((e) => e.key);
        return rows.some((row) =>
          row.every((k, idx) => matchAtom(set.keyType[idx], key[idx] ?? "", k)),
        );
      }
      default:
        throw new Error(`match: right-hand side ${right.kind} is not modelled`);
    }
  }
}

/** Whether a `reject` applies to the packet (its implicit protocol or family dependency). */
function rejectApplies(w: RejectWith | undefined, p: NftPacket): boolean {
  if (w === undefined) return true;
  switch (w.kind) {
    case "tcp reset":
      return p.protocol === "tcp";
    case "icmp":
      return p.family === "ip";
    case "icmpv6":
      return p.family === "ip6";
    case "icmpx":
      return true;
    default:
      return assertNever(w);
  }
}

function typeOfExpr(e: Expr): DataType | undefined {
  switch (e.kind) {
    case "ct":
      return e.key === "mark" ? "mark" : undefined;
    case "payload":
      if (e.field === "saddr" || e.field === "daddr")
        return e.protocol === "ip6" ? "ipv6_addr" : "ipv4_addr";
      return "inet_service";
    case "meta":
      return e.key === "l4proto"
        ? "inet_proto"
        : e.key === "mark"
          ? "mark"
          : e.key === "nfproto"
            ? undefined
            : "ifname";
    default:
      return undefined;
  }
}

const PORTED = new Set(["tcp", "udp", "sctp"]);

function valueOf(e: Expr, p: NftPacket, env: EvalEnv): string {
  switch (e.kind) {
    case "payload": {
      if (e.protocol === "ip" || e.protocol === "ip6") {
        if ((e.protocol === "ip") !== (p.family === "ip")) return "";
        return e.field === "saddr" ? p.src : e.field === "daddr" ? p.dst : "";
      }
      if (e.protocol !== "th" && e.protocol !== p.protocol) return "";
      if (!PORTED.has(p.protocol)) return "";
      return String(e.field === "sport" ? p.sport : e.field === "dport" ? p.dport : "");
    }
    case "meta":
      switch (e.key) {
        case "l4proto":
          return p.protocol;
        case "mark":
          return String(p.mark);
        case "iifname":
          return p.iifname ?? "";
        case "oifname":
          return p.oifname ?? "";
        case "nfproto":
          return p.family === "ip" ? "ipv4" : "ipv6";
      }
      return "";
    case "ct":
      return e.key === "state"
        ? p.ctState
        : e.key === "mark"
          ? String(p.ctMark ?? 0)
          : p.ctStatus.join(",");
    case "fib":
      return env.isLocal(e.flag === "saddr" ? p.src : p.dst) ? "local" : "unicast";
    case "value":
      return e.text;
    case "numgen":
    case "concat":
    case "bitwise":
    case "set-literal":
    case "set-ref":
      throw new Error(`${e.kind} is not a packet value here`);
    default:
      return assertNever(e);
  }
}
