/**
 * `renderReport(cluster, { node, proxyConfig })`: the self-contained HTML report. Sections:
 * the node summary, the policy heat maps, per Service the chain graph, and a trace of each of
 * its ports from outside the node (heat maps of at most 100 pods and chains and traces of at
 * most 50 Services unless told otherwise: pod-selection.ts, service-selection.ts). Without a
 * node, the sections that need one say so.
 */
import type { Cluster } from "../model/cluster.js";
import type { NodeEnvironment } from "../model/node-environment.js";
import type { KubeProxyConfiguration } from "../model/proxy-config.js";
import { buildNodeDataplane } from "../node/node-dataplane.js";
import { renderIptables } from "../proxiers/iptables/render-iptables.js";
import { renderIpvs } from "../proxiers/ipvs/index.js";
import { trace, type NodeDataplane } from "../netfilter/trace/index.js";
import type { MatrixOptions } from "../policy/matrix.js";
import { esc } from "./escape.js";
import { heatmapHtml, heatmaps, LEGEND_HEAT } from "./heatmap.js";
import { placeGraph } from "./layout.js";
import { page, type PageSection } from "./page.js";
import { packetKey, servicePackets } from "./probes.js";
import {
  iptablesServiceGraphs,
  ipvsServiceGraphs,
  type Locality,
  type ServiceGraph,
} from "./service-graph.js";
import {
  selectServices,
  type ServiceSelection,
  type ServiceSelectionOptions,
} from "./service-selection.js";
import { nodeSummary, type NodeSummary } from "./summary.js";
import { selectPods, type PodSelectionOptions } from "./pod-selection.js";
import { graphSvg } from "./svg.js";
import { tracePathHtml, tracePaths } from "./trace-path.js";

export interface ReportOptions extends ServiceSelectionOptions, PodSelectionOptions {
  readonly node?: NodeEnvironment;
  readonly proxyConfig: KubeProxyConfiguration;
  readonly matrix?: MatrixOptions;
  /** Shown under the title (e.g. the input files). */
  readonly subtitle?: string;
  /** Called between sections (the CLI shows progress). */
  readonly progress?: (step: string) => void;
  /** Told when a bound leaves pods out of the heat maps or Services out of the chains and traces. */
  readonly onBound?: (bound: ReportBound) => void;
}

/** A bound that left something out of the page (which the page says too). */
export interface ReportBound {
  readonly what: "pods" | "Services";
  readonly shown: number;
  readonly total: number;
}

function locality(cluster: Cluster, node: NodeEnvironment): Locality {
  const nodeOf = new Map<string, string | undefined>();
  for (const s of cluster.endpointSlices)
    for (const e of s.endpoints) for (const a of e.addresses) nodeOf.set(a, e.nodeName);
  return (ip) => {
    if (!nodeOf.has(ip)) return undefined;
    const n = nodeOf.get(ip);
    return n === undefined ? undefined : n === node.nodeName;
  };
}

