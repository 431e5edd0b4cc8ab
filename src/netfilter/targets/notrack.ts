/** `-j NOTRACK` (raw table): the packet skips connection tracking. */
import { UNTRACK, type TargetExtension } from "./extension.js";

type Notrack = { readonly kind: "NOTRACK" };
const VALUE: Notrack = { kind: "NOTRACK" };

export const notrackTarget: TargetExtension<Notrack> = {
  name: "NOTRACK",
  kind: "NOTRACK",
  tables: ["raw"],
  options: {},
  build: () => VALUE,
  format: () => "",
  touches: () => 0,
  apply: () => UNTRACK,
};
