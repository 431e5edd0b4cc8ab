import { describe, expect, test } from "@jest/globals";
import { HostportError, HostportManager, type PodPortMapping } from "../../src/hostports/index.js";

const pod = (
  name: string,
  namespace: string,
  ip: string,
  portMappings: PodPortMapping["portMappings"],
): PodPortMapping => ({ name, namespace, ip, hostNetwork: false, portMappings });

function errorOf(f: () => void): HostportError | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    if (e instanceof HostportError) return e;
    throw e;
  }
}

describe("IPv6 manager (upstream TestHostportManagerIPv6)", () => {
  const cases: [PodPortMapping, boolean][] = [
    [
      pod("pod1", "ns1", "2001:beef::2", [
        { hostPort: 8080, containerPort: 80, protocol: "TCP" },
        { hostPort: 8081, containerPort: 81, protocol: "UDP" },
        { hostPort: 8083, containerPort: 83, protocol: "SCTP" },
      ]),
      false,
    ],
    [
      pod("pod2", "ns1", "2001:beef::3", [
        { hostPort: 8082, containerPort: 80, protocol: "TCP" },
        { hostPort: 8081, containerPort: 81, protocol: "UDP" },
        { hostPort: 8083, containerPort: 83, protocol: "SCTP" },
      ]),
      true,
    ],
    [
      pod("pod3", "ns1", "2001:beef::4", [{ hostPort: 8443, containerPort: 443, protocol: "TCP" }]),
      false,
    ],
    [
      pod("pod4", "ns2", "192.168.2.2", [{ hostPort: 8443, containerPort: 443, protocol: "TCP" }]),
      true,
    ],
  ];
  // The upstream lines, except that the fake's `/32` after IPv6 hosts is the `/128` a real
  // ip6tables-save prints (the only deviation; see hostport-manager.ts).
  const expected = new Set([
    "*nat",
    ":KUBE-HOSTPORTS - [0:0]",
    ":OUTPUT - [0:0]",
    ":PREROUTING - [0:0]",
    ":POSTROUTING - [0:0]",
    ":KUBE-HP-IJHALPHTORMHHPPK - [0:0]",
    ":KUBE-HP-63UPIDJXVRSZGSUZ - [0:0]",
    ":KUBE-HP-WFBOALXEP42XEMJK - [0:0]",
    ":KUBE-HP-XU6AWMMJYOZOFTFZ - [0:0]",
    '-A KUBE-HOSTPORTS -m comment --comment "pod3_ns1 hostport 8443" -m tcp -p tcp --dport 8443 -j KUBE-HP-WFBOALXEP42XEMJK',
    '-A KUBE-HOSTPORTS -m comment --comment "pod1_ns1 hostport 8081" -m udp -p udp --dport 8081 -j KUBE-HP-63UPIDJXVRSZGSUZ',
    '-A KUBE-HOSTPORTS -m comment --comment "pod1_ns1 hostport 8080" -m tcp -p tcp --dport 8080 -j KUBE-HP-IJHALPHTORMHHPPK',
    '-A KUBE-HOSTPORTS -m comment --comment "pod1_ns1 hostport 8083" -m sctp -p sctp --dport 8083 -j KUBE-HP-XU6AWMMJYOZOFTFZ',
    '-A OUTPUT -m comment --comment "kube hostport portals" -m addrtype --dst-type LOCAL -j KUBE-HOSTPORTS',
    '-A PREROUTING -m comment --comment "kube hostport portals" -m addrtype --dst-type LOCAL -j KUBE-HOSTPORTS',
    '-A POSTROUTING -m comment --comment "SNAT for localhost access to hostports" -o cbr0 -s ::1/128 -j MASQUERADE',
    '-A KUBE-HP-IJHALPHTORMHHPPK -m comment --comment "pod1_ns1 hostport 8080" -s 2001:beef::2/128 -j KUBE-MARK-MASQ',
    '-A KUBE-HP-IJHALPHTORMHHPPK -m comment --comment "pod1_ns1 hostport 8080" -m tcp -p tcp -j DNAT --to-destination [2001:beef::2]:80',
    '-A KUBE-HP-63UPIDJXVRSZGSUZ -m comment --comment "pod1_ns1 hostport 8081" -s 2001:beef::2/128 -j KUBE-MARK-MASQ',
    '-A KUBE-HP-63UPIDJXVRSZGSUZ -m comment --comment "pod1_ns1 hostport 8081" -m udp -p udp -j DNAT --to-destination [2001:beef::2]:81',
    '-A KUBE-HP-XU6AWMMJYOZOFTFZ -m comment --comment "pod1_ns1 hostport 8083" -s 2001:beef::2/128 -j KUBE-MARK-MASQ',
    '-A KUBE-HP-XU6AWMMJYOZOFTFZ -m comment --comment "pod1_ns1 hostport 8083" -m sctp -p sctp -j DNAT --to-destination [2001:beef::2]:83',
    '-A KUBE-HP-WFBOALXEP42XEMJK -m comment --comment "pod3_ns1 hostport 8443" -s 2001:beef::4/128 -j KUBE-MARK-MASQ',
    '-A KUBE-HP-WFBOALXEP42XEMJK -m comment --comment "pod3_ns1 hostport 8443" -m tcp -p tcp -j DNAT --to-destination [2001:beef::4]:443',
    "COMMIT",
  ]);

  test("errors, sockets, saved lines, removal", () => {
    const m = new HostportManager({ family: "IPv6", natInterfaceName: "cbr0" });
    const errs = cases.map(([pm]) => errorOf(() => m.add("id", pm)));
    expect(errs.map((e) => e !== undefined)).toEqual(cases.map(([, fails]) => fails));
    expect(errs[3]?.detail.kind).toBe("family-mismatch");
    expect(errs[3]?.message).toBe(
      "HostPortManager IP family mismatch: 192.168.2.2, isIPv6 - false",
    );
    expect(m.openSockets()).toEqual([
      { family: "IPv6", hostIP: "", port: 8080, protocol: "tcp" },
      { family: "IPv6", hostIP: "", port: 8081, protocol: "udp" },
      { family: "IPv6", hostIP: "", port: 8443, protocol: "tcp" },
    ]);
    const lines = m
      .save()
      .split("\n")
      .filter((l) => l.trim() !== "");
    expect(new Set(lines)).toEqual(expected);
    cases.forEach(([pm, fails]) => {
      if (!fails) m.remove("id", pm);
    });
    expect(m.save()).not.toContain("KUBE-HP-");
    expect(m.openSockets()).toEqual([]);
  });
});

