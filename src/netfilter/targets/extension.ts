/**
 * The contract every `-j TARGET` extension implements (jumps to user chains are not
 * extensions: the rule parser makes them, and the walks follow them). `build` checks the
 * options as libxtables does; `format` prints the words `iptables-save` prints after
 * `-j TARGET`; `apply` is what the kernel does to a packet the rule sends to the target, and
 * `touches` names the packet fields that depends on or changes. Both walks of the tracer
 * (trace/walk.ts, trace/fast-walk.ts) act on the `TargetEffect` alone.
 */
import type { IPAddress, IPFamily, PortRange } from "../../net/index.js";
import type { FlowReads, Hook, Packet, TableName } from "../model.js";
import type { BuildEnv, OptionSpec, ParsedOption } from "../matches/extension.js";
import type { FieldSet } from "../packet-fields.js";
import type { Target } from "./index.js";

/** What a target may consult of the node while it acts on a packet. */
export interface TargetEnv {
  /**
   * The address MASQUERADE gives a packet leaving by `outInterface` towards `dst` (the
   * interface's primary address of the family; undefined when it has none).
   */
  masqueradeSource(outInterface: string, dst: IPAddress): IPAddress | undefined;
  /** Told what of the source a NAT choice read, when a trace is recorded for the flow cache. */
  readonly flow: FlowReads | undefined;
}

/**
 * What a target does to the packet, as the walks act on it:
 * - `verdict`: the walk of the table ends (ACCEPT, DROP, REJECT) or the chain returns;
 * - `continue`: the packet goes on to the next rule unchanged (LOG, NFLOG, a no-op CT);
 * - `marks`: it goes on with this packet mark and/or connection mark (undefined: unchanged;
 *   MARK, CONNMARK);
 * - `untrack`: it goes on without connection tracking (NOTRACK, CT --notrack): no NAT later;
 * - `nat`: the first packet's destination (`dst`) or source (`src`) is translated and the
 *   nat table's walk ends with ACCEPT (the kernel returns NF_ACCEPT once the mapping is set
 *   up). `randomPort`: the kernel draws the port at random from this range per connection;
 *   the packet shows `port`.
 */
export type TargetEffect =
  | { readonly kind: "verdict"; readonly verdict: "ACCEPT" | "DROP" | "REJECT" | "RETURN" }
  | { readonly kind: "continue" }
  | {
      readonly kind: "marks";
      readonly mark: number | undefined;
      readonly connmark: number | undefined;
    }
  | { readonly kind: "untrack" }
  | {
      readonly kind: "nat";
      readonly manip: "dst" | "src";
      readonly ip: IPAddress;
      readonly port: number;
      readonly randomPort: PortRange | undefined;
    };

export const ACCEPTED: TargetEffect = { kind: "verdict", verdict: "ACCEPT" };
export const DROPPED: TargetEffect = { kind: "verdict", verdict: "DROP" };
export const REJECTED: TargetEffect = { kind: "verdict", verdict: "REJECT" };
export const RETURNED: TargetEffect = { kind: "verdict", verdict: "RETURN" };
export const CONTINUE: TargetEffect = { kind: "continue" };
export const UNTRACK: TargetEffect = { kind: "untrack" };

export interface TargetExtension<T extends Target> {
  /** The `-j` word. */
  readonly name: string;
  readonly kind: T["kind"];
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Tables the kernel accepts the target in; absent: every table. */
  readonly tables?: readonly TableName[];
  /** Tables iptables refuses the target in, with its message (DROP in nat). */
  readonly refusedIn?: Readonly<Partial<Record<TableName, string>>>;
  /** Hooks the kernel accepts the target from (checked through jumps); absent: every hook. */
  readonly hooks?: readonly Hook[];
  build(options: readonly ParsedOption[], env: BuildEnv): T;
  format(t: T, family: IPFamily): string;
  /** The packet fields (packet-fields.ts) `apply` reads or writes for this instance. */
  touches(t: T): FieldSet;
  /** What the target does to `packet` (see TargetEffect). */
  apply(t: T, packet: Packet, env: TargetEnv): TargetEffect;
  /**
   * Optional: `apply` made ready once per rule for the depth-first walk (what can be decided
   * from the rule alone, decided here); undefined for an instance without a faster form.
   * test/netfilter/semantics.test.ts holds it to `apply`.
   */
  compile?(t: T): TargetApply | undefined;
  /**
   * The range the target maps the source port into, when it names one (`SNAT --to-source
   * A:P-Q`, `MASQUERADE --to-ports`); absent or undefined: none. Then a port left as it was
   * cannot be told from one chosen in the range (trace/flow-cache.ts).
   */
  sourcePorts?(t: T): PortRange | undefined;
}

/** A compiled target: see TargetExtension.compile. */
export type TargetApply = (packet: Packet, env: TargetEnv) => TargetEffect;
