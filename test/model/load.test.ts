import { describe, expect, test } from "@jest/globals";
import { parseCluster } from "../../src/model/load.js";
import { ValidationError, formatIssue } from "../../src/model/issue.js";
import { sourceOf, slicesForService, namespaceByName } from "../../src/model/cluster-index.js";
import { positionOf } from "../../src/model/field-positions.js";

const load = (text: string, opts = {}) => parseCluster([{ file: "t.yaml", text }], opts);

function errorsOf(text: string, opts = {}): string[] {
  try {
    load(text, opts);
  } catch (e) {
    if (e instanceof ValidationError) return e.issues.map(formatIssue);
    throw e;
  }
  throw new Error("expected a ValidationError");
}

describe("parseCluster: documents", () => {
  test("multi-document YAML, List items and JSON all load, with positions", () => {
    const c = load(`# comment
apiVersion: v1
kind: Namespace
metadata: {name: a}
---
---
apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Pod
    metadata: {name: p, namespace: a}
    spec: {containers: [{name: c}]}
  - {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
`);
    expect(c.namespaces.map((n) => n.metadata?.name)).toEqual(["a"]);
    expect(c.pods.map((p) => p.metadata?.name)).toEqual(["p"]);
    expect(c.nodes.map((p) => p.metadata?.name)).toEqual(["n1"]);
    expect(sourceOf(c, "Namespace", undefined, "a")).toEqual({ file: "t.yaml", line: 2, col: 1 });
    expect(sourceOf(c, "Pod", "a", "p")).toEqual({ file: "t.yaml", line: 10, col: 5 });
    expect(sourceOf(c, "Node", undefined, "n1")).toEqual({ file: "t.yaml", line: 14, col: 5 });
  });

  test("JSON input", () => {
    const c = parseCluster([
      {
        file: "x.json",
        text: '{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"ports":[{"port":80}]}}',
      },
    ]);
    expect(c.services[0]?.spec?.ports?.[0]?.targetPort).toBe(80);
  });

  test("YAML syntax errors are positioned", () => {
    expect(errorsOf("a: [\nb: c")[0]).toMatch(/^t\.yaml:2:1: YAML syntax error: /);
    expect(errorsOf("a: 1\na: 2\n")[0]).toMatch(
      /^t\.yaml:2:1: YAML syntax error: Map keys must be unique/,
    );
  });

  test("a document that is not an object, and missing kind", () => {
    expect(errorsOf("- 1\n- 2\n")).toEqual([
      "t.yaml:1:1: document is not an object (expected a mapping with apiVersion, kind and metadata)",
    ]);
    expect(errorsOf("apiVersion: v1\nmetadata: {name: x}\n")).toEqual([
      "t.yaml:1:1: Object 'Kind' is missing",
    ]);
  });

  test("unknown kinds are warnings and ignored", () => {
    const c = load("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n");
    expect(c.warnings.map(formatIssue)).toEqual([
      't.yaml:1:1: warning: kind "ConfigMap" (v1) is not modelled; ignored',
    ]);
  });

  test("wrong apiVersion for a known kind is an error", () => {
    expect(
      errorsOf("apiVersion: extensions/v1beta1\nkind: NetworkPolicy\nmetadata: {name: x}\n"),
    ).toEqual([
      't.yaml:1:1: no matches for kind "NetworkPolicy" in version "extensions/v1beta1" (expected "networking.k8s.io/v1")',
    ]);
  });

  test("duplicates are errors naming the first definition; warn mode keeps the first", () => {
    const text =
      "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n\n";
    expect(errorsOf(text)).toEqual([
      "t.yaml:8:3: Node n: metadata.name: Duplicate value: Node n is already defined at t.yaml:1:1",
    ]);
    const c = load(text, { validation: "warn" });
    expect(c.nodes).toHaveLength(1);
    expect(c.warnings[0]?.severity).toBe("warning");
  });

  test("missing name", () => {
    expect(
      errorsOf(
        "apiVersion: v1\nkind: Pod\nmetadata: {namespace: a}\nspec: {containers: [{name: c}]}\n",
      ),
    ).toEqual([
      "t.yaml:3:1: Pod a/: metadata.name: Required value: name or generateName is required",
    ]);
  });
});

describe("parseCluster: namespaces", () => {
  test("namespaced objects default to `default`; referenced namespaces exist implicitly", () => {
    const c = load(`apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Service
metadata: {name: s, namespace: other}
spec: {ports: [{port: 80}]}
`);
    expect(c.pods[0]?.metadata?.namespace).toBe("default");
    expect(c.namespaces.map((n) => [n.metadata?.name, n.metadata?.labels])).toEqual([
      ["default", { "kubernetes.io/metadata.name": "default" }],
      ["other", { "kubernetes.io/metadata.name": "other" }],
    ]);
    expect(namespaceByName(c, "other")?.metadata?.labels).toEqual({
      "kubernetes.io/metadata.name": "other",
    });
  });

  test("cluster-scoped objects drop a namespace", () => {
    const c = load("apiVersion: v1\nkind: Node\nmetadata: {name: n, namespace: x}\n");
    expect(c.nodes[0]?.metadata?.namespace).toBeUndefined();
    expect(c.namespaces).toEqual([]);
  });
});

