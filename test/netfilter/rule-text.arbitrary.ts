/**
 * fast-check arbitraries for iptables rule text over every modelled extension, in restore
 * spelling (kube-proxy order, bare addresses, aliases), for the kernel round-trip properties.
 */
import { fc } from "@fast-check/jest";
import type { IPFamily } from "../../src/net/index.js";

const port = fc.oneof(fc.constantFrom(1, 80, 443, 65535), fc.integer({ min: 1, max: 65535 }));
const portSpec = fc.oneof(
  { arbitrary: port.map(String), weight: 4 },
  {
    arbitrary: fc.tuple(port, port).map(([a, b]) => `${Math.min(a, b)}:${Math.max(a, b)}`),
    weight: 4,
  },
  // Either order: udp and conntrack keep a reversed range, tcp, sctp and multiport refuse it.
  { arbitrary: fc.tuple(port, port).map(([a, b]) => `${a}:${b}`), weight: 1 },
);
const neg = fc.constantFrom("", "! ");
const hex32 = fc.oneof(
  fc.constantFrom(0x4000, 0x1, 0xffffffff, 0),
  fc.integer({ min: 0, max: 0xffffffff }),
);
const hx = (n: number): string => `0x${n.toString(16)}`;

function addr(family: IPFamily): fc.Arbitrary<string> {
  if (family === "IPv4")
    return fc
      .tuple(fc.ipV4(), fc.option(fc.integer({ min: 0, max: 32 }), { nil: undefined }))
      .map(([a, p]) => (p === undefined ? a : `${a}/${p}`));
  return fc
    .tuple(
      fc.constantFrom(
        "fd00::1",
        "2001:db8::",
        "::1",
        "fe80::1:2",
        "2001:db8:1:2:3:4:5:6",
        "::ffff:0:1",
      ),
      fc.option(fc.integer({ min: 0, max: 128 }), { nil: undefined }),
    )
    .map(([a, p]) => (p === undefined ? a : `${a}/${p}`));
}
function host(family: IPFamily): fc.Arbitrary<string> {
  return family === "IPv4" ? fc.ipV4() : fc.constantFrom("fd00::1", "2001:db8::5", "fd00::a:b");
}

