/**
 * IpScript and the namespace groups on the kernel: a script's commands run in order across
 * namespaces (a veth made from one side is configured from the other), the first failing command
 * is named with the kernel's words and stops the rest, words `ip -batch` would split are refused
 * before anything runs; a group of namespaces is made by one call and removed by one, with the
 * processes inside. Nothing here sends packets or waits on a timeout.
 */
import { spawn, spawnSync } from "node:child_process";
import { expect } from "@jest/globals";
import { IpScript } from "../../src/backends/ip-script.js";
import {
  createNetnsGroup,
  deleteNetnsGroup,
  liveNetns,
  withNetns,
} from "../../src/backends/netns.js";
import { kernelRulesOnly, kernelTest } from "../helpers/kernel.js";

kernelRulesOnly();

const NEEDS = ["root", "ip"] as const;

function namespaces(): string[] {
  return spawnSync("ip", ["netns", "list"], { encoding: "utf8" })
    .stdout.split("\n")
    .map((l) => l.split(" ")[0] ?? "");
}

kernelTest("a script's commands run in order across namespaces", [...NEEDS], async () => {
  await withNetns(
    2,
    ([a, b]) => {
      new IpScript()
        .sysctl(a!, ["net.ipv4.ip_forward=1"])
        .ip(a!, ["link", "add", "eth0", "type", "veth", "peer", "name", "p0", "netns", b!.name])
        .ip(a!, ["addr", "add", "10.9.0.1/24", "dev", "eth0"])
        .ip(a!, ["addr", "add", "fd00:9::1/64", "dev", "eth0", "nodad"])
        .ip(b!, ["addr", "add", "10.9.0.2/24", "dev", "p0"])
        .ip(b!, ["link", "set", "p0", "up"])
        .ip(b!, ["route", "add", "0.0.0.0/0", "via", "10.9.0.1"])
        .ip(a!, ["link", "set", "eth0", "up"])
        .run();
      expect(a!.exec("sysctl", ["-n", "net.ipv4.ip_forward"]).trim()).toBe("1");
      expect(a!.exec("ip", ["-o", "addr", "show", "dev", "eth0"])).toMatch(
        /inet 10\.9\.0\.1\/24[\s\S]*inet6 fd00:9::1\/64/,
      );
      expect(b!.exec("ip", ["route", "show", "default"]).trim()).toBe(
        "default via 10.9.0.1 dev p0",
      );
    },
    "kns-ipscript",
  );
  expect(liveNetns()).toEqual([]);
});

kernelTest("the first failing command is named and stops the script", [...NEEDS], async () => {
  await withNetns(
    1,
    ([a]) => {
      const script = new IpScript()
        .ip(a!, ["link", "set", "lo", "up"])
        .ip(a!, ["addr", "add", "10.9.1.1/24", "dev", "nosuch0"])
        .ip(a!, ["link", "add", "late0", "type", "bridge"]);
      expect(() => script.run()).toThrow(
        `ip -n ${a!.name} addr add 10.9.1.1/24 dev nosuch0: Cannot find device "nosuch0"`,
      );
      expect(a!.exec("ip", ["-o", "link", "show"])).not.toContain("late0");
      expect(a!.exec("ip", ["-o", "link", "show", "lo"])).toContain("UP");
      expect(() => new IpScript().sysctl(a!, ["net.ipv4.no_such_setting=1"]).run()).toThrow(
        /^sysctl -q -w net\.ipv4\.no_such_setting=1 failed in kns-ipscript-.*: .+/,
      );
    },
    "kns-ipscript",
  );
});

kernelTest("a word ip -batch would split is refused before anything runs", [...NEEDS], async () => {
  await withNetns(
    1,
    ([a]) => {
      const script = new IpScript().ip(a!, ["link", "add", "br0", "type", "bridge"]);
      expect(() => script.ip(a!, ["link", "set", "br0 netns 1", "up"])).toThrow(
        'cannot pass "br0 netns 1" to ip: empty or holds a blank or quote',
      );
      expect(() => script.ip(a!, ["addr", "add", "#", "dev", "br0"])).toThrow(/cannot pass "#"/);
    },
    "kns-ipscript",
  );
});

kernelTest(
  "a group of namespaces is made by one call and removed by one, processes inside killed",
  [...NEEDS],
  async () => {
    const group = createNetnsGroup(["kns-ipscript", "kns-ipscript", "kns-ipscript"]);
    try {
      expect(new Set(group.map((n) => n.name)).size).toBe(3);
      for (const ns of group) expect(namespaces()).toContain(ns.name);
      expect(liveNetns()).toEqual(expect.arrayContaining(group.map((n) => n.name)));
    } finally {
      // A process inside the first one must not keep it alive.
      const sleeper = spawn("ip", ["netns", "exec", group[0]!.name, "sleep", "60"], {
        stdio: "ignore",
      });
      const exited = new Promise((r) => sleeper.once("exit", (_c, signal) => r(signal)));
      for (let i = 0; i < 50; i++) {
        const pids = spawnSync("ip", ["netns", "pids", group[0]!.name], { encoding: "utf8" });
        if (pids.stdout.trim() !== "") break;
        await new Promise((r) => setTimeout(r, 20));
      }
      deleteNetnsGroup(group);
      expect(await exited).toBe("SIGKILL");
    }
    const left = namespaces();
    for (const ns of group) expect(left).not.toContain(ns.name);
    expect(liveNetns()).toEqual([]);
  },
);
