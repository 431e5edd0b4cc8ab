/**
 * The union of every iptables target (`-j`/`-g`). Each target's parse/format lives in
 * targets/<name>.ts; semantics are the tracer's. Field shapes here are the contract between the
 * parser (which fills them) and the tracer (which acts on them).
 */
import type { IPAddress } from "../../net/index.js";
import type { PortRange } from "../../net/index.js";

/** `--to-destination`/`--to-source` value: `ip[-ip][:port[-port]]`, either part optional. */
export interface NatRange {
  readonly ipFrom?: IPAddress;
  readonly ipTo?: IPAddress;
  readonly ports?: PortRange;
}

export type Target =
  | { readonly kind: "ACCEPT" }
  | { readonly kind: "DROP" }
  | { readonly kind: "RETURN" }
  /** A user chain: `-j CHAIN` (goto false) or `-g CHAIN` (goto true). */
  | { readonly kind: "jump"; readonly chain: string; readonly goto: boolean }
  | { readonly kind: "REJECT"; readonly rejectWith?: string }
  | {
      readonly kind: "DNAT";
      readonly to: NatRange;
      readonly random: boolean;
      readonly persistent: boolean;
    }
  | {
      readonly kind: "SNAT";
      readonly to: NatRange;
      readonly random: boolean;
      readonly randomFully: boolean;
      readonly persistent: boolean;
    }
  | {
      readonly kind: "MASQUERADE";
      readonly toPorts?: PortRange;
      readonly random: boolean;
      readonly randomFully: boolean;
    }
  /** Every MARK form reduces to `mark = (mark & ~mask) ^ value` (what the kernel does). */
  | {
      readonly kind: "MARK";
      readonly value: number;
      readonly mask: number;
      /** How it was written, for the restore form: set-xmark, set-mark, or-mark, and-mark, xor-mark. */
      readonly op: "set-xmark" | "set-mark" | "or-mark" | "and-mark" | "xor-mark";
    }
  | {
      readonly kind: "CONNMARK";
      /** set: ctmark = (ctmark & ~mask) ^ value; save: ctmark from nfmark; restore: nfmark from ctmark. */
      readonly op: "set" | "save" | "restore";
      readonly value: number;
      readonly mask: number;
      readonly nfmask: number;
      readonly ctmask: number;
    }
  | { readonly kind: "LOG"; readonly options: readonly string[] }
  | { readonly kind: "NFLOG"; readonly options: readonly string[] }
  | { readonly kind: "NOTRACK" }
  | { readonly kind: "CT"; readonly notrack: boolean; readonly options: readonly string[] };

export type TargetKind = Target["kind"];
