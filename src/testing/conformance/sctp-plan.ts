/**
 * The Kubernetes SCTP-support test plan (shared/docs/sctp-test-plan.md) as data: one entry per
 * upstream test, named as upstream names it, with the feature it needs from the dataplane and
 * the probes it makes on the fixture cluster. The reference outcome of every probe comes from
 * kube-proxy's service semantics (the Service's ready endpoints) or from `evaluatePolicy`.
 */
import type { Probe } from "../../backends/backend.js";
import { describeModuleState, type ModuleState } from "../../backends/linux/kernel-module.js";
import type { Cluster } from "../../model/cluster.js";
import { evaluatePolicy } from "../../policy/evaluate.js";
import { formatExplanation } from "../../policy/explanation-text.js";
import type { ConformanceAdapter, ConformanceFeature, NodeState } from "./adapter.js";
import { CLIENT, LB_IP, NODE_IP, SCTP_HOST_PORT, SCTP_PORT, SERVER, STRANGER } from "./fixture.js";
import { checkProbes, observeAll, type Expectation, type OpenRun } from "./probe-check.js";

export interface PlanContext {
  readonly run: OpenRun;
  readonly cluster: Cluster;
  readonly state: NodeState;
  /** Set when the backend runs on this machine's kernel: the sctp module before the run, and now. */
  readonly kernel?: { readonly sctpBefore: ModuleState; sctpNow(): ModuleState };
  /** Records what the test could not check here, or observed (shown by the reporters). */
  note(text: string): void;
}

export interface PlanTest {
  /** `[Feature:SCTP]` (basic) or `[Feature:SCTPConnectivity]`. */
  readonly group: "[Feature:SCTP]" | "[Feature:SCTPConnectivity]";
  readonly name: string;
  /** The dataplane feature the test needs; undefined: every dataplane. */
  readonly feature?: ConformanceFeature;
  /**
   * For a test upstream names after a proxier: the adapters' `proxier` values it applies to
   * (an adapter without one counts as "iptables"); undefined: every adapter.
   */
  readonly proxiers?: readonly NonNullable<ConformanceAdapter["proxier"]>[];
  /**
   * The test reads this machine's kernel before its scenario is loaded (PlanContext.kernel): it
   * runs in a scenario of its own. The plan's other tests share one scenario per adapter (the
   * same objects, state and rules; every probe its own connection from a source port of its own).
   */
  readonly watchesKernel?: boolean;
  /** Failure messages (empty: passed). */
  check(ctx: PlanContext): Promise<string[]>;
}

type Proto = Probe["protocol"];
const server = `${SERVER.ip}:${SCTP_PORT}`;

/** The test's probes, run together (each its own connection and timeout); their failures in order. */
async function all(ctx: PlanContext, probes: readonly [Probe, Expectation][]): Promise<string[]> {
  const checked = await checkProbes(ctx.run, probes);
  return checked.filter((f): f is string => f !== undefined);
}

function clusterIP(cluster: Cluster): string {
  const ip = cluster.services[0]?.spec?.clusterIP;
  if (ip === undefined) throw new Error("the SCTP fixture's Service has no clusterIP");
  return ip;
}

/** The probe pod→pod and NetworkPolicy's verdict on it, as an expectation. */
function policyProbe(
  cluster: Cluster,
  from: { name: string },
  to: { name: string; ip: string },
  protocol: Proto,
  port: number,
): [Probe, Expectation] {
  const v = evaluatePolicy(cluster, {
    from: from.name,
    to: to.name,
    port,
    protocol: protocol.toUpperCase(),
  });
  const because = `NetworkPolicy ${v.allowed ? "allows" : "denies"} it: ${formatExplanation(
    v.explanation,
  )
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .join("; ")}`;
  return [
    { protocol, from: from.name, to: to.ip, port },
    { kind: v.allowed ? "reaches" : "avoids", targets: [`${to.ip}:${port}`], because },
  ];
}