function summaryHtml(s: NodeSummary, node: NodeEnvironment | undefined, mode: string): string {
  const rows = Object.entries(s.servicePorts)
    .map(
      ([type, protos]) =>
        `<tr><td>${esc(type)}</td>${["TCP", "UDP", "SCTP"].map((p) => `<td>${protos[p] ?? 0}</td>`).join("")}</tr>`,
    )
    .join("");
  const list = (xs: readonly string[]): string =>
    xs.length === 0 ? "none" : xs.map((x) => `<code>${esc(x)}</code>`).join(", ");
  const parts = [
    `<p>Node <b>${esc(node?.nodeName ?? "(none given)")}</b>${node !== undefined ? `, IPs ${esc(node.nodeIPs.join(", ") || "none")}, families ${esc(node.ipFamilies.join("/"))}` : ""}; kube-proxy mode <b>${esc(mode)}</b>.</p>`,
    `<table class="counts"><caption>Service ports by type and protocol</caption><thead><tr><th>type</th><th>TCP</th><th>UDP</th><th>SCTP</th></tr></thead><tbody>${rows || '<tr><td colspan="4">no Services</td></tr>'}</tbody></table>`,
    `<dl class="summary"><dt>SCTP Service ports</dt><dd>${list(s.sctp.services)}</dd><dt>Pods declaring SCTP ports</dt><dd>${list(s.sctp.pods)}</dd><dt>Policies naming SCTP</dt><dd>${list(s.sctp.policies)}</dd>`,
  ];
  const h = s.hostports;
  if (h === undefined) parts.push("<dt>Hostports</dt><dd>no node given</dd>");
  else if ("error" in h) parts.push(`<dt>Hostports</dt><dd>${esc(h.error)}</dd>`);
  else {
    parts.push(
      `<dt>Host sockets held open (kubenet hostports)</dt><dd>${list(h.sockets.map((k) => `${k.protocol}${k.family === "IPv4" ? "4" : "6"} ${k.hostIP === "" ? "*" : k.hostIP}:${k.port}`))}</dd>`,
      `<dt>Kernel modules the hostport rules need</dt><dd>${list(h.modules.map((m) => m.module))}</dd>`,
      `<dt>SCTP protocol module (sctp.ko) needed</dt><dd>${h.sctpModuleNeeded ? "yes" : "no: no SCTP socket is opened"}</dd>`,
    );
  }
  parts.push("</dl>");
  return parts.join("\n");
}

const LEGEND_GRAPH = `<p class="legend"><span><i class="swatch" style="background:#d5e3f0"></i>entry chain</span><span><i class="swatch" style="background:#e8eef5"></i>service chain / virtual server</span><span><i class="swatch" style="background:#eef3e6"></i>endpoint chain</span><span><i class="swatch" style="background:#2e8b57"></i>local endpoint</span><span><i class="swatch" style="background:#fff;border-style:dashed"></i>remote endpoint</span><span><i class="swatch" style="background:#c0392b"></i>drop/reject</span> percentages: share of the traffic reaching that branch.</p>`;

/**
 * The chosen Services' chain graphs. iptables mode draws them from the rule sets the traces
 * run through (`dataplane`, which adds only the hostport rules' own chains), so a large
 * cluster's rules are rendered once, not twice; without it (it could not be built) they are
 * rendered here, to say why.
 */
function graphsFor(
  cluster: Cluster,
  node: NodeEnvironment,
  proxyConfig: KubeProxyConfiguration,
  chosen: ServiceSelection,
  dataplane: NodeDataplane | undefined,
): ServiceGraph[] {
  const loc = locality(cluster, node);
  const wanted = (svc: string) => chosen.keys.has(svc);
  switch (proxyConfig.mode) {
    case "iptables": {
      const ruleSets =
        dataplane !== undefined
          ? node.ipFamilies.flatMap((family) => {
              const ruleSet = dataplane.ruleSets[family];
              return ruleSet !== undefined ? [{ family, ruleSet }] : [];
            })
          : renderIptables(cluster, { node, proxyConfig }).families;
      return ruleSets.flatMap((f) =>
        iptablesServiceGraphs(f.ruleSet, loc, wanted).map((g) => ({
          ...g,
          service: node.ipFamilies.length > 1 ? `${g.service} (${f.family})` : g.service,
        })),
      );
    }
    case "ipvs":
      return ipvsServiceGraphs(renderIpvs(cluster, { node, proxyConfig }).state, loc, wanted);
    case "nftables":
      // Chain graphs are drawn from iptables and IPVS state; nftables mode has none yet.
      return [];
  }
}

/** What the page says when the bound left pods out of the heat maps (empty when none was). */
function podBoundNote(chosen: ReturnType<typeof selectPods>): string {
  if (!chosen.bounded) return "";
  return `<p class="note">${chosen.keys.length} of ${chosen.total} pods (the first in the manifests' order): name others with the report's <code>pods</code> option (<code>--pods NAMESPACE/NAME,...</code>), or raise <code>maxPods</code> (<code>--max-pods N</code> or <code>all</code>).</p>`;
}

