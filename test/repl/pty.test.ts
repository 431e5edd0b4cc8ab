/**
 * The REPL in a real terminal: tmux gives it a pseudo-terminal, the test types keys (Tab
 * included) and reads the screen. A private tmux server (-L) keeps the user's sessions apart.
 */
import { describe, expect } from "@jest/globals";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { toolTest } from "./tool-test.js";

const SOCKET = `kube-netsim-pty-${process.pid}`;

function tmux(...args: string[]): string {
  const r = spawnSync("tmux", ["-L", SOCKET, ...args], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`tmux ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

function screen(): string {
  return tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", "repl");
}

async function waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const text = screen();
    if (pattern.test(text)) return text;
    if (Date.now() > end) throw new Error(`screen never showed ${String(pattern)}:\n${text}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

function keys(...k: string[]): void {
  tmux("send-keys", "-t", "repl", ...k);
}

describe("the REPL in a terminal", () => {
  toolTest(
    "Tab completes, an edit, diff and undo show on the screen; Ctrl-D leaves",
    "tmux",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "kube-netsim-pty-"));
      const editor = join(dir, "editor.sh");
      writeFileSync(
        editor,
        `#!/bin/sh\nsed -i 's/sessionAffinity: None/sessionAffinity: ClientIP/' "$1"\n`,
      );
      chmodSync(editor, 0o755);
      const ex = "examples/sctp-service";
      const cmd = [
        `cd ${JSON.stringify(resolve("."))} &&`,
        `XDG_STATE_HOME=${dir}/state EDITOR=${editor}`,
        "node_modules/.bin/tsx src/cli/main.ts repl",
        `-f ${ex}/cluster.yaml --node-env ${ex}/node.yaml --proxy-config ${ex}/proxy.yaml;`,
        "echo REPL-EXITED-$?; sleep 30",
      ].join(" ");
      try {
        tmux("new-session", "-d", "-s", "repl", "-x", "200", "-y", "60", cmd);
        await waitFor(/kube-netsim> $/m);

        // Tab after a prefix completes the command, the object and the field path.
        keys("set svc default/sctp", "Tab");
        await waitFor(/kube-netsim> set svc default\/sctp-echo$/m);
        keys(" spec.externalT", "Tab");
        await waitFor(/kube-netsim> set svc default\/sctp-echo spec\.externalTrafficPolicy=$/m);
        keys("Local", "Enter");
        await waitFor(/ok \(1: set svc default\/sctp-echo spec\.externalTrafficPolicy=Local\)/);

        keys("edit svc default/sctp-echo", "Enter");
        await waitFor(/ok \(2: edit svc default\/sctp-echo\)/);

        keys("diff", "Enter");
        await waitFor(/spec\.sessionAffinity: None -> ClientIP/);
        keys("und", "Tab");
        await waitFor(/kube-netsim> undo$/m);
        keys("Enter");
        await waitFor(/undone: edit svc default\/sctp-echo/);
        keys("diff", "Enter");
        const shown = await waitFor(/after: {2}DNAT 10\.244\.1\.5:9999\n/);
        expect(shown).toContain("spec.externalTrafficPolicy: Cluster -> Local");
        expect(shown).toMatch(/\+ -A KUBE-SVL-/);

        // apply -f -: the YAML typed after it, with a continuation prompt, up to a lone ".".
        keys("apply -f -", "Enter");
        await waitFor(/^\.\.\.> $/m);
        for (const line of ["apiVersion: v1", "kind: Namespace", "metadata: {name: typed}", "."])
          keys(line, "Enter");
        await waitFor(/ok \(\d+: apply -f -\)/);
        keys("get ns typed -o yaml", "Enter");
        await waitFor(/^ {2}name: typed$/m);

        keys("trcae", "Enter");
        await waitFor(/did you mean trace\?/);
        keys("C-d");
        const end = await waitFor(/REPL-EXITED-\d+/);
        expect(end).toContain("REPL-EXITED-0");
        const history = join(dir, "state", "kube-netsim", "repl_history");
        expect(existsSync(history)).toBe(true);
        expect(readFileSync(history, "utf8")).toContain("undo");
      } finally {
        spawnSync("tmux", ["-L", SOCKET, "kill-server"]);
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