describe("kubelet errors", () => {
  test("missing pod IP", () => {
    const m = new HostportManager({ family: "IPv4", natInterfaceName: "cbr0" });
    const e = errorOf(() =>
      m.add("id", pod("p", "ns", "", [{ hostPort: 80, containerPort: 80, protocol: "TCP" }])),
    );
    expect(e?.message).toBe("invalid or missing IP of pod p_ns");
    expect(m.save()).toBe("*nat\nCOMMIT\n");
  });

  test("a failed Add programs nothing and releases the ports it opened", () => {
    const m = new HostportManager({ family: "IPv4", natInterfaceName: "cbr0" });
    m.add("a", pod("a", "ns", "10.0.0.2", [{ hostPort: 81, containerPort: 81, protocol: "UDP" }]));
    const before = m.save();
    const e = errorOf(() =>
      m.add(
        "b",
        pod("b", "ns", "10.0.0.3", [
          { hostPort: 80, containerPort: 80, protocol: "TCP" },
          { hostPort: 81, containerPort: 81, protocol: "UDP" },
        ]),
      ),
    );
    expect(e?.detail.kind).toBe("cannot-open-hostport");
    expect(m.save()).toBe(before);
    expect(m.openSockets()).toEqual([{ family: "IPv4", hostIP: "", port: 81, protocol: "udp" }]);
  });

  test("SCTP host ports are never reserved: a second pod shadows the first (newest first)", () => {
    const m = new HostportManager({ family: "IPv4", natInterfaceName: "cbr0" });
    m.add("a", pod("a", "ns", "10.0.0.2", [{ hostPort: 9, containerPort: 9, protocol: "SCTP" }]));
    m.add("b", pod("b", "ns", "10.0.0.3", [{ hostPort: 9, containerPort: 9, protocol: "SCTP" }]));
    expect(m.openSockets()).toEqual([]);
    const jumps = m
      .save()
      .split("\n")
      .filter((l) => l.startsWith("-A KUBE-HOSTPORTS"));
    expect(jumps).toHaveLength(2);
    expect(jumps[0]).toContain('"b_ns hostport 9"');
  });

  test("hostNetwork pods and pods without host ports are no-ops", () => {
    const m = new HostportManager({ family: "IPv4", natInterfaceName: "cbr0" });
    m.add("a", {
      ...pod("a", "ns", "10.0.0.2", [{ hostPort: 80, containerPort: 80, protocol: "TCP" }]),
      hostNetwork: true,
    });
    m.add("b", pod("b", "ns", "10.0.0.2", [{ hostPort: 0, containerPort: 80, protocol: "TCP" }]));
    expect(m.save()).toBe("*nat\nCOMMIT\n");
  });

  test("kernel bind semantics: a wildcard socket blocks a specific address on the same port", () => {
    const fake = new HostportManager({ family: "IPv4", natInterfaceName: "cbr0" });
    const kernel = new HostportManager({
      family: "IPv4",
      natInterfaceName: "cbr0",
      bindSemantics: "kernel",
    });
    for (const m of [fake, kernel])
      m.add(
        "a",
        pod("a", "ns", "10.0.0.2", [{ hostPort: 80, containerPort: 80, protocol: "TCP" }]),
      );
    const second = pod("b", "ns", "10.0.0.3", [
      { hostPort: 80, containerPort: 80, protocol: "TCP", hostIP: "127.0.0.1" },
    ]);
    expect(errorOf(() => fake.add("b", second))).toBeUndefined();
    const e = errorOf(() => kernel.add("b", second));
    expect(e?.message).toBe(
      "cannot open hostport 80 for pod b_ns: listen tcp4 127.0.0.1:80: bind: address already in use",
    );
  });

  test("no localhost SNAT rule for natInterfaceName lo", () => {
    const m = new HostportManager({ family: "IPv4", natInterfaceName: "lo" });
    m.add("a", pod("a", "ns", "10.0.0.2", [{ hostPort: 80, containerPort: 80, protocol: "TCP" }]));
    expect(m.save()).not.toContain("POSTROUTING");
  });
});
