/**
 * The README's library tour and quick-start commands, run as written, so the README stays true.
 * Expected values are the SCTP example's facts: two ready endpoints of 10.96.0.50:9999, and a
 * NetworkPolicy that allows only SCTP/5000.
 */
import { describe, expect, test } from "@jest/globals";
import { readFileSync } from "node:fs";
import {
  loadCluster,
  parseNodeEnvironment,
  parseProxyConfig,
  renderIptables,
  buildNodeDataplane,
  trace,
  evaluatePolicy,
} from "../src/index.js";
import { runCli } from "../src/cli/program.js";

describe("README", () => {
  test("library tour", () => {
    const cluster = loadCluster(["examples/sctp-service/cluster.yaml"]);
    const node = parseNodeEnvironment(
      readFileSync("examples/sctp-service/node.yaml", "utf8"),
      "node.yaml",
    );
    const proxyConfig = parseProxyConfig(
      readFileSync("examples/sctp-service/proxy.yaml", "utf8"),
      "proxy.yaml",
    );
    const { restore, save } = renderIptables(cluster, { proxyConfig, node });
    expect(restore).toContain("-m sctp -p sctp -d 10.96.0.50 --dport 9999");
    // iptables-save order: addresses, then -p, then matches; /32 added.
    expect(save).toMatch(/-d 10\.96\.0\.50\/32 -p sctp .*-m sctp --dport 9999/);
    const dataplane = buildNodeDataplane(cluster, { proxyConfig, node });
    const result = trace(dataplane, {
      proto: "sctp",
      src: "10.244.1.9",
      dst: "10.96.0.50",
      dport: 9999,
    });
    expect(result.outcomes.map((o) => [o.verdict, o.destination, o.probability])).toEqual([
      ["DNAT", "10.244.1.5:9999", 0.5],
      ["DNAT", "10.244.2.7:9999", 0.5],
    ]);
    const verdict = evaluatePolicy(loadCluster("examples/sctp-policy/"), {
      from: "default/client",
      to: "default/server",
      port: 5000,
      protocol: "TCP",
    });
    expect(verdict.allowed).toBe(false);
  });

  test("quick start: render and trace the SCTP example", async () => {
    let out = "";
    let err = "";
    const io = {
      stdout: (s: string) => {
        out += s;
      },
      stderr: (s: string) => {
        err += s;
      },
      readStdin: () => "",
    };
    const common = [
      "-f",
      "examples/sctp-service/cluster.yaml",
      "--node-env",
      "examples/sctp-service/node.yaml",
      "--proxy-config",
      "examples/sctp-service/proxy.yaml",
    ];
    expect(await runCli(["render", "iptables", ...common], io)).toBe(0);
    expect(out).toContain("*nat\n");
    out = "";
    const args = [
      "--proto",
      "sctp",
      "--src",
      "10.244.1.9",
      "--dst",
      "10.96.0.50",
      "--dport",
      "9999",
    ];
    expect(await runCli(["trace", ...common, ...args], io)).toBe(0);
    expect(out).toContain("10.244.1.5:9999");
    expect(out).toContain("10.244.2.7:9999");
    expect(err).toBe("");
  });
});
