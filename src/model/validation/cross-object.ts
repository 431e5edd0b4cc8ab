/**
 * Warnings about relations between objects that the API server does not check but a user would
 * want to know about: an EndpointSlice whose Service is missing, a Pod bound to a Node the
 * manifests do not declare (only when they declare some Node), two pods sharing an IP (host-network
 * pods excluded: they share their node's), and a NetworkPolicy named port that no pod it could
 * apply to declares (ingress: the pods the policy selects; egress: any pod). Never errors.
 */
import type { ClusterObjects } from "../cluster.js";
import { positionOf } from "../field-positions.js";
import type { Issue } from "../issue.js";
import type { Pod } from "../kinds.js";
import type { LoadedObject } from "../load.js";
import { matchesLabelSelector } from "../selector.js";
import { SERVICE_NAME_LABEL } from "../cluster-index.js";
import { canonicalIP, portNameProblems } from "../../net/index.js";

function warn(o: LoadedObject, path: readonly (string | number)[], message: string): Issue {
  return {
    code: "cross-object",
    severity: "warning",
    message,
    source: positionOf(o.positions, path) ?? o.source,
    object: o.ref,
    path,
  };
}

function declaresPort(pod: Pod, name: string, protocol: string): boolean {
  return (pod.spec?.containers ?? []).some((c) =>
    (c.ports ?? []).some((p) => p.name === name && (p.protocol ?? "TCP") === protocol),
  );
}

/**
 * `services`: the Services of `objects` by `namespace/name` (the loader has them already, for
 * Endpoints mirroring).
 */
export function crossObjectWarnings(
  objects: ClusterObjects,
  loaded: readonly LoadedObject[],
  services: ReadonlyMap<string, unknown>,
): Issue[] {
  const out: Issue[] = [];
  const nodes = new Set((objects.nodes ?? []).map((n) => n.metadata?.name));
  const pods = objects.pods ?? [];
  const podIPOwner = new Map<string, string>();
  for (const o of loaded) {
    switch (o.kind) {
      case "EndpointSlice": {
        const labels = (o.value["metadata"] as { labels?: Record<string, string> } | undefined)
          ?.labels;
        const svc = labels?.[SERVICE_NAME_LABEL];
        if (svc !== undefined && !services.has(`${o.ref.namespace}/${svc}`))
          out.push(
            warn(
              o,
              ["metadata", "labels"],
              `Service ${o.ref.namespace}/${svc} named by label ${SERVICE_NAME_LABEL} is not in the manifests`,
            ),
          );
        break;
      }
      case "Pod": {
        const pod = o.value as unknown as Pod;
        const nodeName = pod.spec?.nodeName;
        if (nodeName !== undefined && nodeName !== "" && nodes.size > 0 && !nodes.has(nodeName))
          out.push(
            warn(
              o,
              ["spec", "nodeName"],
              `Node ${JSON.stringify(nodeName)} is not in the manifests`,
            ),
          );
        if (pod.spec?.hostNetwork === true) break;
        (pod.status?.podIPs ?? []).forEach((entry, i) => {
          const ip = canonicalIP(entry.ip ?? "");
          if (ip === undefined) return;
          const owner = podIPOwner.get(ip);
          const me = `${o.ref.namespace}/${o.ref.name}`;
          if (owner !== undefined && owner !== me)
            out.push(
              warn(o, ["status", "podIPs", i, "ip"], `pod IP ${ip} is also the IP of pod ${owner}`),
            );
          else podIPOwner.set(ip, me);
        });
        break;
      }
      case "NetworkPolicy": {
        const spec = (o.value as { spec?: import("../kinds.js").NetworkPolicy["spec"] }).spec;
        const ns = o.ref.namespace;
        const selected = pods.filter(
          (p) =>
            p.metadata?.namespace === ns &&
            matchesLabelSelector(spec?.podSelector ?? {}, p.metadata?.labels),
        );
        for (const dir of ["ingress", "egress"] as const)
          (spec?.[dir] ?? []).forEach((rule, i) =>
            (rule.ports ?? []).forEach((port, j) => {
              if (typeof port.port !== "string" || portNameProblems(port.port).length > 0) return;
              const protocol = port.protocol ?? "TCP";
              const candidates = dir === "ingress" ? selected : pods;
              if (!candidates.some((p) => declaresPort(p, port.port as string, protocol)))
                out.push(
                  warn(
                    o,
                    ["spec", dir, i, "ports", j, "port"],
                    `named port ${JSON.stringify(port.port)} (${protocol}) is not declared by any ${dir === "ingress" ? "pod this policy selects" : "pod"}`,
                  ),
                );
            }),
          );
        break;
      }
      default:
        break;
    }
  }
  return out;
}
