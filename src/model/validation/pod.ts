/**
 * Pod validation for the fields kube-netsim reads: metadata, containers (names, ports, host
 * ports) and the status IPs kubelet reports (checked as a status update would be).
 */
import { portNameProblems } from "../../net/index.js";
import type { Container } from "kubernetes-types/core/v1.js";
import type { Pod } from "../kinds.js";
import { duplicate, invalid, required, type FieldIssue, type FieldPath } from "./field-issue.js";
import { checkIP } from "./ip-fields.js";
import { validateObjectMeta } from "./meta.js";
import { dns1123LabelProblems, dns1123SubdomainProblems, inclusiveRangeError } from "./names.js";
import { checkProtocol, strictIPs, type ValidationContext } from "./context.js";

function portNum(n: number): string[] {
  return n >= 1 && n <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

function validateContainerPorts(
  ctx: ValidationContext,
  c: Container,
  path: FieldPath,
): FieldIssue[] {
  const out: FieldIssue[] = [];
  const names = new Set<string>();
  (c.ports ?? []).forEach((port, i) => {
    const p = [...path, i];
    const name = port.name ?? "";
    if (name !== "") {
      const problems = portNameProblems(name);
      if (problems.length > 0) for (const m of problems) out.push(invalid([...p, "name"], name, m));
      else if (names.has(name)) out.push(duplicate([...p, "name"], name));
      else names.add(name);
    }
    const cp = port.containerPort ?? 0;
    if (cp === 0) out.push(required([...p, "containerPort"]));
    else for (const m of portNum(cp)) out.push(invalid([...p, "containerPort"], cp, m));
    const hp = port.hostPort ?? 0;
    if (hp !== 0) for (const m of portNum(hp)) out.push(invalid([...p, "hostPort"], hp, m));
    const protocol = port.protocol ?? "";
    if (protocol === "") out.push(required([...p, "protocol"]));
    else out.push(...checkProtocol(ctx, [...p, "protocol"], protocol, "sorted"));
    if ((port.hostIP ?? "") !== "")
      out.push(...checkIP([...p, "hostIP"], port.hostIP ?? "", strictIPs(ctx)).issues);
  });
  return out;
}

export function validatePod(ctx: ValidationContext, pod: Pod): FieldIssue[] {
  const out = validateObjectMeta(pod.metadata, true, dns1123SubdomainProblems);
  const spec = pod.spec;
  const containers = spec?.containers ?? [];
  if (containers.length === 0) out.push(required(["spec", "containers"]));
  const names = new Set<string>();
  const groups: [string, readonly Container[]][] = [
    ["initContainers", spec?.initContainers ?? []],
    ["containers", containers],
  ];
  for (const [field, list] of groups)
    list.forEach((c, i) => {
      const p = ["spec", field, i];
      const name = c.name ?? "";
      if (name === "") out.push(required([...p, "name"]));
      else {
        for (const m of dns1123LabelProblems(name)) out.push(invalid([...p, "name"], name, m));
        if (names.has(name)) out.push(duplicate([...p, "name"], name));
        names.add(name);
      }
      out.push(...validateContainerPorts(ctx, c, [...p, "ports"]));
      if (spec?.hostNetwork === true)
        (c.ports ?? []).forEach((port, j) => {
          if ((port.hostPort ?? 0) !== (port.containerPort ?? 0))
            out.push(
              invalid(
                [...p, "ports", j, "containerPort"],
                port.containerPort ?? 0,
                "must match `hostPort` when `hostNetwork` is true",
              ),
            );
        });
    });
  // AccumulateUniqueHostPorts: one host port per (hostIP, protocol, port).
  const hostPorts = new Set<string>();
  containers.forEach((c, i) =>
    (c.ports ?? []).forEach((port, j) => {
      const hp = port.hostPort ?? 0;
      if (hp === 0) return;
      const key = `${port.hostIP ?? ""}/${port.protocol ?? ""}/${hp}`;
      if (hostPorts.has(key))
        out.push(duplicate(["spec", "containers", i, "ports", j, "hostPort"], key));
      hostPorts.add(key);
    }),
  );
  if (spec?.nodeName !== undefined && spec.nodeName !== "")
    for (const m of dns1123SubdomainProblems(spec.nodeName))
      out.push(invalid(["spec", "nodeName"], spec.nodeName, m));
  out.push(...validatePodIPs(ctx, pod));
  out.push(...duplicatePortNameWarnings(pod));
  return out;
}

function validatePodIPs(ctx: ValidationContext, pod: Pod): FieldIssue[] {
  const out: FieldIssue[] = [];
  const status = pod.status;
  for (const field of ["podIPs", "hostIPs"] as const) {
    const list = status?.[field] ?? [];
    const path = ["status", field];
    const families: string[] = [];
    let bad = false;
    list.forEach((entry, i) => {
      const r = checkIP([...path, i, "ip"], entry.ip ?? "", strictIPs(ctx));
      out.push(...r.issues);
      if (r.ip === undefined) bad = true;
      else families.push(r.ip.family);
    });
    if (!bad && list.length > 1) {
      if (list.length > 2 || families[0] === families[1])
        out.push(invalid(path, list, "may specify no more than one IP for each IP family"));
      const seen = new Set<string>();
      list.forEach((entry, i) => {
        if (seen.has(entry.ip ?? "")) out.push(duplicate([...path, i], entry));
        seen.add(entry.ip ?? "");
      });
    }
  }
  const podIP = status?.podIP;
  const first = status?.podIPs?.[0]?.ip;
  if (podIP !== undefined && first !== undefined && podIP !== first)
    out.push({
      code: "invalid",
      severity: "warning",
      message: `status.podIP ${JSON.stringify(podIP)} differs from status.podIPs[0] ${JSON.stringify(first)}; podIPs wins`,
      path: ["status", "podIP"],
    });
  return out;
}

/** The API server's warning for a port name used by two containers (GetWarningsForPod). */
function duplicatePortNameWarnings(pod: Pod): FieldIssue[] {
  const out: FieldIssue[] = [];
  const first = new Map<string, string>();
  (pod.spec?.containers ?? []).forEach((c, i) =>
    (c.ports ?? []).forEach((port, j) => {
      const name = port.name ?? "";
      if (name === "") return;
      const here = `spec.containers[${i}].ports[${j}]`;
      const prev = first.get(name);
      if (prev === undefined) first.set(name, here);
      else if (!prev.startsWith(`spec.containers[${i}].`))
        out.push({
          code: "duplicate",
          severity: "warning",
          message: `${here}: duplicate port name ${JSON.stringify(name)} with ${prev}, services and probes that select ports by name will use ${prev}`,
          path: ["spec", "containers", i, "ports", j, "name"],
        });
    }),
  );
  return out;
}
