/**
 * Real-kernel checks: the generated nat rules load with iptables-restore in a scratch network
 * namespace and survive an iptables-save round trip, and a real TCP/UDP connection to the host
 * port reaches the pod's namespace.
 */
import { describe, expect } from "@jest/globals";
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseCluster } from "../../src/model/load.js";
import { parseNodeEnvironment } from "../../src/model/load-node-environment.js";
import { kernelTest } from "../helpers/kernel.js";
import { withNetns, type Netns } from "../../src/backends/netns.js";
import { IpScript } from "../../src/backends/ip-script.js";
import {
  HostportManager,
  emptyNatTable,
  formatHostportSave,
  formatNatTable,
  hostportRulesForNode,
  portmapAdd,
  type PodPortMapping,
} from "../../src/hostports/index.js";

const PREFIX = "kns-hp";

/** kube-proxy's chains the hostport rules rely on (KUBE-MARK-MASQ, masquerade of its mark). */
const KUBE_PROXY_STUB = (family: "IPv4" | "IPv6") =>
  [
    "*nat",
    ":KUBE-MARK-MASQ - [0:0]",
    ":KUBE-POSTROUTING - [0:0]",
    '-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING',
    "-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000",
    "-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN",
    "-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000",
    `-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE`,
    "COMMIT",
    "",
  ].join("\n") + (family === "IPv4" ? "" : "");

/** Rules the stub adds to built-in chains the hostport rules also use. */
const STUB_RULES: Record<string, number> = { POSTROUTING: 1 };

const stripComments = (s: string) =>
  s
    .split("\n")
    .filter((l) => l !== "" && !l.startsWith("#"))
    .join("\n");

/** `-A` lines per chain, from iptables-save text. */
function ruleCounts(save: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const l of save.split("\n")) {
    if (l.startsWith(":")) counts[l.slice(1).split(" ")[0] ?? ""] ??= 0;
    if (l.startsWith("-A ")) {
      const c = l.split(" ")[1] ?? "";
      counts[c] = (counts[c] ?? 0) + 1;
    }
  }
  return counts;
}

function loadAndRoundTrip(
  ns: Netns,
  other: Netns,
  text: string,
  tool: "iptables" | "ip6tables",
): string {
  ns.exec(`${tool}-restore`, [], KUBE_PROXY_STUB(tool === "iptables" ? "IPv4" : "IPv6"));
  ns.exec(`${tool}-restore`, ["--noflush"], text);
  const saved = ns.exec(`${tool}-save`, ["-t", "nat"]);
  other.exec(`${tool}-restore`, [], saved);
  const again = other.exec(`${tool}-save`, ["-t", "nat"]);
  expect(stripComments(again)).toBe(stripComments(saved));
  return saved;
}

const acceptanceAdds: [PodPortMapping, boolean][] = [
  [
    {
      name: "pod1",
      namespace: "ns1",
      ip: "10.1.1.2",
      hostNetwork: false,
      portMappings: [
        { hostPort: 8080, containerPort: 80, protocol: "TCP" },
        { hostPort: 8081, containerPort: 81, protocol: "UDP" },
        { hostPort: 8083, containerPort: 83, protocol: "SCTP" },
      ],
    },
    true,
  ],
  [
    {
      name: "pod5",
      namespace: "ns5",
      ip: "10.1.1.5",
      hostNetwork: false,
      portMappings: [
        { hostPort: 8888, containerPort: 443, protocol: "TCP", hostIP: "127.0.0.2" },
        { hostPort: 8888, containerPort: 443, protocol: "TCP", hostIP: "127.0.0.1" },
      ],
    },
    true,
  ],
];