const toServer = (because: string): Expectation => ({
  kind: "reaches",
  targets: [server],
  because,
});
const notToServer = (because: string): Expectation => ({
  kind: "avoids",
  targets: [server],
  because,
});

/** An SCTP ClusterIP and NodePort reach the endpoint; TCP and UDP to the SCTP port do not. */
function sctpServicePorts(ctx: PlanContext): Promise<string[]> {
  return all(ctx, [
    [
      { protocol: "sctp", from: CLIENT.name, to: clusterIP(ctx.cluster), port: SCTP_PORT },
      toServer("the Service's SCTP port and its one ready endpoint"),
    ],
    [
      { protocol: "sctp", from: "external", to: NODE_IP, port: 30500 },
      toServer("the Service's SCTP NodePort 30500"),
    ],
    ...(["tcp", "udp"] as const).map((protocol): [Probe, Expectation] => [
      { protocol, from: CLIENT.name, to: clusterIP(ctx.cluster), port: SCTP_PORT },
      notToServer("the Service port is declared for SCTP only"),
    ]),
  ]);
}

/**
 * The plan's probes over TCP and UDP: traffic through the adapter's state while the module is
 * watched. Not SCTP: the probe's own SCTP socket would load the module (upstream's SCTP
 * connectivity tests may load it and are marked disruptive for that reason).
 */
function tcpAndUdpProbes(cluster: Cluster): Probe[] {
  return (["tcp", "udp"] as const).flatMap((protocol): Probe[] => [
    { protocol, from: CLIENT.name, to: SERVER.ip, port: SCTP_PORT },
    { protocol, from: STRANGER.name, to: SERVER.ip, port: SCTP_PORT },
    { protocol, from: CLIENT.name, to: clusterIP(cluster), port: SCTP_PORT },
    { protocol, from: "external", to: NODE_IP, port: 30500 },
    { protocol, from: "external", to: NODE_IP, port: SCTP_HOST_PORT },
    { protocol, from: "external", to: LB_IP, port: SCTP_PORT },
  ]);
}

/**
 * The side condition: node components must not make the kernel load the SCTP module. Only an
 * SCTP socket does (iptables `-m sctp`, nftables `sctp dport`, IPVS and conntrack SCTP support
 * are other modules), so the adapter's reported sockets must hold none. On a backend that runs
 * on this machine's kernel, the module is also watched: not loaded before the adapter's state
 * was loaded (rules, ipsets, nftables, IPVS) and TCP and UDP probes run through it, it must not
 * be loaded after.
 */
async function sctpModuleNotLoaded(ctx: PlanContext): Promise<string[]> {
  const failures = (ctx.state.sockets ?? [])
    .filter((s) => s.protocol === "sctp")
    .map(
      (s) =>
        `${ctx.run.adapterName} opens an SCTP socket on port ${s.port}: opening it loads sctp.ko (kube-proxy and kubelet never do)`,
    );
  const k = ctx.kernel;
  if (k === undefined) {
    ctx.note(
      `kernel check not run: the ${ctx.run.backend.name} backend loads nothing into a kernel (the netns backend watches sctp.ko)`,
    );
    return failures;
  }
  const before = k.sctpBefore;
  if (before.kind !== "absent") {
    ctx.note(
      before.kind === "unknown"
        ? `kernel check skipped: ${before.reason}`
        : `kernel check skipped: ${describeModuleState("sctp", before)} before the run, so a load cannot be observed`,
    );
    return failures;
  }
  await observeAll(ctx.run, tcpAndUdpProbes(ctx.cluster));
  const after = k.sctpNow();
  if (after.kind === "loaded")
    failures.push(
      `sctp.ko was not loaded before the run (${before.source}) and is after it (${after.source}): loading ${ctx.run.adapterName}'s state or its probes loaded it`,
    );
  else
    ctx.note(
      `kernel: ${describeModuleState("sctp", before)} before the run; ${describeModuleState("sctp", after)} after it`,
    );
  return failures;
}

