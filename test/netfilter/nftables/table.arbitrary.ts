/**
 * Random nftables tables of the kinds kube-proxy (and a CNI) write: base chains of every
 * type, hook and a spread of priorities (named ones and offsets), regular chains jumping
 * forward only (no loops), named sets and verdict maps with concatenated keys, elements with
 * comments, and rules over payload/meta/ct/fib/numgen expressions with every statement the
 * model has. NAT statements only where the kernel takes them (nat chains at their hooks).
 */
import fc from "fast-check";
import type {
  BaseChainSpec,
  Chain,
  Expr,
  Hook,
  NamedSet,
  Rule,
  Statement,
  Table,
  Verdict,
} from "../../../src/netfilter/nftables/model.js";

const v4 = fc
  .tuple(
    fc.integer({ min: 1, max: 223 }),
    fc.nat(255),
    fc.nat(255),
    fc.integer({ min: 1, max: 254 }),
  )
  .map((p) => p.join("."));
const v6 = fc
  .tuple(fc.integer({ min: 1, max: 0xfeff }), fc.nat(0xffff), fc.nat(0xffff))
  .map(([a, b, c]) => `fd00:${a.toString(16)}::${b.toString(16)}:${c.toString(16)}`);
const cidr4 = fc.tuple(v4, fc.integer({ min: 8, max: 32 })).map(([ip, p]) => maskV4(ip, p));
const port = fc.integer({ min: 1, max: 65535 });
const proto = fc.constantFrom("tcp", "udp", "sctp");
const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
const comment = fc.stringMatching(/^[A-Za-z0-9 /:._-]{1,20}$/);

function maskV4(ip: string, prefix: number): string {
  const n = ip.split(".").reduce((a, o) => a * 256 + Number(o), 0);
  const m = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  const v = (n & m) >>> 0;
  return `${[v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join(".")}/${prefix}`;
}

const HOOKS_BY_TYPE: Readonly<Record<"filter" | "nat", readonly Hook[]>> = {
  filter: ["prerouting", "input", "forward", "output", "postrouting"],
  nat: ["prerouting", "input", "output", "postrouting"],
};
const PRIORITIES = [
  -300, -310, -150, -145, -110, -100, -90, -89, -5, 0, 10, 11, 40, 50, 60, 100, 110, 120,
];

const baseSpec: fc.Arbitrary<BaseChainSpec> = fc
  .constantFrom<"filter" | "nat">("filter", "nat")
  .chain((type) =>
    fc.record({
      type: fc.constant(type),
      hook: fc.constantFrom(...HOOKS_BY_TYPE[type]),
      priority: fc.constantFrom(...PRIORITIES.filter((p) => type !== "nat" || p > -200)),
      policy:
        type === "nat"
          ? fc.constant("accept" as const)
          : fc.constantFrom("accept" as const, "drop" as const),
    }),
  );

interface Shape {
  readonly family: "ip" | "ip6";
  readonly regular: readonly string[];
  readonly sets: readonly NamedSet[];
  /** reject is only valid in chains reached from input/forward/output. */
  readonly rejectOk: boolean;
}

function addrExpr(fam: "ip" | "ip6", field: "saddr" | "daddr"): Expr {
  return { kind: "payload", protocol: fam, field };
}

