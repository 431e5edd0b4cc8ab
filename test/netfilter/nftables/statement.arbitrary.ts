/**
 * Random tables exercising the statements beyond kube-proxy's own (snat, redirect, log, limit,
 * ct mark, reject with, masked meta mark, ct state/status combinations, notrack, counter
 * values), each in a base chain whose hook the kernel takes it at: reject in filter input,
 * notrack in a raw-priority prerouting chain, redirect in nat prerouting/output, snat in nat
 * postrouting. Families ip, ip6 and inet.
 */
import fc from "fast-check";
import type {
  BaseChainSpec,
  Chain,
  Expr,
  Family,
  LogFlag,
  LogLevel,
  NatFlag,
  RejectWith,
  Rule,
  Statement,
  Table,
  Value,
} from "../../../src/netfilter/nftables/model.js";
import { LOG_FLAGS, LOG_LEVELS, NAT_FLAGS } from "../../../src/netfilter/nftables/model.js";
import { REJECT_TYPES } from "../../../src/netfilter/nftables/parse/statements.js";

type Place = "in" | "raw" | "pre" | "out" | "post";

const CHAINS: readonly { readonly place: Place; readonly base: BaseChainSpec }[] = [
  { place: "in", base: { type: "filter", hook: "input", priority: 0, policy: "accept" } },
  { place: "raw", base: { type: "filter", hook: "prerouting", priority: -300, policy: "accept" } },
  { place: "pre", base: { type: "nat", hook: "prerouting", priority: -100, policy: "accept" } },
  { place: "out", base: { type: "nat", hook: "output", priority: -100, policy: "accept" } },
  { place: "post", base: { type: "nat", hook: "postrouting", priority: 100, policy: "accept" } },
];

const v4 = fc
  .tuple(
    fc.integer({ min: 1, max: 223 }),
    fc.nat(255),
    fc.nat(255),
    fc.integer({ min: 1, max: 250 }),
  )
  .map((p) => p.join("."));
const v6 = fc
  .tuple(fc.integer({ min: 1, max: 0xfeff }), fc.nat(0xffff))
  .map(([a, b]) => `fd00:${a.toString(16)}::${b.toString(16)}`);
const port = fc.integer({ min: 1, max: 65000 });
const hex = (n: number): string => `0x${n.toString(16)}`;
const mask = fc.integer({ min: 1, max: 0xfffffffe });

const match = (left: Expr, right: Expr, neg = false, explicit = false): Statement => ({
  kind: "match",
  left,
  op: neg ? "!=" : "==",
  right,
  explicit,
});
const val = (text: string): Value => ({ kind: "value", text });
const l4 = (p: string): Statement => match({ kind: "meta", key: "l4proto", short: false }, val(p));

function subset<T>(all: readonly T[], min = 1, max = 3): fc.Arbitrary<T[]> {
  return fc.uniqueArray(fc.constantFrom(...all), { minLength: min, maxLength: max });
}

/** Matches on marks (masked or not), ct mark, ct state and ct status combinations. */
const matchArb: fc.Arbitrary<Statement> = fc.oneof(
  fc
    .tuple(fc.constantFrom<"meta" | "ct">("meta", "ct"), mask, fc.nat(0xffffffff), fc.boolean())
    .map(([who, m, v, neg]) => {
      const left: Expr =
        who === "meta" ? { kind: "meta", key: "mark", short: false } : { kind: "ct", key: "mark" };
      return match(
        { kind: "bitwise", op: "and", left, right: val(hex(m)), words: true },
        val(hex((v & m) >>> 0)),
        neg,
        true,
      );
    }),
  fc
    .tuple(fc.constantFrom<"meta" | "ct">("meta", "ct"), fc.nat(0xffff), fc.boolean())
    .map(([who, v, neg]) =>
      match(
        who === "meta" ? { kind: "meta", key: "mark", short: true } : { kind: "ct", key: "mark" },
        val(hex(v)),
        neg,
      ),
    ),
  fc
    .tuple(fc.constantFrom<"state" | "status">("state", "status"), fc.boolean(), fc.boolean())
    .chain(([key, asSet, neg]) =>
      subset(
        key === "state"
          ? ["invalid", "established", "related", "new", "untracked"]
          : ["expected", "seen-reply", "assured", "confirmed", "snat", "dnat", "dying"],
      ).map((items) =>
        match(
          { kind: "ct", key },
          asSet ? { kind: "set-literal", elements: items, compact: false } : val(items.join(",")),
          neg,
        ),
      ),
    ),
);

const natFlags: fc.Arbitrary<NatFlag[]> = subset(NAT_FLAGS, 0, 3);