describe("hostport rules on a real kernel", () => {
  kernelTest(
    "our iptables-save rendering equals the kernel's, for kubenet and portmap, IPv4 and IPv6",
    ["root", "ip", "iptables", "ip6tables"],
    async () => {
      const ex = join(__dirname, "../../examples/sctp-hostport");
      const cluster = parseCluster([
        { file: "pods.yaml", text: readFileSync(join(ex, "pods.yaml"), "utf8") },
      ]);
      const node = parseNodeEnvironment(readFileSync(join(ex, "node.yaml"), "utf8"), "node.yaml");
      for (const impl of ["kubenet", "portmap"] as const) {
        const f = hostportRulesForNode(cluster, node, { impl }).families[0]!;
        const external = impl === "kubenet" ? ":KUBE-MARK-MASQ - [0:0]\n" : "";
        await withNetns(
          1,
          ([ns]) => {
            ns!.exec("iptables-restore", [], f.restore.replace("*nat\n", `*nat\n${external}`));
            const kernel = ns!.exec("iptables-save", ["-t", "nat"]);
            expect(stripComments(formatHostportSave(f))).toBe(stripComments(kernel));
          },
          PREFIX,
        );
      }
      const v6 = new HostportManager({ family: "IPv6", natInterfaceName: "cbr0" });
      v6.add("id", {
        name: "pod1",
        namespace: "ns1",
        ip: "2001:beef::2",
        hostNetwork: false,
        portMappings: [
          { hostPort: 8080, containerPort: 80, protocol: "TCP" },
          { hostPort: 8083, containerPort: 83, protocol: "SCTP", hostIP: "2001:db8::1" },
        ],
      });
      await withNetns(
        1,
        ([ns]) => {
          const text = v6.save("restore").replace("*nat\n", "*nat\n:KUBE-MARK-MASQ - [0:0]\n");
          ns!.exec("ip6tables-restore", [], text);
          const kernel = ns!.exec("ip6tables-save", ["-t", "nat"]);
          const ours = formatHostportSave({ family: "IPv6", nat: v6.natTable() });
          expect(stripComments(ours)).toBe(stripComments(kernel));
        },
        PREFIX,
      );
    },
  );

  kernelTest(
    "kubenet IPv4 rules load, round-trip, and save as spec A.7 says",
    ["root", "ip", "iptables"],
    async () => {
      const m = new HostportManager({ family: "IPv4", natInterfaceName: "cbr0" });
      for (const [pm] of acceptanceAdds) m.add("id", pm);
      const ours = m.save("restore");
      await withNetns(
        2,
        ([a, b]) => {
          const saved = loadAndRoundTrip(a!, b!, ours, "iptables");
          const lines = saved.split("\n");
          // Spec A.7: "Real iptables-save would render the same rules normalised".
          expect(lines).toContain(
            '-A KUBE-HOSTPORTS -p tcp -m comment --comment "pod1_ns1 hostport 8080" -m tcp --dport 8080 -j KUBE-HP-IJHALPHTORMHHPPK',
          );
          expect(lines).toContain(
            '-A KUBE-HP-IJHALPHTORMHHPPK -s 10.1.1.2/32 -m comment --comment "pod1_ns1 hostport 8080" -j KUBE-MARK-MASQ',
          );
          expect(lines).toContain(
            '-A KUBE-HP-IJHALPHTORMHHPPK -p tcp -m comment --comment "pod1_ns1 hostport 8080" -m tcp -j DNAT --to-destination 10.1.1.2:80',
          );
          // Every chain of ours holds as many rules in the kernel as in our table.
          const kernel = ruleCounts(saved);
          for (const c of m.natTable().chains)
            expect([c.name, (kernel[c.name] ?? 0) - (STUB_RULES[c.name] ?? 0)]).toEqual([
              c.name,
              c.rules.length,
            ]);
        },
        PREFIX,
      );
    },
  );

  kernelTest(
    "kubenet IPv6 rules load and round-trip with ip6tables",
    ["root", "ip", "ip6tables"],
    async () => {
      const m = new HostportManager({ family: "IPv6", natInterfaceName: "cbr0" });
      m.add("id", {
        name: "pod1",
        namespace: "ns1",
        ip: "2001:beef::2",
        hostNetwork: false,
        portMappings: [
          { hostPort: 8080, containerPort: 80, protocol: "TCP" },
          { hostPort: 8081, containerPort: 81, protocol: "UDP" },
          { hostPort: 8443, containerPort: 443, protocol: "TCP", hostIP: "2001:db8::1" },
        ],
      });
      await withNetns(
        2,
        ([a, b]) => {
          const saved = loadAndRoundTrip(a!, b!, m.save("restore"), "ip6tables");
          expect(saved).toContain("-s 2001:beef::2/128");
          expect(saved).toContain("--to-destination [2001:beef::2]:80");
          expect(saved).toContain("-s ::1/128 -o cbr0");
        },
        PREFIX,
      );
    },
  );

  kernelTest("portmap rules load and round-trip", ["root", "ip", "iptables"], async () => {
    let t = emptyNatTable("IPv4", true);
    t = portmapAdd(t, { name: "test" }, "c1", "10.0.0.2/24", [
      { hostPort: 8080, containerPort: 80, protocol: "tcp" },
      { hostPort: 8083, containerPort: 83, protocol: "tcp", hostIP: "192.168.0.2" },
      { hostPort: 8082, containerPort: 82, protocol: "udp" },
      { hostPort: 5060, containerPort: 5060, protocol: "sctp" },
    ]);
    await withNetns(
      2,
      ([a, b]) => {
        const saved = loadAndRoundTrip(a!, b!, formatNatTable(t, "restore"), "iptables");
        const lines = saved.split("\n");
        // Spec B.6's normalised examples (subnet source, /32, -p first, multiport --dports).
        expect(lines).toContain("-A PREROUTING -m addrtype --dst-type LOCAL -j CNI-HOSTPORT-DNAT");
        expect(lines).toContain(
          '-A POSTROUTING -m comment --comment "CNI portfwd requiring masquerade" -j CNI-HOSTPORT-MASQ',
        );
        expect(lines).toContain(
          '-A CNI-HOSTPORT-SETMARK -m comment --comment "CNI portfwd masquerade mark" -j MARK --set-xmark 0x2000/0x2000',
        );
        expect(lines).toContain("-A CNI-HOSTPORT-MASQ -m mark --mark 0x2000/0x2000 -j MASQUERADE");
        const dn = lines.filter((l) => l.startsWith("-A CNI-DN-"));
        expect(dn).toContain(
          `${dn[0]!.split(" ").slice(0, 2).join(" ")} -s 10.0.0.0/24 -p tcp -m tcp --dport 8080 -j CNI-HOSTPORT-SETMARK`,
        );
        expect(
          dn.some((l) => l.includes("-s 10.0.0.0/24 -d 192.168.0.2/32 -p tcp -m tcp --dport 8083")),
        ).toBe(true);
        expect(lines.some((l) => l.includes("-m multiport --dports 8080,8083"))).toBe(true);
      },
      PREFIX,
    );
  });

  kernelTest(
    "a TCP and a UDP connection to the host port reach the pod namespace",
    ["root", "ip", "iptables"],
    async () => {
      const web: PodPortMapping = {
        name: "web",
        namespace: "default",
        ip: "10.244.1.5",
        hostNetwork: false,
        portMappings: [
          { hostPort: 80, containerPort: 8080, protocol: "TCP" },
          { hostPort: 81, containerPort: 8081, protocol: "UDP" },
        ],
      };
      const m = new HostportManager({ family: "IPv4", natInterfaceName: "cbr0" });
      m.add("sandbox-web", web);
      await withNetns(
        3,
        async ([node, pod, client]) => {
          const n = node!;
          const p = pod!;
          const c = client!;
          // The links, addresses, routes and forwarding from one script (one spawn; see
          // src/backends/ip-script.ts).
          const script = new IpScript()
            .veth(n, "cbr0", p, "eth0")
            .veth(n, "eth0", c, "eth0")
            .ip(n, ["addr", "add", "10.244.1.1/24", "dev", "cbr0"])
            .ip(n, ["addr", "add", "192.168.0.2/24", "dev", "eth0"])
            .ip(p, ["addr", "add", "10.244.1.5/24", "dev", "eth0"])
            .ip(c, ["addr", "add", "192.168.0.10/24", "dev", "eth0"]);
          for (const [ns, devs] of [
            [n, ["lo", "cbr0", "eth0"]],
            [p, ["lo", "eth0"]],
            [c, ["lo", "eth0"]],
          ] as const)
            for (const d of devs) script.ip(ns, ["link", "set", d, "up"]);
          script
            .ip(p, ["route", "add", "0.0.0.0/0", "via", "10.244.1.1"])
            .ip(c, ["route", "add", "0.0.0.0/0", "via", "192.168.0.2"])
            .sysctl(n, ["net.ipv4.ip_forward=1"])
            .run();
          n.exec("iptables-restore", [], KUBE_PROXY_STUB("IPv4"));
          n.exec("iptables-restore", ["--noflush"], m.save("restore"));

          const server = startServer(p.name);
          try {
            await server.ready;
            // From outside the node, through PREROUTING.
            expect(c.exec("node", ["-e", CLIENT, "tcp", "192.168.0.2", "80"]).trim()).toBe(
              "pod-tcp from 192.168.0.10",
            );
            expect(c.exec("node", ["-e", CLIENT, "udp", "192.168.0.2", "81"]).trim()).toBe(
              "pod-udp",
            );
            // From the node itself, through OUTPUT (source: the node IP, not masqueraded).
            expect(n.exec("node", ["-e", CLIENT, "tcp", "192.168.0.2", "80"]).trim()).toBe(
              "pod-tcp from 192.168.0.2",
            );
            // From the node via 127.0.0.1: DNAT in OUTPUT, then the manager's localhost SNAT on
            // cbr0 (route_localnet lets 127.0.0.1 leave lo, as kubelet/kube-proxy set it).
            n.exec("sysctl", ["-qw", "net.ipv4.conf.all.route_localnet=1"]);
            expect(n.exec("node", ["-e", CLIENT, "tcp", "127.0.0.1", "80"]).trim()).toBe(
              "pod-tcp from 10.244.1.1",
            );
            // The pod reaching itself through the host port: hairpin, masqueraded to the bridge IP.
            expect(p.exec("node", ["-e", CLIENT, "tcp", "192.168.0.2", "80"]).trim()).toBe(
              "pod-tcp from 10.244.1.1",
            );
            // Another protocol on the same port is not captured: UDP to 80 gets no answer.
            expect(c.run("node", ["-e", CLIENT, "udp", "192.168.0.2", "80"]).status).not.toBe(0);
          } finally {
            await server.stop();
          }
        },
        PREFIX,
      );
    },
  );
});

