import { describe, expect, it } from "@jest/globals";
import { buildProgram } from "../../src/cli/program.js";
import { cliSpecs } from "../../src/cli/commands/repl.js";
import { loadCluster } from "../../src/model/load-files.js";
import { complete, type CompletionContext } from "../../src/repl/complete.js";

const io = { stdout: () => {}, stderr: () => {}, readStdin: () => "" };
const ctx: CompletionContext = {
  cli: cliSpecs(buildProgram(io)),
  cluster: loadCluster(["examples/sctp-test-plan/"]),
  checkpoints: ["before-lb"],
};

const words = (line: string): string[] => complete(line, ctx)[0];

describe("completion by position", () => {
  it("offers commands first, without repl", () => {
    expect(words("")).toEqual(expect.arrayContaining(["trace", "render", "set", "diff", "undo"]));
    expect(words("")).not.toContain("repl");
    expect(complete("tr", ctx)).toEqual([["trace"], "tr"]);
  });

  it("offers that command's subcommands, then its options", () => {
    expect(words("render ")).toEqual(["iptables", "ipvs", "hostports", "nftables"]);
    expect(words("policy ")).toEqual(expect.arrayContaining(["check", "matrix", "diff", "lint"]));
    expect(words("render ")).not.toContain("matrix");
    expect(words("render iptables --pro")).toEqual(["--proxy-config"]);
    expect(words("trace --d")).toEqual(expect.arrayContaining(["--dst", "--dport"]));
    expect(words("policy matrix --p")).toEqual(expect.arrayContaining(["--ports", "--protocols"]));
  });

  it("offers kinds, then object names of that kind, then field paths for set", () => {
    expect(words("get sv")).toEqual(["svc"]);
    expect(words("describe svc ")).toEqual(["default/sctp-svc"]);
    expect(words("describe svc default/sc")).toEqual(["default/sctp-svc"]);
    expect(words("get pods ").length).toBeGreaterThan(0);
    expect(words("get pods ").every((n) => n.includes("/"))).toBe(true);
    const svc = words("get svc ")[0] as string;
    expect(words(`set svc ${svc} spec.ty`)).toEqual(["spec.type="]);
    expect(words(`set svc ${svc} spec.ports[0].pro`)).toEqual(["spec.ports[0].protocol="]);
    expect(words("endpoints ")).toEqual(words("get svc "));
    expect(words(`endpoints ${svc} `)).toEqual(["add", "remove"]);
    expect(words("diff ")).toEqual(["before-lb"]);
    expect(words("help ren")).toEqual(["render"]);
  });

  it("offers file paths after -f and friends", () => {
    expect(words("apply -f examples/sctp-ser")).toEqual(["examples/sctp-service/"]);
    expect(words("trace --node-env examples/sctp-service/no")).toEqual([
      "examples/sctp-service/node.yaml",
    ]);
    expect(words("save exam")).toEqual(["examples/"]);
  });
});
