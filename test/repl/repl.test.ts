import { describe, expect, it } from "@jest/globals";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { splitWords } from "../../src/repl/words.js";
import { suggestion } from "../../src/repl/dispatch.js";
import { historyPath } from "../../src/repl/repl.js";
import { drive } from "./drive.js";
import { startupNodeError } from "../../src/cli/commands/repl.js";

describe("repl lines", () => {
  it("splits words like a shell", () => {
    expect(splitWords(`trace --src '10.0.0.1' "a b" c\\ d`)).toEqual([
      "trace",
      "--src",
      "10.0.0.1",
      "a b",
      "c d",
    ]);
    expect(splitWords(`say "open`)).toEqual({ error: 'unterminated " quote' });
  });

  it("suggests the closest command for a typo, and nothing for noise", () => {
    expect(suggestion("trcae", ["trace", "render", "set"])).toBe(" (did you mean trace?)");
    expect(suggestion("xyzzyplugh", ["trace", "render", "set"])).toBe("");
  });

  it("keeps history under XDG_STATE_HOME, else ~/.local/state", () => {
    expect(historyPath({ XDG_STATE_HOME: "/x/state", HOME: "/h" })).toBe(
      "/x/state/kube-netsim/repl_history",
    );
    expect(historyPath({ HOME: "/h" })).toBe("/h/.local/state/kube-netsim/repl_history");
  });
});

