import { describe, expect, test } from "@jest/globals";
import { makeCluster } from "../../src/model/cluster.js";
import {
  namespaceByName,
  nodeByName,
  podsInNamespace,
  slicesForService,
  sourceOf,
} from "../../src/model/cluster-index.js";
import { load } from "./helpers.js";

describe("cluster indexes", () => {
  const c = load(`apiVersion: v1
kind: Pod
metadata: {name: b, namespace: x}
spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: x}
spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: y}
spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: v1
kind: Service
metadata: {name: s, namespace: x}
spec: {ports: [{port: 80}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: s-2, namespace: x, labels: {kubernetes.io/service-name: s}}
addressType: IPv4
endpoints: []
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: s-1, namespace: x, labels: {kubernetes.io/service-name: s}}
addressType: IPv4
endpoints: []
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: unowned, namespace: x}
addressType: IPv4
endpoints: []
`);

  test("pods by namespace, in manifest order", () => {
    expect(podsInNamespace(c, "x").map((p) => p.metadata?.name)).toEqual(["b", "a"]);
    expect(podsInNamespace(c, "y").map((p) => p.metadata?.name)).toEqual(["a"]);
    expect(podsInNamespace(c, "z")).toEqual([]);
  });

  test("slices by the kubernetes.io/service-name label", () => {
    expect(slicesForService(c, "x", "s").map((s) => s.metadata?.name)).toEqual(["s-2", "s-1"]);
    expect(slicesForService(c, "y", "s")).toEqual([]);
  });

  test("nodes, namespaces (implicit ones too) and sources", () => {
    expect(nodeByName(c, "n1")?.metadata?.name).toBe("n1");
    expect(nodeByName(c, "n2")).toBeUndefined();
    expect(namespaceByName(c, "y")?.metadata?.labels).toEqual({
      "kubernetes.io/metadata.name": "y",
    });
    expect(sourceOf(c, "Pod", "x", "a")).toEqual({ file: "t.yaml", line: 6, col: 1 });
    expect(sourceOf(c, "Namespace", undefined, "y")).toBeUndefined();
  });

  test("indexes are per snapshot and the snapshot is frozen", () => {
    expect(Object.isFrozen(c.pods[0])).toBe(true);
    const other = makeCluster({ pods: [c.pods[2]!] });
    expect(podsInNamespace(other, "x")).toEqual([]);
    expect(podsInNamespace(other, "y")).toHaveLength(1);
    expect(podsInNamespace(c, "x")).toHaveLength(2);
  });
});