const comment = fc.oneof(
  fc.constantFrom(
    "default/kubernetes:https cluster IP",
    "ns/svc:p",
    "x",
    "",
    'a"b',
    "a\\b",
    "it's",
    "tab\there",
  ),
  fc
    .string({ maxLength: 20 })
    .filter((s) => !s.includes("\n") && !s.includes("\r") && !s.includes("\0")),
);
function quote(s: string): string {
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

const ctStates = fc.subarray(
  ["NEW", "ESTABLISHED", "RELATED", "INVALID", "UNTRACKED", "SNAT", "DNAT"],
  { minLength: 1 },
);
const addrTypes = fc.subarray(
  ["LOCAL", "UNICAST", "BROADCAST", "MULTICAST", "BLACKHOLE", "UNREACHABLE"],
  { minLength: 1 },
);

export type Proto = "tcp" | "udp" | "sctp" | "icmp" | "none";

function protoMatch(proto: Proto, family: IPFamily): fc.Arbitrary<string> {
  switch (proto) {
    case "tcp":
      return fc.oneof(
        fc
          .tuple(neg, portSpec, fc.boolean())
          .map(([n, p, m]) => `${m ? "-m tcp " : ""}${n}--dport ${p}`),
        fc
          .tuple(neg, portSpec, neg, portSpec)
          .map(([n, p, n2, q]) => `-m tcp ${n}--sport ${p} ${n2}--dport ${q}`),
        fc.tuple(neg).map(([n]) => `${n}--syn`),
        fc
          .tuple(
            neg,
            fc.constantFrom("SYN,ACK SYN", "ALL NONE", "FIN,RST RST", "SYN,RST,ACK,FIN SYN"),
          )
          .map(([n, f]) => `-m tcp ${n}--tcp-flags ${f}`),
        fc
          .tuple(
            neg,
            fc.array(portSpec, { minLength: 1, maxLength: 5 }),
            fc.constantFrom("sports", "dports", "ports"),
          )
          .map(([n, l, k]) => `-m multiport ${n}--${k} ${l.join(",")}`),
      );
    case "udp":
      return fc.oneof(
        fc.tuple(neg, portSpec).map(([n, p]) => `-m udp ${n}--dport ${p}`),
        fc.tuple(neg, portSpec).map(([n, p]) => `${n}--sport ${p}`),
      );
    case "sctp":
      return fc.oneof(
        fc.tuple(neg, portSpec).map(([n, p]) => `-m sctp ${n}--dport ${p}`),
        fc.tuple(neg, portSpec).map(([n, p]) => `${n}--sport ${p}`),
        fc
          .tuple(
            neg,
            fc.constantFrom("any", "all", "only"),
            fc.subarray(["INIT", "DATA", "SACK", "ABORT", "COOKIE_ECHO"], { minLength: 1 }),
          )
          .map(([n, m, l]) => `-m sctp ${n}--chunk-types ${m} ${l.join(",")}`),
      );
    case "icmp":
      return family === "IPv4"
        ? fc
            .tuple(
              neg,
              fc.constantFrom(
                "echo-request",
                "any",
                "3/3",
                "port-unreachable",
                "11",
                "destination-unreachable",
              ),
            )
            .map(([n, t]) => `-m icmp ${n}--icmp-type ${t}`)
        : fc
            .tuple(
              neg,
              fc.constantFrom(
                "echo-request",
                "1/4",
                "port-unreachable",
                "128",
                "neighbour-solicitation",
              ),
            )
            .map(([n, t]) => `-m icmp6 ${n}--icmpv6-type ${t}`);
    case "none":
      return fc.constant("");
  }
}

function genericMatch(family: IPFamily): fc.Arbitrary<string> {
  return fc.oneof(
    comment.map((c) => `-m comment --comment ${quote(c)}`),
    fc.tuple(neg, ctStates).map(([n, s]) => `-m conntrack ${n}--ctstate ${s.join(",")}`),
    fc
      .tuple(neg, addr(family), neg, portSpec)
      .map(([n, a, n2, p]) => `-m conntrack ${n}--ctorigdst ${a} ${n2}--ctorigdstport ${p}`),
    fc
      .tuple(fc.constantFrom("ORIGINAL", "REPLY"), neg)
      .map(([d, n]) => `-m conntrack --ctdir ${d} ${n}--ctstatus ASSURED,SEEN_REPLY`),
    fc
      .tuple(neg, fc.subarray(["NEW", "ESTABLISHED", "RELATED", "INVALID"], { minLength: 1 }))
      .map(([n, s]) => `-m state ${n}--state ${s.join(",")}`),
    fc
      .tuple(neg, hex32, fc.option(hex32, { nil: undefined }), fc.constantFrom("mark", "connmark"))
      .map(
        ([n, v, m, mod]) => `-m ${mod} ${n}--mark ${hx(v)}${m === undefined ? "" : `/${hx(m)}`}`,
      ),
    fc
      .tuple(
        neg,
        addrTypes,
        fc.constantFrom("src", "dst"),
        fc.constantFrom("", " --limit-iface-in", " --limit-iface-out"),
      )
      .map(([n, t, d, l]) => `-m addrtype ${n}--${d}-type ${t.join(",")}${l}`),
    fc
      .tuple(
        neg,
        fc.oneof(
          fc.double({ min: 0, max: 1, noNaN: true }),
          fc.constantFrom(0.5, 0.1, 0.33333333349, 1, 0, 0.000244140625),
        ),
      )
      .map(([n, p]) => `-m statistic --mode random ${n}--probability ${p.toFixed(10)}`),
    fc
      .tuple(neg, fc.integer({ min: 1, max: 10 }), fc.nat())
      .map(([n, e, p]) => `-m statistic --mode nth ${n}--every ${e} --packet ${p % e}`),
    fc
      .tuple(
        neg,
        fc.constantFrom("KUBE-X", "foo", "a-b"),
        fc.constantFrom(
          "--set",
          "--rcheck --seconds 10800 --reap",
          "--update --seconds 5 --hitcount 3",
          "--remove",
          "--rcheck --rttl",
        ),
        fc.constantFrom("", " --rdest", " --rsource"),
      )
      .map(([n, name, a, side]) => `-m recent --name ${name} ${n}${a}${side}`),
    fc
      .tuple(
        neg,
        fc.constantFrom("kns-ip", "kns-ipport"),
        fc.constantFrom("src", "dst", "src,dst", "dst,dst"),
      )
      .map(([n, s, f]) => `-m set ${n}--match-set ${s} ${f}`),
    fc
      .tuple(neg, host(family), host(family), fc.constantFrom("src", "dst"))
      .map(([n, a, b, d]) => `-m iprange ${n}--${d}-range ${a}-${b}`),
    fc
      .tuple(
        fc.integer({ min: 1, max: 100 }),
        fc.constantFrom("second", "sec", "minute", "min", "hour", "day", "s"),
        fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
      )
      .map(
        ([r, u, b]) => `-m limit --limit ${r}/${u}${b === undefined ? "" : ` --limit-burst ${b}`}`,
      ),
    fc
      .tuple(
        neg,
        fc.constantFrom(
          "--physdev-in eth0",
          "--physdev-out veth1",
          "--physdev-is-bridged",
          "--physdev-is-in",
        ),
      )
      .map(([n, o]) => `-m physdev ${n}${o}`),
  );
}

function target(
  family: IPFamily,
  table: string,
  proto: Proto,
  chains: readonly string[],
): fc.Arbitrary<string> {
  const common = [
    fc.constantFrom("-j ACCEPT", "-j DROP", "-j RETURN", ""),
    fc.constantFrom(...chains).map((c) => `-j ${c}`),
    fc.constantFrom(...chains).map((c) => `-g ${c}`),
    fc
      .tuple(
        fc.constantFrom("--set-xmark", "--set-mark", "--or-mark", "--and-mark", "--xor-mark"),
        hex32,
        fc.option(hex32, { nil: undefined }),
      )
      .map(
        ([op, v, m]) =>
          `-j MARK ${op} ${hx(v)}${m !== undefined && (op === "--set-xmark" || op === "--set-mark") ? `/${hx(m)}` : ""}`,
      ),
    fc.oneof(
      fc.tuple(hex32, hex32).map(([v, m]) => `-j CONNMARK --set-xmark ${hx(v)}/${hx(m)}`),
      fc.constantFrom(
        "-j CONNMARK --save-mark",
        "-j CONNMARK --restore-mark --mask 0xff",
        "-j CONNMARK --save-mark --nfmask 0x1 --ctmask 0x2",
        "-j CONNMARK --or-mark 0x4",
      ),
    ),
    fc.constantFrom(
      '-j LOG --log-prefix "kube x: " --log-level info',
      "-j LOG",
      "-j LOG --log-level 4 --log-uid",
      "-j NFLOG --nflog-group 3",
      "-j NFLOG --nflog-prefix p --nflog-threshold 2",
    ),
  ];
  if (table === "filter") {
    const rejects =
      family === "IPv4"
        ? ["icmp-port-unreachable", "icmp-host-prohibited", "net-unreach", "admin-prohib"]
        : ["icmp6-port-unreachable", "adm-prohibited", "no-route"];
    if (proto === "tcp") rejects.push("tcp-reset");
    common.push(
      fc.constantFrom("-j REJECT", ...rejects.map((r) => `-j REJECT --reject-with ${r}`)),
    );
  }
  if (table === "nat") {
    const h = host(family);
    const withPort = proto === "tcp" || proto === "udp" || proto === "sctp";
    common.push(
      fc
        .tuple(h, port, fc.boolean())
        .map(
          ([a, p, r]) =>
            `-j DNAT --to-destination ${withPort ? (family === "IPv6" ? `[${a}]:${p}` : `${a}:${p}`) : a}${r ? " --random" : ""}`,
        ),
      fc
        .tuple(h, fc.constantFrom("", " --random-fully", " --persistent"))
        .map(([a, o]) => `-j SNAT --to-source ${a}${o}`),
      fc.constantFrom(
        "-j MASQUERADE",
        "-j MASQUERADE --random-fully",
        "-j MASQUERADE --random",
        ...(withPort ? ["-j MASQUERADE --to-ports 1000-2000"] : []),
      ),
    );
  }
  if (table === "raw")
    common.push(fc.constantFrom("-j NOTRACK", "-j CT --notrack", "-j CT --zone 3"));
  return fc.oneof(...common);
}

export function ruleText(
  family: IPFamily,
  table: string,
  chains: readonly string[],
): fc.Arbitrary<string> {
  const proto = fc.constantFrom<Proto>("tcp", "udp", "sctp", "icmp", "none");
  return proto.chain((p) =>
    fc
      .tuple(
        fc.option(
          fc.tuple(neg, addr(family)).map(([n, a]) => `${n}-s ${a}`),
          { nil: undefined },
        ),
        fc.option(
          fc.tuple(neg, addr(family)).map(([n, a]) => `${n}-d ${a}`),
          { nil: undefined },
        ),
        fc.option(
          fc
            .tuple(neg, fc.constantFrom("eth0", "eth+", "lo", "veth1234"))
            .map(([n, i]) => `${n}-i ${i}`),
          { nil: undefined },
        ),
        fc.option(
          fc.tuple(neg, fc.constantFrom("eth1", "cni+")).map(([n, i]) => `${n}-o ${i}`),
          { nil: undefined },
        ),
        protoMatch(p, family),
        fc.array(genericMatch(family), { maxLength: 3 }),
        target(family, table, p, chains),
        fc.boolean(),
      )
      .map(([s, d, i, o, pm, gm, t, kubeOrder]) => {
        const pr =
          p === "none" ? undefined : `-p ${p === "icmp" && family === "IPv6" ? "icmpv6" : p}`;
        const std = [s, d, i, o].filter((x) => x !== undefined);
        // kube-proxy writes "-m comment ... -m tcp -p tcp -d X --dport N"; iptables-save puts -p first.
        const parts = kubeOrder ? [...gm, pr, ...std, pm, t] : [...std, pr, pm, ...gm, t];
        return parts.filter((x) => x !== undefined && x !== "").join(" ");
      }),
  );
}

/** A whole restore input over filter, nat, mangle and raw with a few user chains. */
export function restoreText(family: IPFamily): fc.Arbitrary<string> {
  const chains = ["KUBE-SERVICES", "KUBE-SVC-ABC", "X"];
  const section = (table: string, builtins: readonly string[]): fc.Arbitrary<string> =>
    fc
      .array(fc.tuple(fc.constantFrom(...builtins, ...chains), ruleText(family, table, chains)), {
        maxLength: 6,
      })
      .map((rules) =>
        [
          `*${table}`,
          ...builtins.map((b) => `:${b} ACCEPT [0:0]`),
          ...chains.map((c) => `:${c} - [0:0]`),
          ...rules.map(([c, r]) => (r === "" ? `-A ${c}` : `-A ${c} ${r}`)),
          "COMMIT",
        ].join("\n"),
      );
  return fc
    .tuple(
      section("filter", ["INPUT", "FORWARD", "OUTPUT"]),
      section("nat", ["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"]),
      section("mangle", ["PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"]),
      section("raw", ["PREROUTING", "OUTPUT"]),
    )
    .map((s) => `${s.join("\n")}\n`);
}
