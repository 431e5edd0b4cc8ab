/**
 * The fuzz corpus shared by the loader fuzz (test/model/fuzz.test.ts) and the CLI fuzz
 * (test/cli/fuzz.test.ts): the examples' objects, every field path in them, and mutations that
 * set, delete or add values (hostile strings included: control characters, forged diagnostic
 * lines, prototype keys).
 */
import { fc } from "@fast-check/jest";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";

export const EXAMPLES = [
  "examples/sctp-test-plan",
  "examples/multi-namespace-app",
  "examples/nodeport-loadbalancer",
  "examples/sctp-hostport",
  "examples/sctp-nodeport",
  "examples/sctp-service",
  "examples/sctp-policy",
];

function yamlObjects(dir: string): unknown[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .flatMap((f) => {
      const docs = parseAllDocuments(readFileSync(join(dir, f), "utf8"));
      return Array.isArray(docs) ? docs.map((d) => d.toJS() as unknown) : [];
    });
}

/** Manifests only: node environments and proxy configurations are separate inputs. */
export const validObjects: unknown[] = EXAMPLES.flatMap(yamlObjects).filter((o) => {
  const kind = (o as { kind?: unknown } | null)?.kind;
  return kind !== "NodeEnvironment" && kind !== "KubeProxyConfiguration";
});

export const proxyConfigObjects: unknown[] = EXAMPLES.flatMap(yamlObjects).filter(
  (o) => (o as { kind?: unknown } | null)?.kind === "KubeProxyConfiguration",
);

export type Path = (string | number)[];
export function paths(v: unknown, prefix: Path = []): Path[] {
  const out: Path[] = [prefix];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...prefix, i])));
  else if (v !== null && typeof v === "object")
    for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...prefix, k]));
  return out;
}

export type Mutation =
  | { kind: "set"; value: unknown }
  | { kind: "delete" }
  | { kind: "addKey"; key: string; value: unknown };

export function mutate(root: unknown, path: Path, m: Mutation): unknown {
  if (path.length === 0)
    return m.kind === "set"
      ? m.value
      : m.kind === "addKey" && root !== null && typeof root === "object" && !Array.isArray(root)
        ? { ...root, [m.key]: m.value }
        : null;
  const copy: unknown = structuredClone(root);
  let cur = copy as Record<string | number, unknown>;
  for (const p of path.slice(0, -1)) cur = cur[p] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (m.kind === "set") cur[last] = m.value;
  else if (m.kind === "delete") {
    if (Array.isArray(cur)) cur.splice(last as number, 1);
    else delete cur[last];
  } else {
    const target = cur[last];
    if (target !== null && typeof target === "object" && !Array.isArray(target))
      (target as Record<string, unknown>)[m.key] = m.value;
    else cur[last] = { [m.key]: m.value };
  }
  return copy;
}

/** Text that would forge a second diagnostic line or drive a terminal if printed raw. */
export const FORGED = "FORGED";
export const hostileString = fc.constantFrom(
  `s\n${FORGED}.yaml:1:1: fake problem`,
  "a\u001b[2Jb",
  "nul\u0000x",
  "cr\rlf",
  "\u2028sep",
  "\ud800lone",
);

export const interestingValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  hostileString,
  fc.constantFrom(
    "SCTP",
    "None",
    "",
    "::ffff:1.2.3.4",
    "010.0.0.1",
    "10.0.0.0/33",
    -1,
    0,
    65536,
    2 ** 31,
    1.5,
    true,
    null,
    [],
    {},
  ),
);

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("set" as const), value: interestingValue }),
  fc.constant({ kind: "delete" as const }),
  fc.record({
    kind: fc.constant("addKey" as const),
    key: fc.oneof(
      fc.constantFrom("__proto__", "constructor", "spec", "x", "ports", "podSelector"),
      hostileString,
    ),
    value: interestingValue,
  }),
);

/** One example object with one mutation applied. */
export const mutatedObject: fc.Arbitrary<unknown> = fc
  .constantFrom(...validObjects)
  .chain((obj) => fc.tuple(fc.constant(obj), fc.constantFrom(...paths(obj)), mutation))
  .map(([obj, path, m]) => mutate(obj, path, m));