function snatArb(family: Family): fc.Arbitrary<Statement[]> {
  const fam = family === "inet" ? fc.constantFrom<"ip" | "ip6">("ip", "ip6") : fc.constant(family);
  return fam.chain((f) =>
    fc
      .record({
        a: f === "ip" ? v4 : v6,
        range: f === "ip" ? fc.integer({ min: 0, max: 4 }) : fc.constant(0),
        p: fc.option(
          fc.tuple(port, fc.integer({ min: 0, max: 50 }), fc.constantFrom("tcp", "udp")),
          {
            nil: undefined,
          },
        ),
        flags: natFlags,
        keyword: fc.boolean(),
      })
      .map(({ a, range, p, flags, keyword }) => {
        const parts = a.split(".").map(Number);
        const addressTo =
          range > 0 && parts.length === 4
            ? [parts[0], parts[1], parts[2], (parts[3] as number) + range].join(".")
            : undefined;
        const st: Statement = {
          kind: "snat",
          ...(family === "inet" || keyword ? { family: f } : {}),
          to: {
            address: a,
            ...(addressTo !== undefined ? { addressTo } : {}),
            ...(p !== undefined ? { port: p[0] } : {}),
            ...(p !== undefined && p[1] > 0 ? { portTo: p[0] + p[1] } : {}),
          },
          flags,
        };
        return p === undefined ? [st] : [l4(p[2]), st];
      }),
  );
}

const redirectArb: fc.Arbitrary<Statement[]> = fc
  .tuple(
    fc.option(fc.tuple(port, fc.integer({ min: 0, max: 50 }), fc.constantFrom("tcp", "udp")), {
      nil: undefined,
    }),
    natFlags,
  )
  .map(([p, flags]) => {
    const st: Statement = {
      kind: "redirect",
      ...(p !== undefined ? { port: p[0] } : {}),
      ...(p !== undefined && p[1] > 0 ? { portTo: p[0] + p[1] } : {}),
      flags,
    };
    return p === undefined ? [st] : [l4(p[2]), st];
  });

const logArb: fc.Arbitrary<Statement> = fc.oneof(
  fc
    .record({
      prefix: fc.option(fc.stringMatching(/^[A-Za-z0-9 :_-]{0,12}$/), { nil: undefined }),
      level: fc.option(fc.constantFrom<LogLevel>(...LOG_LEVELS), { nil: undefined }),
      flags: subset<LogFlag>(LOG_FLAGS, 0, 5),
    })
    // `level audit` takes no other option (the mutation test checks the refusal).
    .filter((l) => l.level !== "audit" || (l.prefix === undefined && l.flags.length === 0))
    .map(({ prefix, level, flags }): Statement => ({
      kind: "log",
      ...(prefix !== undefined ? { prefix } : {}),
      ...(level !== undefined ? { level } : {}),
      flags,
    })),
  fc
    .tuple(fc.option(fc.stringMatching(/^[a-z]{1,8}$/), { nil: undefined }), fc.nat(65535))
    .map(([prefix, group]): Statement => ({
      kind: "log",
      ...(prefix !== undefined ? { prefix } : {}),
      group,
      flags: [],
    })),
);

const per = fc.constantFrom("second", "minute", "hour", "day", "week" as const);
const limitArb: fc.Arbitrary<Statement> = fc.oneof(
  fc
    .record({
      over: fc.boolean(),
      rate: fc.integer({ min: 1, max: 100000 }),
      per,
      burst: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
    })
    .map(({ over, rate, per: p, burst }): Statement => ({
      kind: "limit",
      over,
      rate,
      per: p as "second",
      ...(burst !== undefined ? { burst } : {}),
    })),
  fc
    .record({
      over: fc.boolean(),
      rate: fc.integer({ min: 1, max: 4096 }),
      unit: fc.constantFrom("bytes", "kbytes", "mbytes" as const),
      per,
      burst: fc.option(
        fc.tuple(fc.integer({ min: 1, max: 4096 }), fc.constantFrom("bytes", "kbytes" as const)),
        { nil: undefined },
      ),
    })
    .map(({ over, rate, unit, per: p, burst }): Statement => ({
      kind: "limit",
      over,
      rate,
      bytesUnit: unit as "bytes",
      per: p as "second",
      ...(burst !== undefined ? { burst: burst[0], burstUnit: burst[1] as "bytes" } : {}),
    }))
    // The kernel refuses buckets over 64 bits of nanoseconds (the mutation test checks that).
    .filter((st) => {
      const s = st as Extract<Statement, { kind: "limit" }>;
      const f = { bytes: 1, kbytes: 1024, mbytes: 1024 ** 2 };
      const ns = { second: 1, minute: 60, hour: 3600, day: 86400, week: 604800 }[s.per] * 1e9;
      const b = (s.burst ?? 0) * f[s.burstUnit ?? "bytes"];
      return (s.rate * f[s.bytesUnit ?? "bytes"] + b) * ns < 1.8e19;
    }),
);