function matchArb(s: Shape): fc.Arbitrary<Statement> {
  const fam = s.family;
  const addr = fam === "ip" ? v4 : v6;
  const field = fc.constantFrom<"saddr" | "daddr">("saddr", "daddr");
  const neg = fc.boolean();
  const options: fc.Arbitrary<Statement>[] = [
    fc.tuple(field, addr, neg).map(([f, a, n]) => ({
      kind: "match",
      left: addrExpr(fam, f),
      op: n ? "!=" : "==",
      right: { kind: "value", text: a },
      explicit: false,
    })),
    fc
      .tuple(
        field,
        neg,
        fc.uniqueArray(fam === "ip" ? fc.oneof(v4, cidr4) : v6, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
      )
      .map(([f, n, els, compact]) => ({
        kind: "match",
        left: addrExpr(fam, f),
        op: n ? "!=" : "==",
        right: { kind: "set-literal", elements: els, compact },
        explicit: false,
      })),
    fc.tuple(proto, port).map(([p, n]) => ({
      kind: "match",
      left: { kind: "payload", protocol: p, field: "dport" },
      op: "==",
      right: { kind: "value", text: String(n) },
      explicit: false,
    })),
    proto.map((p) => ({
      kind: "match",
      left: { kind: "meta", key: "l4proto", short: false },
      op: "==",
      right: { kind: "value", text: p },
      explicit: false,
    })),
    fc.constantFrom("new", "established", "related").map((st) => ({
      kind: "match",
      left: { kind: "ct", key: "state" },
      op: "==",
      right: { kind: "value", text: st },
      explicit: false,
    })),
    fc.tuple(fc.constantFrom<"saddr" | "daddr">("saddr", "daddr")).map(([f]) => ({
      kind: "match",
      left: { kind: "fib", flag: f, result: "type" },
      op: "==",
      right: { kind: "value", text: "local" },
      explicit: false,
    })),
    fc.tuple(word, neg, fc.boolean()).map(([w, n, star]) => ({
      kind: "match",
      left: { kind: "meta", key: "iifname", short: true },
      op: n ? "!=" : "==",
      right: { kind: "value", text: star ? `${w}*` : w },
      explicit: false,
    })),
    fc.integer({ min: 0, max: 31 }).map((bit) => ({
      kind: "match",
      left: {
        kind: "bitwise",
        op: "and",
        left: { kind: "meta", key: "mark", short: true },
        right: { kind: "value", text: `0x${(2 ** bit).toString(16)}` },
        words: true,
      },
      op: "==",
      right: { kind: "value", text: "0" },
      explicit: true,
    })),
  ];
  const addrSets = s.sets.filter(
    (x) => x.kind === "set" && x.keyType.length === 1 && x.keyType[0] !== "inet_service",
  );
  if (addrSets.length > 0)
    options.push(
      fc.tuple(fc.constantFrom(...addrSets), field).map(([set, f]) => ({
        kind: "match",
        left: addrExpr(fam, f),
        op: "==",
        right: { kind: "set-ref", name: set.name },
        explicit: false,
      })),
    );
  return fc.oneof(...options);
}

function verdictArb(targets: readonly string[]): fc.Arbitrary<Verdict> {
  const simple = fc.constantFrom<Verdict>({ kind: "accept" }, { kind: "drop" }, { kind: "return" });
  if (targets.length === 0) return simple;
  return fc.oneof(
    simple,
    fc
      .tuple(fc.constantFrom("jump" as const, "goto" as const), fc.constantFrom(...targets))
      .map(([kind, chain]) => ({ kind, chain })),
  );
}

function ruleArb(s: Shape, chain: string, base: BaseChainSpec | undefined): fc.Arbitrary<Rule> {
  const idx = s.regular.indexOf(chain);
  const targets = s.regular.slice(idx + 1);
  const tail: fc.Arbitrary<Statement>[] = [
    verdictArb(targets).map((verdict) => ({ kind: "verdict", verdict })),
  ];
  if (
    base === undefined
      ? s.rejectOk
      : base.type === "filter" && base.hook !== "prerouting" && base.hook !== "postrouting"
  )
    tail.push(fc.constant<Statement>({ kind: "reject" }));
  tail.push(
    fc.integer({ min: 0, max: 31 }).map((bit) => ({
      kind: "mark-set",
      short: true,
      value: {
        kind: "bitwise",
        op: "or",
        left: { kind: "meta", key: "mark", short: true },
        right: { kind: "value", text: `0x${(2 ** bit).toString(16)}` },
        words: true,
      },
    })),
  );
  tail.push(fc.constant<Statement>({ kind: "counter" }));
  if (targets.length > 0)
    tail.push(
      fc.uniqueArray(fc.constantFrom(...targets), { minLength: 1, maxLength: 3 }).map((ts) => ({
        kind: "vmap",
        key: { kind: "numgen", mode: "random", mod: ts.length },
        map: {
          kind: "vmap-literal",
          entries: ts.map((t, i) => ({ key: String(i), verdict: { kind: "goto", chain: t } })),
        },
      })),
    );
  const maps = s.sets.filter((x) => x.kind === "map");
  // Map elements jump to regular chains: only base chains look maps up (no loops).
  for (const m of base === undefined ? [] : maps)
    tail.push(
      fc.constant<Statement>({
        kind: "vmap",
        key:
          m.keyType.length === 3
            ? {
                kind: "concat",
                parts: [
                  addrExpr(s.family, "daddr"),
                  { kind: "meta", key: "l4proto", short: false },
                  { kind: "payload", protocol: "th", field: "dport" },
                ],
              }
            : {
                kind: "concat",
                parts: [
                  { kind: "meta", key: "l4proto", short: false },
                  { kind: "payload", protocol: "th", field: "dport" },
                ],
              },
        map: { kind: "set-ref", name: m.name },
      }),
    );
  const affinity = s.sets.filter((x) => x.flags.includes("dynamic"));
  for (const a of affinity)
    tail.push(
      fc.constant<Statement>({
        kind: "set-update",
        op: "update",
        set: a.name,
        key: addrExpr(s.family, "saddr"),
      }),
    );
  if (base?.type === "nat" && (base.hook === "prerouting" || base.hook === "output"))
    tail.push(
      fc
        .tuple(proto, s.family === "ip" ? v4 : v6, port)
        .map(
          ([p, a, n]) => ({ kind: "dnat", address: a, port: n, _proto: p }) as unknown as Statement,
        ),
    );
  if (base?.type === "nat" && base.hook === "postrouting")
    tail.push(fc.boolean().map((fullyRandom) => ({ kind: "masquerade", fullyRandom })));
  return fc
    .tuple(
      fc.array(matchArb(s), { maxLength: 3 }),
      fc.oneof(...tail),
      fc.option(comment, { nil: undefined }),
    )
    .map(([ms, last, c]) => {
      const stmts: Statement[] = [...ms];
      if (last.kind === "dnat") {
        const p = (last as unknown as { _proto: string })._proto;
        stmts.push({
          kind: "match",
          left: { kind: "meta", key: "l4proto", short: false },
          op: "==",
          right: { kind: "value", text: p },
          explicit: false,
        });
        stmts.push({
          kind: "dnat",
          address: last.address,
          ...(last.port !== undefined ? { port: last.port } : {}),
        });
      } else stmts.push(last);
      return c === undefined ? { statements: stmts } : { statements: stmts, comment: c };
    })
    .filter(protocolsAgree);
}

/** nft refuses a rule whose transport protocols conflict (`meta l4proto udp tcp dport 1`). */
function protocolsAgree(r: Rule): boolean {
  const seen = new Set<string>();
  for (const st of r.statements) {
    if (st.kind !== "match") continue;
    if (st.left.kind === "payload" && ["tcp", "udp", "sctp"].includes(st.left.protocol))
      seen.add(st.left.protocol);
    if (st.left.kind === "meta" && st.left.key === "l4proto" && st.right.kind === "value")
      seen.add(st.right.text);
  }
  return seen.size <= 1;
}

function setsArb(family: "ip" | "ip6"): fc.Arbitrary<NamedSet[]> {
  const addrType = family === "ip" ? "ipv4_addr" : "ipv6_addr";
  const addr = family === "ip" ? v4 : v6;
  const plain = fc
    .tuple(fc.uniqueArray(addr, { maxLength: 5 }), fc.option(comment, { nil: undefined }))
    .map(([els, c]): NamedSet => ({
      kind: "set",
      name: "addrs",
      keyType: [addrType],
      flags: [],
      ...(c !== undefined ? { comment: c } : {}),
      elements: els.map((e) => ({ key: [e] })),
    }));
  const ports = fc.uniqueArray(port, { maxLength: 20 }).map((els): NamedSet => ({
    kind: "set",
    name: "ports",
    keyType: ["inet_service"],
    flags: [],
    elements: els.map((e) => ({ key: [String(e)] })),
  }));
  const affinity = fc.integer({ min: 1, max: 200000 }).map((timeout): NamedSet => ({
    kind: "set",
    name: "affinity-x",
    keyType: [addrType],
    flags: ["dynamic", "timeout"],
    timeout,
    elements: [],
  }));
  return fc
    .tuple(
      fc.option(plain, { nil: undefined }),
      fc.option(ports, { nil: undefined }),
      fc.option(affinity, { nil: undefined }),
      fc.boolean(),
      fc.boolean(),
    )
    .map(([a, p, af, m3, m2]) => {
      const out: NamedSet[] = [];
      if (a !== undefined) out.push(a);
      if (p !== undefined) out.push(p);
      if (af !== undefined) out.push(af);
      if (m3)
        out.push({
          kind: "map",
          name: "dispatch",
          keyType: [addrType, "inet_proto", "inet_service"],
          valueType: "verdict",
          flags: [],
          comment: "by destination",
          elements: [],
        });
      if (m2)
        out.push({
          kind: "map",
          name: "ports-vmap",
          keyType: ["inet_proto", "inet_service"],
          valueType: "verdict",
          flags: [],
          elements: [],
        });
      return out;
    });
}

/** A loadable table (every reference declared, NAT where the kernel allows it). */
export function tableArb(): fc.Arbitrary<Table> {
  return fc.constantFrom<"ip" | "ip6">("ip", "ip6").chain((family) =>
    fc
      .record({
        regular: fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9/_.-]{0,12}$/), { maxLength: 4 }),
        bases: fc.array(baseSpec, { minLength: 1, maxLength: 3 }),
        sets: setsArb(family),
        tableComment: fc.option(comment, { nil: undefined }),
        chainComment: fc.option(comment, { nil: undefined }),
      })
      .chain(({ regular, bases, sets, tableComment, chainComment }) => {
        const regularNames = regular.map((r) => `r-${r}`);
        const baseNames = bases.map((_, i) => `base${i}`);
        const rejectOk = bases.every(
          (b) => b.hook === "input" || b.hook === "forward" || b.hook === "output",
        );
        const shape: Shape = { family, regular: regularNames, sets, rejectOk };
        const chainsArb = fc.tuple(
          ...bases.map((b, i) =>
            fc
              .array(ruleArb(shape, baseNames[i] as string, b), { maxLength: 4 })
              .map((rules): Chain => ({ name: baseNames[i] as string, base: b, rules })),
          ),
          ...regularNames.map((n, i) =>
            fc.array(ruleArb(shape, n, undefined), { maxLength: 3 }).map((rules): Chain => ({
              name: n,
              rules,
              ...(i === 0 && chainComment !== undefined ? { comment: chainComment } : {}),
            })),
          ),
        );
        const mapElements = sets.map((s) => {
          if (s.kind !== "map") return fc.constant(s);
          const key =
            s.keyType.length === 3
              ? fc.tuple(family === "ip" ? v4 : v6, proto, port).map((k) => k.map(String))
              : fc.tuple(proto, port).map((k) => k.map(String));
          const targets = regularNames;
          const verdict: fc.Arbitrary<Verdict> =
            targets.length === 0
              ? fc.constantFrom<Verdict>({ kind: "drop" }, { kind: "accept" })
              : fc.oneof(
                  fc.constantFrom<Verdict>({ kind: "drop" }),
                  fc.constantFrom(...targets).map((chain): Verdict => ({ kind: "goto", chain })),
                );
          return fc
            .uniqueArray(fc.tuple(key, verdict, fc.option(comment, { nil: undefined })), {
              maxLength: 4,
              selector: ([k]) => k.join(" "),
            })
            .map((els): NamedSet => ({
              ...s,
              elements: els.map(([k, v, c]) => ({
                key: k,
                value: { kind: "verdict", verdict: v },
                ...(c !== undefined ? { comment: c } : {}),
              })),
            }));
        });
        return fc.tuple(chainsArb, fc.tuple(...mapElements)).map(([chains, filled]): Table => ({
          family: family,
          name: "t",
          ...(tableComment !== undefined ? { comment: tableComment } : {}),
          sets: filled,
          chains,
        }));
      }),
  );
}
