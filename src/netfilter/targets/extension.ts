/**
 * The contract every `-j TARGET` extension implements (jumps to user chains are not
 * extensions: the rule parser makes them). `build` checks the options as libxtables does;
 * `format` prints the words `iptables-save` prints after `-j TARGET`.
 */
import type { IPFamily } from "../../net/index.js";
import type { Hook, TableName } from "../model.js";
import type { BuildEnv, OptionSpec, ParsedOption } from "../matches/extension.js";
import type { Target } from "./index.js";

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
}
