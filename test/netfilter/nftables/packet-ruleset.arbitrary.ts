/**
 * Random nftables rule sets for the real-packet oracle (kernel-packets.property.test.ts), over a
 * fixed node (eth0 192.168.0.10/24, pod bridge cbr0 10.244.1.1/24, pods 10.244.1.5 and
 * 10.244.1.6, endpoints elsewhere 10.244.2.7 and 192.168.0.50, a virtual IP 10.96.0.10 nothing
 * hosts): base chains at prerouting, input, forward, output and postrouting with dnat (direct,
 * through `numgen random mod 1` — one branch, so the kernel's choice is the prediction — and
 * through a verdict map), redirect, snat, masquerade, marks, accept, drop, reject (also
 * `with tcp reset`), jumps and a named address set. Filter verdicts that stop traffic carry
 * `ct state new`, as kube-proxy's do: the tracer follows a connection's first packet, and a rule
 * that also stopped the replies would be a different question.
 */
import fc from "fast-check";
import type {
  Chain,
  Expr,
  NamedSet,
  Rule,
  Statement,
  Table,
  Value,
} from "../../../src/netfilter/nftables/model.js";

export const ORACLE = {
  node: "192.168.0.10",
  podA: "10.244.1.5",
  podB: "10.244.1.6",
  remote: "10.244.2.7",
  lan: "192.168.0.50",
  vip: "10.96.0.10",
  external: "192.168.0.254",
  ports: [80, 8080] as const,
};

const DNAT_TARGETS = [ORACLE.podB, ORACLE.remote, ORACLE.lan, ORACLE.node];
const SOURCES = [ORACLE.podA, ORACLE.node, ORACLE.external, "10.244.0.0/16", "192.168.0.0/24"];
const DESTINATIONS = [ORACLE.vip, ORACLE.podB, ORACLE.remote, ORACLE.lan, ORACLE.node];
const EP_CHAINS = ["ep-0", "ep-1", "ep-2"];

const val = (text: string): Value => ({ kind: "value", text });
const m = (left: Expr, right: Expr, neg = false): Statement => ({
  kind: "match",
  left,
  op: neg ? "!=" : "==",
  right,
  explicit: false,
});
const l4 = (p: string): Statement => m({ kind: "meta", key: "l4proto", short: false }, val(p));
const proto = fc.constantFrom("tcp", "udp");
const port = fc.constantFrom(...ORACLE.ports);

const matchArb: fc.Arbitrary<Statement> = fc.oneof(
  fc
    .tuple(fc.constantFrom(...SOURCES), fc.boolean())
    .map(([a, n]) => m({ kind: "payload", protocol: "ip", field: "saddr" }, val(a), n)),
  fc
    .tuple(fc.constantFrom(...DESTINATIONS), fc.boolean())
    .map(([a, n]) => m({ kind: "payload", protocol: "ip", field: "daddr" }, val(a), n)),
  fc
    .tuple(proto, port)
    .map(([p, n]) => m({ kind: "payload", protocol: p as "tcp", field: "dport" }, val(String(n)))),
  proto.map(l4),
  port.map((n) =>
    m(
      { kind: "payload", protocol: "th", field: "dport" },
      { kind: "set-literal", elements: [String(n), "9"], compact: false },
    ),
  ),
  fc.constant(
    m({ kind: "payload", protocol: "ip", field: "saddr" }, { kind: "set-ref", name: "marked" }),
  ),
  fc.constant<Statement>({
    kind: "match",
    left: {
      kind: "bitwise",
      op: "and",
      left: { kind: "meta", key: "mark", short: false },
      right: { kind: "value", text: "0x10" },
      words: true,
    },
    op: "==",
    right: val("0x10"),
    explicit: true,
  }),
);

const dnatArb: fc.Arbitrary<Statement[]> = fc
  .tuple(proto, fc.constantFrom(...DNAT_TARGETS), port)
  .map(([p, a, n]) => [l4(p), { kind: "dnat", address: a, port: n }]);

/** nft refuses a rule whose transport protocols conflict. */
function protocolsAgree(stmts: readonly Statement[]): boolean {
  const seen = new Set<string>();
  for (const st of stmts) {
    if (st.kind !== "match") continue;
    if (st.left.kind === "payload" && (st.left.protocol === "tcp" || st.left.protocol === "udp"))
      seen.add(st.left.protocol);
    if (st.left.kind === "meta" && st.left.key === "l4proto" && st.right.kind === "value")
      seen.add(st.right.text);
  }
  // `reject with tcp reset` depends on TCP (nft: "you cannot use tcp reset with this protocol").
  if (stmts.some((st) => st.kind === "reject" && st.with?.kind === "tcp reset")) seen.add("tcp");
  return seen.size <= 1;
}

function rule(body: fc.Arbitrary<Statement[]>, guard: Statement[] = []): fc.Arbitrary<Rule> {
  return fc
    .tuple(fc.array(matchArb, { maxLength: 2 }), body)
    .map(([ms, b]) => [...guard, ...ms, ...b])
    .filter(protocolsAgree)
    .map((statements): Rule => ({ statements }));
}

const markSet: Statement = {
  kind: "mark-set",
  short: false,
  value: {
    kind: "bitwise",
    op: "or",
    left: { kind: "meta", key: "mark", short: false },
    right: { kind: "value", text: "0x10" },
    words: true,
  },
};

