/** `ipset restore` then `ipset save` in a scratch netns must equal parse + formatIpsetSave. */
import { expect } from "@jest/globals";
import { fc } from "@fast-check/jest";
import { withNetns } from "../../../src/backends/netns.js";
import { formatIpsetSave, parseIpsetSave } from "../../../src/netfilter/index.js";
import { kernelRulesOnly, kernelTest } from "../../helpers/kernel.js";
import { answersInOrder, okOutput, runBatch, type BatchStep } from "../../helpers/netns-batch.js";
import { soakRuns } from "../../helpers/soak.js";

// Rules only: loads, checks and listings in its own namespaces, nothing timed.
kernelRulesOnly();

const v4 = fc.ipV4();
const v6 = fc.constantFrom("fd00::1", "2001:db8::5", "fd00::a:b", "::1");
const proto = fc.constantFrom("tcp:", "udp:", "sctp:", "");
const port = fc.integer({ min: 1, max: 65535 });

const setText = fc.oneof(
  fc
    .tuple(fc.array(v4, { maxLength: 4 }), fc.boolean())
    .map(([ips, c]) => [
      "create S hash:ip family inet hashsize 1024 maxelem 65536" + (c ? " comment" : ""),
      ...ips.map((ip) => `add S ${ip}${c ? ' comment "a b"' : ""}`),
    ]),
  fc
    .array(fc.tuple(v6, proto, port), { maxLength: 4 })
    .map((es) => [
      "create S hash:ip,port family inet6 hashsize 1024 maxelem 65536",
      ...es.map(([a, p, n]) => `add S ${a},${p}${n}`),
    ]),
  fc
    .array(fc.tuple(v4, proto, port, v4), { maxLength: 4 })
    .map((es) => [
      "create S hash:ip,port,ip family inet hashsize 1024 maxelem 65536",
      ...es.map(([a, p, n, b]) => `add S ${a},${p}${n},${b}`),
    ]),
  fc
    .array(fc.tuple(v4, proto, port, v4, fc.integer({ min: 1, max: 32 }), fc.boolean()), {
      maxLength: 4,
    })
    .map((es) => [
      "create S hash:ip,port,net family inet hashsize 1024 maxelem 65536",
      ...es.map(([a, p, n, b, l, nm]) => `add S ${a},${p}${n},${b}/${l}${nm ? " nomatch" : ""}`),
    ]),
  fc
    .array(fc.tuple(v4, fc.integer({ min: 1, max: 32 }), fc.boolean()), { maxLength: 4 })
    .map((es) => [
      "create S hash:net family inet hashsize 1024 maxelem 65536",
      ...es.map(([a, l, nm]) => `add S ${a}/${l}${nm ? " nomatch" : ""}`),
    ]),
  fc
    .array(
      fc.tuple(v4, fc.integer({ min: 1, max: 32 }), proto, port, fc.integer({ min: 0, max: 2 })),
      { maxLength: 3 },
    )
    .map((es) => [
      "create S hash:net,port family inet hashsize 1024 maxelem 65536",
      ...es.map(
        ([a, l, p, n, r]) =>
          `add S ${a}/${l},${p}${n}${r > 0 && n + r <= 65535 ? `-${n + r}` : ""}`,
      ),
    ]),
  fc
    .array(port, { maxLength: 4 })
    .map((ps) => ["create S bitmap:port range 0-65535", ...ps.map((p) => `add S ${p}`)]),
);

/** What `ipset -exist restore` made of a text, and `ipset save` after it when it loaded. */
interface Restored {
  readonly status: number;
  readonly stderr: string;
  readonly save?: string;
}

function normalize(text: string): string[] {
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => l.replace(/ bucketsize [0-9]+ initval 0x[0-9a-f]+/, ""))
    .sort();
}

kernelTest(
  "ipset restore → ipset save equals formatIpsetSave(parseIpsetSave())",
  ["root", "ip", "ipset"],
  async () => {
    await withNetns(
      1,
      ([ns]) => {
        const netns = ns!;
        const steps = (text: string): BatchStep[] => [
          { cmd: "ipset", args: ["destroy"] },
          { cmd: "ipset", args: ["-exist", "restore"], input: text },
          { cmd: "ipset", args: ["save"], ifOk: true },
        ];
        const live = (text: string): Restored => {
          netns.run("ipset", ["destroy"]);
          const r = netns.run("ipset", ["-exist", "restore"], text);
          return r.status !== 0
            ? { status: r.status ?? -1, stderr: r.stderr }
            : { status: 0, stderr: r.stderr, save: netns.exec("ipset", ["save"]) };
        };
        // ipset's answers for the runs about to be made (the first 500 of a soak), from one
        // shell (answersInOrder).
        const params = { numRuns: soakRuns(20, 60), seed: Math.floor(Math.random() * 0x7fffffff) };
        const texts = fc
          .sample(fc.tuple(setText), { ...params, numRuns: Math.min(params.numRuns, 500) })
          .map(([lines]) => `${lines.join("\n")}\n`);
        expect(texts.length).toBeGreaterThan(0);
        const batched = runBatch(netns, texts.map(steps)).map(([, restore, save], k): Restored => {
          if (restore === undefined) throw new Error(`ipset restore did not run: ${texts[k]}`);
          return restore.status !== 0
            ? { status: restore.status, stderr: restore.stderr }
            : { status: 0, stderr: restore.stderr, save: okOutput(steps("")[2]!, save) };
        });
        const kernel = answersInOrder(texts, batched, live);
        fc.assert(
          fc.property(setText, (lines) => {
            const text = `${lines.join("\n")}\n`;
            const r = kernel(text);
            let ours: string | Error;
            try {
              ours = formatIpsetSave(parseIpsetSave(text));
            } catch (e) {
              ours = e as Error;
            }
            if (r.status !== 0) {
              expect({ kernel: r.stderr, accepted: !(ours instanceof Error) }).toMatchObject({
                accepted: false,
              });
              return;
            }
            if (ours instanceof Error)
              throw new Error(`ipset accepted, we rejected: ${ours.message}\n${text}`);
            expect(normalize(ours)).toEqual(normalize(r.save ?? ""));
          }),
          params,
        );
      },
      "kns-nf",
    );
  },
);