/** What the page says when the bound left Services out (empty when none was). */
function serviceBoundNote(chosen: ServiceSelection): string {
  if (!chosen.bounded) return "";
  return `<p class="note">${chosen.services.length} of ${chosen.total} Services (the first by namespace/name): name others with the report's <code>services</code> option (<code>--services NAMESPACE/NAME,...</code>), or raise <code>maxServices</code> (<code>--max-services N</code> or <code>all</code>).</p>`;
}

export function renderReport(cluster: Cluster, opts: ReportOptions): string {
  const progress = opts.progress ?? (() => {});
  const { node, proxyConfig } = opts;
  const sections: PageSection[] = [];
  progress("node summary");
  sections.push({
    id: "summary",
    title: "Node summary",
    html: summaryHtml(nodeSummary(cluster, node), node, proxyConfig.mode),
  });

  progress("policy heat maps");
  const podChoice = selectPods(cluster, opts);
  if (podChoice.bounded)
    opts.onBound?.({ what: "pods", shown: podChoice.keys.length, total: podChoice.total });
  const maps =
    cluster.pods.length === 0 ? [] : heatmaps(cluster, opts.matrix, new Set(podChoice.keys));
  sections.push({
    id: "policy",
    title: "Policy truth table",
    html:
      maps.length === 0
        ? "<p>No pods: nothing to tabulate.</p>"
        : `${podBoundNote(podChoice)}${LEGEND_HEAT}<div style="display:flex;gap:16px;align-items:flex-start"><div>${maps.map(heatmapHtml).join("\n")}</div><pre id="why">hover a cell</pre></div>`,
  });

  progress("service graphs");
  const chosen = selectServices(cluster, opts);
  let graphs = `<p class="note">No node given (--node-env or --node): kube-proxy's rules depend on it.</p>`;
  let traces = graphs;
  if (node !== undefined) {
    const bound = serviceBoundNote(chosen);
    if (chosen.bounded)
      opts.onBound?.({ what: "Services", shown: chosen.services.length, total: chosen.total });
    let dataplane: NodeDataplane | undefined;
    let notBuilt: unknown;
    progress("node rules");
    try {
      dataplane = buildNodeDataplane(cluster, { node, proxyConfig });
    } catch (e) {
      notBuilt = e;
    }
    try {
      const gs = graphsFor(cluster, node, proxyConfig, chosen, dataplane);
      graphs =
        gs.length === 0
          ? `${bound}<p>No Service has rules on this node.</p>`
          : bound +
            LEGEND_GRAPH +
            gs
              .map(
                (g) =>
                  `<h3>${esc(g.service)}</h3>${graphSvg(placeGraph(g.nodes, g.edges), `chains of ${g.service}`)}`,
              )
              .join("\n");
    } catch (e) {
      graphs = `<p class="note">Rules not rendered: ${esc(e instanceof Error ? e.message : String(e))}</p>`;
    }
    progress("traces");
    try {
      if (dataplane === undefined) throw notBuilt;
      const packets = servicePackets(chosen.services, node.nodeIPs);
      traces =
        packets.length === 0
          ? `${bound}<p>No Service ports to trace.</p>`
          : `${bound}<p class="legend">Each Service port from outside the node; <span style="background:#ffe08a">highlighted</span>: the rule that decided the outcome.</p>` +
            packets
              .map((p) => {
                try {
                  return tracePathHtml(packetKey(p), tracePaths(trace(dataplane, p)));
                } catch (e) {
                  return `<div class="trace"><h4>${esc(packetKey(p))}</h4><p class="note">${esc(e instanceof Error ? e.message : String(e))}</p></div>`;
                }
              })
              .join("\n");
    } catch (e) {
      traces = `<p class="note">Not traced: ${esc(e instanceof Error ? e.message : String(e))}</p>`;
    }
  }
  sections.push({ id: "services", title: "Service chains", html: graphs });
  sections.push({ id: "traces", title: "Traces", html: traces });
  return page("kube-netsim report", opts.subtitle ?? "", sections);
}
