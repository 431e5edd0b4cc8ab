/**
 * Subject classes, per direction: pods whose verdicts as the *subject* of that direction cannot
 * differ. A subject's verdict reads only which policies select it (ANP, NetworkPolicy, BANP for
 * that direction), the IP families it has (which pick the connection's family), and for ingress
 * the named ports it declares (named ports resolve on the destination) and its node (ingress from
 * the pod's own node). Everything about the other end is in the peer's class (classes.ts).
 */
import type { CompiledPolicies, Direction } from "./compiled.js";
import type { PodFacts } from "./facts.js";
import type { PolicyOptions } from "./options.js";
import { selectPolicies, type SubjectPolicies } from "./select.js";

export interface SubjectClasses {
  readonly classOf: Int32Array;
  readonly representatives: readonly PodFacts[];
  readonly selections: readonly SubjectPolicies[];
  /** True when no policy of any tier selects the class: the direction always allows. */
  readonly open: readonly boolean[];
}

export function subjectClasses(
  cp: CompiledPolicies,
  opts: PolicyOptions,
  dir: Direction,
  pods: readonly PodFacts[],
  portNames: ReadonlySet<string>,
  nodeMatters: boolean,
): SubjectClasses {
  const ids = new Map<object, number>();
  const idOf = (o: object): number => {
    let id = ids.get(o);
    if (id === undefined) {
      id = ids.size;
      ids.set(o, id);
    }
    return id;
  };
  const keys = new Map<string, number>();
  const representatives: PodFacts[] = [];
  const selections: SubjectPolicies[] = [];
  const open: boolean[] = [];
  const classOf = new Int32Array(pods.length);
  for (const [i, pod] of pods.entries()) {
    const sel = selectPolicies(cp, opts, dir, pod);
    const parts = [
      sel.admin.map(idOf).join(","),
      sel.network.map(idOf).join(","),
      sel.baseline.map(idOf).join(","),
      pod.ips.map((ip) => ip.family).join(","),
    ];
    if (dir === "Ingress") {
      parts.push(
        pod.containerPorts
          .filter((c) => c.name !== undefined && portNames.has(c.name))
          .map((c) => `${c.name ?? ""}/${c.protocol}/${c.port}`)
          .sort()
          .join(","),
      );
      if (nodeMatters) parts.push(pod.nodeName ?? "");
    }
    const key = parts.join("|");
    let id = keys.get(key);
    if (id === undefined) {
      id = representatives.length;
      keys.set(key, id);
      representatives.push(pod);
      selections.push(sel);
      open.push(sel.admin.length === 0 && sel.network.length === 0 && sel.baseline.length === 0);
    }
    classOf[i] = id;
  }
  return { classOf, representatives, selections, open };
}
