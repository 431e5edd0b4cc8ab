/**
 * `renderIptables(cluster, { proxyConfig?, node })`: kube-proxy's iptables mode on one node.
 * Per family: `restore` (the exact iptables-restore input kube-proxy writes), `save` (what
 * iptables-save prints once it is loaded after kube-proxy's built-in-chain jumps, through the
 * canonical formatter) and `ruleSet` (the node's tables, for the tracer). The top-level fields
 * are the node's first family; `families` has one entry per family (dual stack: two proxiers).
 *
 * The rules are built as data once (no text is parsed back); `restore`, `save` and the node's
 * `ruleSet` are formatted or assembled when first read, so a caller that wants the restore text
 * (`render iptables`, the default format) pays for nothing else.
 */
import type { Cluster } from "../../model/cluster.js";
import { formatIptablesSave } from "../../netfilter/format/index.js";
import type { RuleSet } from "../../netfilter/model.js";
import {
  renderIptablesFamilies,
  type IptablesFamilyRestore,
  type IptablesRenderOptions,
} from "./render.js";

export interface IptablesFamilyRender extends IptablesFamilyRestore {
  readonly save: string;
}

export interface IptablesRender {
  readonly restore: string;
  readonly save: string;
  readonly ruleSet: RuleSet;
  readonly families: readonly IptablesFamilyRender[];
}

class FamilyRender implements IptablesFamilyRender {
  #save: string | undefined;

  constructor(private readonly f: IptablesFamilyRestore) {}

  get family(): IptablesFamilyRestore["family"] {
    return this.f.family;
  }
  get plan(): IptablesFamilyRestore["plan"] {
    return this.f.plan;
  }
  get payload(): RuleSet {
    return this.f.payload;
  }
  get restore(): string {
    return this.f.restore;
  }
  writeRestore(write: (bytes: Uint8Array) => void): void {
    this.f.writeRestore(write);
  }
  get nodeState(): string {
    return this.f.nodeState;
  }
  get ruleSet(): RuleSet {
    return this.f.ruleSet;
  }

  get save(): string {
    this.#save ??= formatIptablesSave(this.ruleSet);
    return this.#save;
  }
}

export function renderIptables(cluster: Cluster, opts: IptablesRenderOptions): IptablesRender {
  const families = renderIptablesFamilies(cluster, opts).map((f) => new FamilyRender(f));
  const first = families[0];
  if (first === undefined) throw new Error("a node has at least one IP family");
  return {
    // Getters: `render iptables` prints the restore bytes and reads none of these.
    get restore() {
      return first.restore;
    },
    get save() {
      return first.save;
    },
    get ruleSet() {
      return first.ruleSet;
    },
    families,
  };
}
