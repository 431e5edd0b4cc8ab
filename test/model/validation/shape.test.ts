import { describe, expect, test } from "@jest/globals";
import { issueLines, load, messages } from "../helpers.js";

describe("decoding: wrong types, nulls, unknown fields", () => {
  test('port: "eighty" is a positioned type error, every error reported at once', () => {
    expect(
      issueLines(`apiVersion: v1
kind: Service
metadata:
  name: web
  labels: {version: 2}
spec:
  ports:
    - port: "eighty"
      protocol: TCP
    - name: b
      port: 81
      targetPort: [1]
  publishNotReadyAddresses: "yes"
`),
    ).toEqual([
      "t.yaml:5:12: Service default/web: metadata.labels.version: Invalid value: 2: must be of type string",
      't.yaml:8:7: Service default/web: spec.ports[0].port: Invalid value: "eighty": must be of type integer',
      "t.yaml:12:7: Service default/web: spec.ports[1].targetPort: Invalid value: [1]: must be of type integer or string",
      't.yaml:13:3: Service default/web: spec.publishNotReadyAddresses: Invalid value: "yes": must be of type boolean',
      // The dropped port is then missing, as Go's zero value would be.
      "t.yaml:8:7: Service default/web: spec.ports[0].name: Required value",
      "t.yaml:8:7: Service default/web: spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
      "t.yaml:8:7: Service default/web: spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive",
    ]);
  });

  test("integers beyond int32", () => {
    expect(
      messages(
        "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 4294967376}]}\n",
      )[0],
    ).toBe(
      "Service default/s: spec.ports[0].port: Invalid value: 4294967376: must fit in a 32-bit integer",
    );
  });

  test("a list item of the wrong type keeps later indices", () => {
    expect(
      messages(
        "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [80, {port: 81, name: b}]}\n",
      ),
    ).toEqual([
      "Service default/s: spec.ports[0]: Invalid value: 80: must be of type object",
      "Service default/s: spec.ports[0].name: Required value",
      "Service default/s: spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
      "Service default/s: spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive",
    ]);
  });

  test("null is the zero value", () => {
    const c = load(
      "apiVersion: v1\nkind: Service\nmetadata: {name: s, labels: {a: null}}\nspec: {selector: null, ports: [{port: 80, name: null}]}\n",
    );
    expect(c.services[0]?.metadata?.labels).toEqual({ a: "" });
    expect(c.services[0]?.spec?.selector).toBeUndefined();
  });

  test("unknown fields are warnings (kubectl --validate=warn), at every depth", () => {
    expect(
      issueLines(`apiVersion: v1
kind: Pod
metadata: {name: p, labells: {}}
spec:
  containers: [{name: c, portz: []}]
  hostnetwork: true
extra: 1
`),
    ).toEqual([
      't.yaml:3:21: Pod default/p: metadata.labells: warning: unknown field "metadata.labells"',
      't.yaml:5:26: Pod default/p: spec.containers[0].portz: warning: unknown field "spec.containers[0].portz"',
      't.yaml:6:3: Pod default/p: spec.hostnetwork: warning: unknown field "spec.hostnetwork"',
      't.yaml:7:1: Pod default/p: extra: warning: unknown field "extra"',
    ]);
  });

  test("fields kube-netsim ignores are accepted silently", () => {
    expect(
      messages(`apiVersion: v1
kind: Pod
metadata: {name: p, uid: x, creationTimestamp: null}
spec:
  restartPolicy: Always
  volumes: [{name: v, emptyDir: {}}]
  containers: [{name: c, image: nginx, resources: {limits: {cpu: 1}}, env: [{name: A, value: b}]}]
status: {phase: Running, conditions: [{type: Ready, status: "True"}]}
`),
    ).toEqual([]);
  });

  test("--validation=warn turns every error into a warning and keeps the objects", () => {
    const c = load(
      "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 0, protocol: QUIC}]}\n",
      { validation: "warn" },
    );
    expect(c.services).toHaveLength(1);
    expect(c.warnings.every((w) => w.severity === "warning")).toBe(true);
    expect(c.warnings.map((w) => w.message)).toEqual([
      "Invalid value: 0: must be between 1 and 65535, inclusive",
      'Unsupported value: "QUIC": supported values: "SCTP", "TCP", "UDP"',
      "Invalid value: 0: must be between 1 and 65535, inclusive",
    ]);
  });

  test("kube-netsim's own config kinds next to manifests are skipped silently", () => {
    expect(
      messages(
        "apiVersion: kube-netsim.dev/v1alpha1\nkind: NodeEnvironment\nnodeName: n\n---\napiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n",
      ),
    ).toEqual([]);
  });

  test("anchors and aliases are expanded; an alias bomb is an error, not a hang", () => {
    const c = load(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: &l {a: b}}\nspec: {containers: [{name: c}], nodeSelector: *l}\n",
    );
    expect(c.pods[0]?.metadata?.labels).toEqual({ a: "b" });
    const bomb = ["a: &a [x,x,x,x,x,x,x,x,x,x]"]
      .concat([
        "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]",
        "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]",
        "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]",
        "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]",
        "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]",
        "g: [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]",
      ])
      .join("\n");
    expect(issueLines(bomb)).toEqual([
      expect.stringMatching(
        /^t\.yaml:\d+:\d+: YAML (syntax error: .*|document too large after alias expansion)$/,
      ),
    ]);
  });
});