describe("repl session", () => {
  it.each(["exit", "quit", "  exit  "])(
    "%j leaves once the lines before it have printed",
    async (word) => {
      const out = await drive(["get svc default/sctp-echo -o json", word, "bogus"]);
      expect(out).toContain('"name": "sctp-echo"');
      expect(out).not.toContain('unknown command "bogus"');
    },
  );

  it("traces at once, edits, diffs (objects, rules, verdicts) and undoes", async () => {
    const out = await drive([
      "trace --proto sctp --src 203.0.113.9 --dst 192.168.0.2 --dport 30999 --output json",
      "set svc default/sctp-echo spec.externalTrafficPolicy=Local",
      "diff",
      "undo",
      "get svc default/sctp-echo -o json",
    ]);
    expect(out).toContain('"destination": "10.244.2.7:9999"');
    expect(out).toContain("ok (1: set svc default/sctp-echo spec.externalTrafficPolicy=Local)");
    expect(out).toContain("spec.externalTrafficPolicy: Cluster -> Local");
    expect(out).toMatch(/\+ -A KUBE-SVL-\w+ .* -j KUBE-SEP-/);
    // node-a holds 10.244.1.5 only: external NodePort traffic now goes there, unmasqueraded.
    expect(out).toContain("trace sctp 203.0.113.9 -> 192.168.0.2:30999:");
    expect(out).toMatch(/after: {2}DNAT 10\.244\.1\.5:9999\n/);
    expect(out).toContain("undone: set svc default/sctp-echo");
    expect(out).toMatch(/"externalTrafficPolicy": "Cluster"/);
  });

  it("traces an ICMP echo request without ports; refuses one with a port", async () => {
    const out = await drive([
      "trace --proto icmp --src 203.0.113.9 --dst 192.168.0.2",
      "trace --proto icmp --src 203.0.113.9 --dst 192.168.0.2 --dport 7",
    ]);
    expect(out).toContain("packet: icmp 203.0.113.9 -> 192.168.0.2 (echo request) (remote)");
    expect(out).toContain(
      "kube-netsim: --dport: an ICMP packet (an echo request) has no ports; leave it out\n(exit 2)",
    );
  });

  it("refuses an invalid edit with the API server's message and changes nothing", async () => {
    const out = await drive([
      "set svc default/sctp-echo spec.externalTrafficPolicy=Lokal",
      "set svc default/sctp-echo spec.ports[0].port=70000",
      "history",
      "undo",
    ]);
    expect(out).toContain(
      'error: Service default/sctp-echo: spec.externalTrafficPolicy: Unsupported value: "Lokal": supported values: "Cluster", "Local"',
    );
    expect(out).toMatch(
      /error: Service default\/sctp-echo: spec\.ports\[0\]\.port: Invalid value: 70000/,
    );
    expect(out).toContain("* 0: loaded\n");
    expect(out).not.toContain("* 1:");
    expect(out).toContain("error: nothing to undo");
  });

  it("adds endpoints, labels, deletes, checkpoints, resets and redoes", async () => {
    const out = await drive([
      "checkpoint start",
      "endpoints default/sctp-echo add 10.244.1.9 --node node-a --not-ready",
      "describe svc default/sctp-echo",
      "label svc default/sctp-echo tier=edge",
      "delete svc default/sctp-echo",
      "get svc",
      "diff start",
      "reset start",
      "get svc",
      "undo",
      "redo",
      "history",
    ]);
    expect(out).toContain("10.244.1.9 node node-a (local) not ready");
    expect(out).toContain("  - Service default/sctp-echo");
    expect(out).toContain("no Service objects");
    expect(out).toMatch(
      /trace sctp 203\.0\.113\.10 -> 10\.96\.0\.50:9999:\n.*\n {4}after: {2}NONE/,
    );
    expect(out).toContain("redone: reset start");
    expect(out).toContain("* 4: reset start\n");
    expect(out).toContain("0: loaded [start]");
  });

  it("applies a file, saves, and the saved file loads back to the same objects", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kube-netsim-repl-test-"));
    try {
      const extra = join(dir, "extra.yaml");
      writeFileSync(
        extra,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop, labels: {app: web}}\nspec:\n  containers: [{name: c, image: x}]\n",
      );
      const bad = join(dir, "bad.yaml");
      writeFileSync(
        bad,
        "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  ports: [{port: 0}]\n",
      );
      const saved = join(dir, "saved.yaml");
      const out = await drive([`apply -f ${extra}`, `apply -f ${bad}`, `save ${saved}`]);
      expect(out).toContain(`ok (1: apply -f ${extra})`);
      expect(out).toMatch(
        new RegExp(
          `${bad.replace(/[.]/g, "\\.")}:5:\\d+: Service default/s: spec\\.ports\\[0\\]\\.port`,
        ),
      );
      expect(out).toContain("wrote 6 objects");
      const again = await drive(["get pods shop/web -o yaml"], {
        files: [saved],
        featureGates: {},
      });
      expect(again).toContain("app: web");
      expect(readFileSync(saved, "utf8")).toContain("kind: EndpointSlice");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("applies YAML typed after apply -f -, up to a lone . line", async () => {
    const out = await drive([
      "apply -f -",
      "apiVersion: v1",
      "kind: Pod",
      "metadata:",
      "  name: web",
      "  namespace: shop",
      "  labels: {app: web}",
      "spec:",
      "  containers: [{name: c, image: x}]",
      ".",
      "get pods shop/web -o yaml",
      "history",
    ]);
    expect(out).toContain("...> ");
    expect(out).toContain("ok (1: apply -f -)");
    expect(out).toContain("app: web");
    expect(out).toContain("1: apply -f -");
    expect(out).not.toContain("Invalid REPL keyword");
  });

  it("refuses invalid typed YAML with <stdin> positions and changes nothing; EOF ends it", async () => {
    const out = await drive([
      "apply -f -",
      "apiVersion: v1",
      "kind: Service",
      "metadata: {name: s}",
      "spec:",
      "  ports: [{port: 0}]",
      ".",
      "history",
      "apply -f -",
      "apiVersion: v1",
      "kind: Namespace",
      "metadata: {name: typed-at-eof}",
    ]);
    expect(out).toMatch(/error: <stdin>:5:\d+: Service default\/s: spec\.ports\[0\]\.port/);
    expect(out).toContain("(nothing changed)");
    expect(out).toMatch(/\* 0: loaded/);
    expect(out).toContain("ok (1: apply -f -)");
  });

  it("edits in $EDITOR: a valid buffer is applied, an invalid one changes nothing", async () => {
    const edits = [
      (t: string) => t.replace("externalTrafficPolicy: Cluster", "externalTrafficPolicy: Local"),
      (t: string) => t.replace("type: NodePort", "type: Elsewhere"),
      (t: string) => t,
    ];
    let n = 0;
    const out = await drive(
      [
        "edit svc default/sctp-echo",
        "edit svc default/sctp-echo",
        "edit svc default/sctp-echo",
        "history",
      ],
      undefined,
      (file) => writeFileSync(file, edits[n++]!(readFileSync(file, "utf8"))),
    );
    expect(n).toBe(3);
    expect(out).toContain("ok (1: edit svc default/sctp-echo)");
    expect(out).toMatch(
      /sctp-echo\.yaml:\d+:\d+: Service default\/sctp-echo: spec\.type: Unsupported value: "Elsewhere"/,
    );
    expect(out).toContain("edit cancelled, no changes made");
    expect(out).not.toContain("2: edit");
  });

  it("shows policy rows that flipped after a label edit", async () => {
    const out = await drive(["label pod default/server app=other", "diff"], {
      files: ["examples/sctp-policy/cluster.yaml"],
      featureGates: {},
    });
    expect(out).toContain("metadata.labels.app: server -> other");
    // The policy isolates app=server and admits only SCTP 5000: relabelled, TCP and UDP get in.
    expect(out).toContain("policy default/client -> default/server 5000/TCP: denied -> allowed");
    expect(out).toContain("policy default/client -> default/server 5000/UDP: denied -> allowed");
    expect(out).not.toContain("5000/SCTP: ");
    expect(out).toContain("rules: not compared (no node given)");
  });

  it("answers help, unknown input and a nested repl in one line each", async () => {
    const out = await drive([
      "help set",
      "help render",
      "trcae",
      "repl",
      "rendr iptables",
      "help apply",
    ]);
    expect(out).toContain("Usage: set KIND NAME field.path=value...");
    expect(out).toContain("With -f - the YAML is typed on the following lines");
    expect(out).toContain("Usage: kube-netsim render");
    expect(out).toContain('unknown command "trcae" (did you mean trace?); type help for the list');
    expect(out).toContain('unknown command "rendr" (did you mean render?)');
    expect(out).toContain("already in the REPL");
    expect(out).not.toContain("Usage: kube-netsim [options]");
  });
});

describe("repl start-up", () => {
  it("refuses a broken node option at once, and starts without any node", () => {
    const error = { error: "no node given" };
    expect(startupNodeError({}, true, error)).toBeUndefined();
    expect(startupNodeError({ node: "n1" }, false, error)).toBeUndefined();
    expect(startupNodeError({ node: "n1" }, true, { error: 'node "n1" not found' })).toBe(
      'node "n1" not found',
    );
    expect(startupNodeError({ nodeEnv: "missing.yaml" }, false, { error: "cannot read" })).toBe(
      "cannot read",
    );
  });
});