const SERVER = `
const net = require("node:net"), dgram = require("node:dgram");
const t = net.createServer((s) => s.end("pod-tcp from " + s.remoteAddress + "\\n")).listen(8080, "0.0.0.0", () => {
  const u = dgram.createSocket("udp4");
  u.on("message", (_m, r) => u.send("pod-udp\\n", r.port, r.address));
  u.bind(8081, "0.0.0.0", () => console.log("ready"));
});`;

const CLIENT = `
const [proto, host, port] = process.argv.slice(1);
const done = (s) => { process.stdout.write(s); process.exit(0); };
setTimeout(() => process.exit(3), 1500);
if (proto === "tcp") {
  let buf = "";
  require("node:net").connect(Number(port), host).on("data", (d) => (buf += d)).on("end", () => done(buf)).on("error", () => process.exit(2));
} else {
  const u = require("node:dgram").createSocket("udp4");
  u.on("message", (m) => done(String(m)));
  u.send("hi", Number(port), host);
}`;

function startServer(nsName: string): { ready: Promise<void>; stop: () => Promise<void> } {
  const child: ChildProcess = spawn("ip", ["netns", "exec", nsName, "node", "-e", SERVER], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  let timer: NodeJS.Timeout | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => {
      if (String(d).includes("ready")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`server exited with ${code}`)));
    timer = setTimeout(() => reject(new Error("server did not start")), 10_000);
  }).finally(() => clearTimeout(timer));
  return {
    ready,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