const ctMarkSetArb: fc.Arbitrary<Statement> = fc.oneof(
  fc.nat(0xffffffff).map((v): Statement => ({ kind: "ct-mark-set", value: val(hex(v)) })),
  fc
    .tuple(
      fc.constantFrom<"meta" | "ct">("meta", "ct"),
      fc.constantFrom("and", "or", "xor" as const),
      mask,
    )
    .map(([who, op, m]): Statement => ({
      kind: "ct-mark-set",
      value: {
        kind: "bitwise",
        op: op as "and",
        left:
          who === "meta"
            ? { kind: "meta", key: "mark", short: false }
            : { kind: "ct", key: "mark" },
        right: val(hex(m)),
        words: true,
      },
    })),
  fc.constant<Statement>({
    kind: "mark-set",
    short: false,
    value: { kind: "ct", key: "mark" },
  }),
);

function rejectArb(family: Family): fc.Arbitrary<Statement[]> {
  const kinds: ("icmp" | "icmpv6" | "icmpx")[] =
    family === "ip" ? ["icmp"] : family === "ip6" ? ["icmpv6"] : ["icmp", "icmpv6", "icmpx"];
  const icmp = fc
    .constantFrom(...kinds)
    .chain((k) =>
      fc.constantFrom(...REJECT_TYPES[k]).map((type): RejectWith => ({ kind: k, type })),
    );
  return fc.oneof(
    fc.constant<Statement[]>([{ kind: "reject" }]),
    icmp.map((w): Statement[] => [{ kind: "reject", with: w }]),
    fc.constantFrom<"none" | "l4" | "dport">("none", "l4", "dport").chain((dep) =>
      port.map((p): Statement[] => {
        const reset: Statement = { kind: "reject", with: { kind: "tcp reset" } };
        if (dep === "l4") return [l4("tcp"), reset];
        if (dep === "dport")
          return [
            match({ kind: "payload", protocol: "tcp", field: "dport" }, val(String(p))),
            reset,
          ];
        return [reset];
      }),
    ),
  );
}

const counterArb: fc.Arbitrary<Statement> = fc
  .option(fc.tuple(fc.nat(1_000_000), fc.nat(100_000_000)), { nil: undefined })
  .map((c): Statement =>
    c === undefined ? { kind: "counter" } : { kind: "counter", packets: c[0], bytes: c[1] },
  );

const tailVerdict = fc.option(
  fc.constantFrom<Statement>(
    { kind: "verdict", verdict: { kind: "accept" } },
    { kind: "verdict", verdict: { kind: "drop" } },
  ),
  { nil: undefined },
);

function ruleArb(family: Family, place: Place): fc.Arbitrary<Rule> {
  const nonTerminal: fc.Arbitrary<Statement[]>[] = [
    logArb.map((s) => [s]),
    limitArb.map((s) => [s]),
    counterArb.map((s) => [s]),
    ctMarkSetArb.map((s) => [s]),
  ];
  const terminal: fc.Arbitrary<Statement[]>[] = [];
  if (place === "in") terminal.push(rejectArb(family));
  if (place === "raw") nonTerminal.push(fc.constant<Statement[]>([{ kind: "notrack" }]));
  if (place === "pre" || place === "out") terminal.push(redirectArb);
  if (place === "post") terminal.push(snatArb(family));
  const body = fc.oneof(
    fc
      .tuple(fc.oneof(...nonTerminal), tailVerdict)
      .map(([st, v]) => (v === undefined ? st : [...st, v])),
    ...terminal,
  );
  return fc
    .tuple(fc.array(matchArb, { maxLength: 2 }), body)
    .map(([ms, b]): Rule => ({ statements: [...ms, ...b] }));
}

export function statementTableArb(): fc.Arbitrary<Table> {
  return fc.constantFrom<Family>("ip", "ip6", "inet").chain((family) =>
    fc
      .tuple(...CHAINS.map((c) => fc.array(ruleArb(family, c.place), { maxLength: 3 })))
      .map((rules): Table => ({
        family,
        name: "t",
        sets: [],
        chains: CHAINS.map((c, i): Chain => ({
          name: `c-${c.place}`,
          base: c.base,
          rules: rules[i] ?? [],
        })),
      })),
  );
}
