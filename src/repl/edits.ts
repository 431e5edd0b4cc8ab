/**
 * The REPL's edit verbs as pure functions from the current snapshot to an `Edit` (objects to
 * remove, manifest text to add). They never validate: `rebuild` does that with the loader, so
 * `set svc default/web spec.type=Bogus` is refused with the API server's own message.
 */
import { produce } from "immer";
import { parse as parseYamlValue, stringify } from "yaml";
import type { Cluster } from "../model/cluster.js";
import { isRecord, type PlainRecord } from "../util/plain.js";
import type { Edit } from "./rebuild.js";
import { keyOf, objectsOf, refOf, type SessionObject } from "./objects.js";
import { parseIP } from "../net/index.js";
import { inputIssue, ValidationError } from "../issue/validation-error.js";

/** An edit the user typed that does not say one (no field path, no value, not an address): bad input. */
export class EditError extends ValidationError {
  constructor(message: string) {
    super([inputIssue("invalid", message)]);
    this.name = "EditError";
  }
}

/** The label edits carry in issue positions (no file: the user typed them). */
export const EDIT_FILE = "<edit>";

function replaceWith(objects: readonly SessionObject[], values: readonly PlainRecord[]): Edit {
  return {
    remove: objects.map(keyOf),
    add: { file: EDIT_FILE, text: values.map((v) => stringify(v)).join("---\n") },
  };
}

/**
 * `spec.ports[0].port`, `spec.ports.0.port`, `metadata.labels["app.kubernetes.io/name"]`: a
 * name, then `.name` or `[index]` or `["key"]` steps. A dot must lead to a name, so `spec..port`,
 * `.spec` and `spec.` are not paths (they would silently mean `spec.port` and `spec`).
 */
export function parseFieldPath(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  const re = /(\.)?([^.[\]]+)|\[(\d+)\]|\["([^"]*)"\]|\['([^']*)'\]/gy;
  let m: RegExpExecArray | null;
  let last = 0;
  while ((m = re.exec(path)) !== null) {
    last = re.lastIndex;
    const name = m[2];
    if (name !== undefined) {
      // The first step is a bare name; every later name step follows a dot.
      if ((m[1] !== undefined) !== out.length > 0) break;
      out.push(/^\d+$/.test(name) ? Number(name) : name);
    } else if (m[3] !== undefined) out.push(Number(m[3]));
    else out.push(m[4] ?? m[5] ?? "");
  }
  if (m !== null || last !== path.length || out.length === 0)
    throw new EditError(`"${path}" is not a field path (e.g. spec.ports[0].port)`);
  return out;
}

/** The value after `=`: YAML, so `80` is a number, `true` a boolean, `[a, b]` a list. */
export function parseValue(text: string): unknown {
  try {
    return parseYamlValue(text) as unknown;
  } catch {
    return text;
  }
}

function setIn(
  target: PlainRecord | unknown[],
  path: readonly (string | number)[],
  value: unknown,
) {
  let cur: PlainRecord | unknown[] = target;
  path.forEach((seg, i) => {
    const last = i === path.length - 1;
    const next = path[i + 1];
    const get = (): unknown => (cur as Record<string | number, unknown>)[seg];
    if (last) {
      if (value === null) {
        if (Array.isArray(cur) && typeof seg === "number") cur.splice(seg, 1);
        else delete (cur as Record<string | number, unknown>)[seg];
      } else (cur as Record<string | number, unknown>)[seg] = value;
      return;
    }
    let child = get();
    if (!isRecord(child) && !Array.isArray(child)) {
      child = typeof next === "number" ? [] : {};
      (cur as Record<string | number, unknown>)[seg] = child;
    }
    cur = child as PlainRecord | unknown[];
  });
}

/** `set KIND NAME path=value...`; `path=null` removes the field. */
export function setFields(o: SessionObject, assignments: readonly string[]): Edit {
  if (assignments.length === 0) throw new EditError("nothing to set: give field.path=value");
  const value = produce(o.value, (draft) => {
    for (const a of assignments) {
      const eq = a.indexOf("=");
      if (eq <= 0) throw new EditError(`"${a}" is not field.path=value`);
      const path = parseFieldPath(a.slice(0, eq));
      if (path[0] === "kind" || path[0] === "apiVersion")
        throw new EditError(`${String(path[0])} cannot be changed`);
      setIn(draft, path, parseValue(a.slice(eq + 1)));
    }
  });
  return replaceWith([o], [value]);
}

