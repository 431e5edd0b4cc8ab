/** The standard verdicts: `-j ACCEPT`, `-j DROP`, `-j RETURN` (no options). */
import type { TargetExtension } from "./extension.js";

type Verdict<K extends "ACCEPT" | "DROP" | "RETURN"> = { readonly kind: K };

function verdict<K extends "ACCEPT" | "DROP" | "RETURN">(kind: K): TargetExtension<Verdict<K>> {
  const value: Verdict<K> = { kind };
  return { name: kind, kind, options: {}, build: () => value, format: () => "" };
}

export const acceptTarget = verdict("ACCEPT");
export const dropTarget = verdict("DROP");
export const returnTarget = verdict("RETURN");