describe("parseCluster: Endpoints mirroring", () => {
  const svc = (selector: string) => `apiVersion: v1
kind: Service
metadata: {name: s, namespace: n}
spec:
  clusterIP: 10.96.0.10
  ${selector}
  ports: [{name: dns, port: 53, protocol: UDP}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: s, namespace: n, labels: {a: b}}
subsets:
  - addresses: [{ip: 10.1.0.1, nodeName: n1}, {ip: "fd00::1"}]
    notReadyAddresses: [{ip: 10.1.0.2, hostname: h}]
    ports: [{name: dns, port: 5353, protocol: UDP}]
`;
  test("a selector-less Service's Endpoints become slices per address family", () => {
    const c = load(svc(""));
    const slices = slicesForService(c, "n", "s");
    expect(slices.map((s) => s.addressType)).toEqual(["IPv4", "IPv6"]);
    expect(slices[0]?.metadata?.labels).toEqual({
      a: "b",
      "kubernetes.io/service-name": "s",
      "endpointslice.kubernetes.io/managed-by": "endpointslicemirroring-controller.k8s.io",
    });
    expect(slices[0]?.endpoints).toEqual([
      { addresses: ["10.1.0.1"], conditions: { ready: true }, nodeName: "n1" },
      { addresses: ["10.1.0.2"], conditions: { ready: false }, hostname: "h" },
    ]);
    expect(slices[0]?.ports).toEqual([{ name: "dns", port: 5353, protocol: "UDP" }]);
  });

  test("a Service with a selector is not mirrored (warning)", () => {
    const c = load(svc("selector: {app: x}"));
    expect(slicesForService(c, "n", "s")).toEqual([]);
    expect(c.warnings.map(formatIssue)).toEqual([
      "t.yaml:9:1: Endpoints n/s: warning: not mirrored to EndpointSlices: Service n/s has a selector (the EndpointSlice controller manages its slices)",
    ]);
  });
});

describe("parseCluster: more Endpoints mirroring rules", () => {
  const text = (labels: string, annotations = "{}") => `apiVersion: v1
kind: Service
metadata: {name: s}
spec: {clusterIP: 10.96.0.10, ports: [{port: 80}]}
---
apiVersion: v1
kind: Endpoints
metadata: {name: s, labels: ${labels}, annotations: ${annotations}}
subsets: [{addresses: [{ip: 10.1.0.1}], ports: [{port: 80}]}]
`;
  test("skip-mirror label", () => {
    const c = load(text('{endpointslice.kubernetes.io/skip-mirror: "true"}'));
    expect(c.endpointSlices).toEqual([]);
    expect(c.warnings.map((w) => w.message)).toEqual([
      'not mirrored to EndpointSlices: labelled endpointslice.kubernetes.io/skip-mirror: "true"',
    ]);
  });
  test("annotations are copied except the last-applied configuration", () => {
    const c = load(text("{}", '{a: b, kubectl.kubernetes.io/last-applied-configuration: "{}"}'));
    expect(c.endpointSlices[0]?.metadata?.annotations).toEqual({ a: "b" });
    expect(c.endpointSlices[0]?.metadata?.name).toBe("s-mirrored-0");
  });
});

describe("parseCluster: positions", () => {
  test("fields reached through an alias point at the field holding the alias; List items keep their own positions; defaulting is idempotent", () => {
    const text = `apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Service
    metadata: {name: a}
    spec: &spec
      ports: [{port: 80}]
  - apiVersion: v1
    kind: Service
    metadata: {name: b}
    spec: *spec
`;
    const c = load(text);
    expect(c.fieldSources?.["Service/default/a"]?.["spec.ports[0].port"]).toEqual({
      file: "t.yaml",
      line: 8,
      col: 16,
    });
    expect(c.fieldSources?.["Service/default/b"]?.["spec.ports[0].port"]).toBeUndefined();
    expect(positionOf(c.fieldSources?.["Service/default/b"], ["spec", "ports", 0, "port"])).toEqual(
      { file: "t.yaml", line: 12, col: 5 },
    );
    const again = load(JSON.stringify({ apiVersion: "v1", kind: "List", items: c.services }));
    expect(again.services).toEqual(c.services);
  });
});

describe("parseCluster: the snapshot", () => {
  const text = `apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  ports:
  - name: a
    port: 80
  - name: b
    port: 81
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-1
  namespace: shop
  labels: {kubernetes.io/service-name: web}
addressType: IPv4
endpoints:
- addresses: [10.0.0.1]
`;

  test("is frozen all the way down, its source records too, with positions still readable", () => {
    const c = load(text);
    const svc = c.services[0]!;
    for (const v of [c, c.services, svc, svc.spec, svc.spec?.ports, svc.spec?.ports?.[1]])
      expect(Object.isFrozen(v)).toBe(true);
    const slice = c.endpointSlices[0]!;
    for (const v of [slice.endpoints, slice.endpoints[0], slice.endpoints[0]?.addresses])
      expect(Object.isFrozen(v)).toBe(true);
    expect(Object.isFrozen(c.sources)).toBe(true);
    expect(Object.isFrozen(c.fieldSources)).toBe(true);
    expect(Object.isFrozen(c.warnings)).toBe(true);
    expect(sourceOf(c, "EndpointSlice", "shop", "web-1")).toEqual({
      file: "t.yaml",
      line: 11,
      col: 1,
    });
    expect(positionOf(c.fieldSources?.["Service/shop/web"], ["spec", "ports", 1, "port"])).toEqual({
      file: "t.yaml",
      line: 9,
      col: 5,
    });
  });

  test("lists hold exactly their items; the records are keyed in manifest order", () => {
    const c = load(text);
    expect(c.services[0]?.spec?.ports?.map((p) => p.port)).toEqual([80, 81]);
    expect(c.endpointSlices[0]?.endpoints[0]?.addresses).toEqual(["10.0.0.1"]);
    expect(Object.keys(c.sources)).toEqual(["Service/shop/web", "EndpointSlice/shop/web-1"]);
    expect(Object.keys(c.fieldSources ?? {})).toEqual(Object.keys(c.sources));
  });
});