export const SCTP_PLAN: readonly PlanTest[] = [
  {
    group: "[Feature:SCTP]",
    name: "Pods, Services, and NetworkPolicies can declare SCTP ports",
    // Reaching this point means the objects were accepted and the adapter's state loaded.
    check: () => Promise.resolve([]),
  },
  {
    group: "[Feature:SCTP]",
    name: "Pods can declare SCTP HostPorts when using kubenet",
    feature: "hostPorts",
    check: (ctx) =>
      all(ctx, [
        [
          { protocol: "sctp", from: "external", to: NODE_IP, port: SCTP_HOST_PORT },
          toServer(`the server pod's SCTP hostPort ${SCTP_HOST_PORT}`),
        ],
        ...(["tcp", "udp"] as const).map((protocol): [Probe, Expectation] => [
          { protocol, from: "external", to: NODE_IP, port: SCTP_HOST_PORT },
          notToServer(`the hostPort is declared for SCTP only`),
        ]),
      ]),
  },
  {
    group: "[Feature:SCTP]",
    name: "Services can declare SCTP ServicePorts when using the iptables proxier",
    feature: "services",
    proxiers: ["iptables", "ipvs"],
    check: sctpServicePorts,
  },
  {
    group: "[Feature:SCTP]",
    // Upstream's test is named after the proxier it inspects; the same check for nftables mode.
    name: "Services can declare SCTP ServicePorts when using the nftables proxier",
    feature: "services",
    proxiers: ["nftables"],
    check: sctpServicePorts,
  },
  {
    group: "[Feature:SCTP]",
    name: "A NetworkPolicy matching an SCTP port does not allow TCP or UDP traffic",
    feature: "networkPolicy",
    check: (ctx) =>
      all(
        ctx,
        (["tcp", "udp", "sctp"] as const).map((p) =>
          policyProbe(ctx.cluster, CLIENT, SERVER, p, SCTP_PORT),
        ),
      ),
  },
  {
    group: "[Feature:SCTP]",
    name: "if sctp.ko was not loaded before a test, it is not loaded after (node components open no SCTP sockets)",
    watchesKernel: true,
    check: sctpModuleNotLoaded,
  },
  {
    group: "[Feature:SCTPConnectivity]",
    name: "A pod can connect directly to another pod via SCTP",
    check: (ctx) =>
      all(ctx, [
        [
          { protocol: "sctp", from: CLIENT.name, to: SERVER.ip, port: SCTP_PORT },
          toServer("pod-to-pod, allowed by every policy of the fixture"),
        ],
      ]),
  },
  {
    group: "[Feature:SCTPConnectivity]",
    name: "A pod can connect to another pod via SCTP via a Service IP",
    feature: "services",
    check: (ctx) =>
      all(ctx, [
        [
          { protocol: "sctp", from: CLIENT.name, to: clusterIP(ctx.cluster), port: SCTP_PORT },
          toServer("ClusterIP DNAT to the Service's ready endpoint"),
        ],
      ]),
  },
  {
    group: "[Feature:SCTPConnectivity]",
    name: "A pod can connect to another pod via SCTP via a Load Balancer",
    feature: "services",
    check: (ctx) =>
      all(ctx, [
        [
          { protocol: "sctp", from: "external", to: LB_IP, port: SCTP_PORT },
          toServer(`the Service's load-balancer ingress ${LB_IP}`),
        ],
      ]),
  },
  {
    group: "[Feature:SCTPConnectivity]",
    name: "NetworkPolicy can be used to allow or deny traffic to SCTP ports",
    feature: "networkPolicy",
    check: (ctx) =>
      all(ctx, [
        policyProbe(ctx.cluster, CLIENT, SERVER, "sctp", SCTP_PORT),
        policyProbe(ctx.cluster, STRANGER, SERVER, "sctp", SCTP_PORT),
        policyProbe(ctx.cluster, CLIENT, SERVER, "sctp", SCTP_PORT + 1),
      ]),
  },
];