const natPre = rule(
  fc.oneof(
    dnatArb,
    fc.constantFrom(...EP_CHAINS).map((c): Statement[] => [
      {
        kind: "vmap",
        key: { kind: "numgen", mode: "random", mod: 1 },
        map: { kind: "vmap-literal", entries: [{ key: "0", verdict: { kind: "goto", chain: c } }] },
      },
    ]),
    fc.constant<Statement[]>([
      {
        kind: "vmap",
        key: {
          kind: "concat",
          parts: [
            { kind: "payload", protocol: "ip", field: "daddr" },
            { kind: "meta", key: "l4proto", short: false },
            { kind: "payload", protocol: "th", field: "dport" },
          ],
        },
        map: { kind: "set-ref", name: "svc" },
      },
    ]),
    fc
      .constantFrom(...EP_CHAINS)
      .map((c): Statement[] => [{ kind: "verdict", verdict: { kind: "jump", chain: c } }]),
    fc.constant<Statement[]>([markSet]),
    fc.constant<Statement[]>([{ kind: "verdict", verdict: { kind: "accept" } }]),
  ),
);
const natPreOnly = rule(
  fc
    .tuple(proto, port)
    .map(([p, n]): Statement[] => [l4(p), { kind: "redirect", port: n, flags: [] }]),
);

const natPost = rule(
  fc.oneof(
    fc.boolean().map((fullyRandom): Statement[] => [{ kind: "masquerade", fullyRandom }]),
    fc.constant<Statement[]>([{ kind: "snat", to: { address: ORACLE.node }, flags: [] }]),
    fc.constant<Statement[]>([{ kind: "verdict", verdict: { kind: "accept" } }]),
  ),
);

const CT_NEW: Statement = m({ kind: "ct", key: "state" }, val("new"));
const filterRule = fc.oneof(
  rule(
    fc.constantFrom<Statement[]>(
      [{ kind: "verdict", verdict: { kind: "drop" } }],
      [{ kind: "reject" }],
      [{ kind: "reject", with: { kind: "tcp reset" } }],
      // Not net-/host-unreachable: Linux does not report those "soft" ICMP errors to a UDP
      // socket (icmp_err_convert), so the client waits; the rule's REJECT looks like a drop.
      [{ kind: "reject", with: { kind: "icmp", type: "host-prohibited" } }],
      [{ kind: "reject", with: { kind: "icmp", type: "admin-prohibited" } }],
    ),
    [CT_NEW],
  ),
  rule(fc.constant<Statement[]>([{ kind: "verdict", verdict: { kind: "accept" } }])),
);

const epRule = fc.oneof(
  rule(dnatArb),
  rule(fc.constant<Statement[]>([markSet])),
  rule(fc.constant<Statement[]>([{ kind: "verdict", verdict: { kind: "return" } }])),
);

/**
 * The external client shares its namespace with the endpoints outside the node: a connection
 * from it DNATed to one of them would be answered directly, past the node's conntrack (the
 * client sees the wrong peer). kube-proxy masquerades such traffic; so does this fixed first
 * rule, so that replies return through the node as the tracer assumes.
 */
const HAIRPIN_GUARD: Rule = {
  statements: [
    m({ kind: "payload", protocol: "ip", field: "saddr" }, val(ORACLE.external)),
    m({ kind: "ct", key: "status" }, val("dnat")),
    { kind: "masquerade", fullyRandom: false },
  ],
};

function base(
  name: string,
  type: "filter" | "nat",
  hook: "prerouting" | "input" | "forward" | "output" | "postrouting",
  priority: number,
  rules: Rule[],
): Chain {
  return { name, base: { type, hook, priority }, rules };
}

export function packetRuleSetArb(): fc.Arbitrary<Table> {
  return fc
    .record({
      pre: fc.array(
        fc.oneof({ weight: 4, arbitrary: natPre }, { weight: 1, arbitrary: natPreOnly }),
        {
          maxLength: 3,
        },
      ),
      out: fc.array(natPre, { maxLength: 2 }),
      post: fc.array(natPost, { maxLength: 2 }),
      fin: fc.array(filterRule, { maxLength: 2 }),
      ffwd: fc.array(filterRule, { maxLength: 2 }),
      fout: fc.array(filterRule, { maxLength: 2 }),
      eps: fc.tuple(...EP_CHAINS.map(() => fc.array(epRule, { minLength: 1, maxLength: 2 }))),
      marked: fc.subarray([ORACLE.podA, ORACLE.external, ORACLE.node]),
      svc: fc.uniqueArray(
        fc.tuple(
          fc.constantFrom(ORACLE.vip, ORACLE.node),
          proto,
          port,
          fc.constantFrom(...EP_CHAINS),
        ),
        { maxLength: 3, selector: ([a, p, n]) => `${a} ${p} ${n}` },
      ),
    })
    .map(({ pre, out, post, fin, ffwd, fout, eps, marked, svc }): Table => {
      const sets: NamedSet[] = [
        {
          kind: "set",
          name: "marked",
          keyType: ["ipv4_addr"],
          flags: [],
          elements: marked.map((a) => ({ key: [a] })),
        },
        {
          kind: "map",
          name: "svc",
          keyType: ["ipv4_addr", "inet_proto", "inet_service"],
          valueType: "verdict",
          flags: [],
          elements: svc.map(([a, p, n, c]) => ({
            key: [a, p, String(n)],
            value: { kind: "verdict", verdict: { kind: "goto", chain: c } },
          })),
        },
      ];
      return {
        family: "ip",
        name: "oracle",
        sets,
        chains: [
          ...EP_CHAINS.map((name, i): Chain => ({ name, rules: eps[i] ?? [] })),
          base("nat-pre", "nat", "prerouting", -100, pre),
          base("nat-out", "nat", "output", -100, out),
          base("nat-post", "nat", "postrouting", 100, [HAIRPIN_GUARD, ...post]),
          base("f-in", "filter", "input", 0, fin),
          base("f-fwd", "filter", "forward", 0, ffwd),
          base("f-out", "filter", "output", 0, fout),
        ],
      };
    });
}