/** `label KIND NAME key=value... key-` (kubectl label, overwriting). */
export function setLabels(o: SessionObject, assignments: readonly string[]): Edit {
  if (assignments.length === 0) throw new EditError("no labels given: key=value or key-");
  const value = produce(o.value, (draft) => {
    const meta = (draft["metadata"] ??= {}) as PlainRecord;
    const labels = (meta["labels"] ??= {}) as Record<string, string>;
    for (const a of assignments) {
      if (a.endsWith("-") && !a.includes("=")) delete labels[a.slice(0, -1)];
      else {
        const eq = a.indexOf("=");
        if (eq <= 0) throw new EditError(`"${a}" is not key=value or key-`);
        labels[a.slice(0, eq)] = a.slice(eq + 1);
      }
    }
  });
  return replaceWith([o], [value]);
}

export function deleteObjects(cluster: Cluster, o: SessionObject): Edit {
  const remove = [keyOf(o)];
  // A Service's EndpointSlices are owned by it and go with it (garbage collection).
  if (o.kind === "Service") for (const s of slicesOf(cluster, o)) remove.push(keyOf(s));
  return { remove };
}

export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";

export function slicesOf(cluster: Cluster, svc: SessionObject): SessionObject[] {
  return objectsOf(cluster, "EndpointSlice").filter((s) => {
    const labels = (s.value["metadata"] as { labels?: Record<string, string> } | undefined)?.labels;
    return s.namespace === svc.namespace && labels?.[SERVICE_NAME_LABEL] === svc.name;
  });
}

export interface EndpointChange {
  readonly ip: string;
  readonly nodeName?: string;
  readonly ready: boolean;
}

function familyOf(ip: string): "IPv4" | "IPv6" {
  const parsed = parseIP(ip);
  if (parsed === undefined) throw new EditError(`"${ip}" is not an IP address`);
  return parsed.family;
}

/** The ports a new EndpointSlice for `svc` carries: its ports with numeric target ports. */
function slicePorts(svc: SessionObject): PlainRecord[] {
  const ports = ((svc.value["spec"] as PlainRecord | undefined)?.["ports"] ?? []) as PlainRecord[];
  return ports.map((p) => ({
    ...(p["name"] !== undefined ? { name: p["name"] } : {}),
    protocol: p["protocol"] ?? "TCP",
    port: typeof p["targetPort"] === "number" ? p["targetPort"] : p["port"],
  }));
}

/**
 * `endpoints SVC add IP [--node N] [--not-ready]`: the endpoint joins the Service's first
 * EndpointSlice of its address family (a new slice `<svc>-repl-<family>` when there is none).
 */
export function addEndpoint(cluster: Cluster, svc: SessionObject, change: EndpointChange): Edit {
  const family = familyOf(change.ip);
  const slices = slicesOf(cluster, svc);
  const endpoint = {
    addresses: [change.ip],
    conditions: { ready: change.ready, serving: change.ready, terminating: false },
    ...(change.nodeName !== undefined ? { nodeName: change.nodeName } : {}),
  };
  for (const s of slices) {
    const eps = (s.value["endpoints"] ?? []) as { addresses?: string[] }[];
    if (eps.some((e) => e.addresses?.includes(change.ip)))
      throw new EditError(`${change.ip} is already an endpoint of ${refOf(svc)} (in ${s.name})`);
  }
  const target = slices.find((s) => s.value["addressType"] === family);
  if (target !== undefined) {
    const value = produce(target.value, (draft) => {
      ((draft["endpoints"] ??= []) as unknown[]).push(endpoint);
    });
    return replaceWith([target], [value]);
  }
  const value: PlainRecord = {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      name: `${svc.name}-repl-${family.toLowerCase()}`,
      namespace: svc.namespace,
      labels: { [SERVICE_NAME_LABEL]: svc.name },
    },
    addressType: family,
    endpoints: [endpoint],
    ports: slicePorts(svc),
  };
  return { remove: [], add: { file: EDIT_FILE, text: stringify(value) } };
}

/** `endpoints SVC remove IP`. */
export function removeEndpoint(cluster: Cluster, svc: SessionObject, ip: string): Edit {
  for (const s of slicesOf(cluster, svc)) {
    const eps = (s.value["endpoints"] ?? []) as { addresses?: string[] }[];
    if (!eps.some((e) => e.addresses?.includes(ip))) continue;
    const value = produce(s.value, (draft) => {
      draft["endpoints"] = eps.filter((e) => !(e.addresses?.includes(ip) ?? false));
    });
    return replaceWith([s], [value]);
  }
  throw new EditError(`${ip} is not an endpoint of ${refOf(svc)}`);
}
