/**
 * The node the rules are generated for: a `kube-netsim.dev/v1alpha1` NodeEnvironment file
 * (`--node-env`), or one derived from a Node object (`--node NAME`). Defaults are those of
 * shared/docs/interfaces.md. Interface addresses are normalised to `address/prefix` (host bits
 * kept, a bare address becoming /32 or /128); node IPs to canonical text. Unknown fields are
 * errors here: this is kube-netsim's own format, so a misspelt field is a mistake, not an
 * extension.
 */
import {
  formatCIDRAsWritten,
  formatIP,
  parseCIDROrHost,
  parseIP,
  type IPFamily,
} from "../net/index.js";
import type { Cluster } from "./cluster.js";
import { nodeByName } from "./cluster-index.js";
import { ConfigReader, type KnownFields } from "./config-document.js";
import { ValidationError } from "./issue.js";
import {
  DEFAULT_KERNEL,
  type KernelCapabilities,
  type NodeEnvironment,
  type NodeInterface,
  type NodeRoute,
} from "./node-environment.js";
import { showValue } from "./validation/field-issue.js";

export const NODE_ENVIRONMENT_API_VERSION = "kube-netsim.dev/v1alpha1";

export const LOOPBACK_INTERFACE: NodeInterface = {
  name: "lo",
  addresses: ["127.0.0.1/8", "::1/128"],
};

const KNOWN: KnownFields = {
  apiVersion: true,
  kind: true,
  nodeName: true,
  ipFamilies: true,
  nodeIPs: true,
  interfaces: [{ name: true, addresses: true }],
  routes: [{ dst: true, gateway: true, dev: true }],
  kernel: {
    iptablesRandomFully: true,
    nfacct: true,
    conntrackTCPBeLiberal: true,
    ipvs: true,
    sctp: true,
  },
};

function isLoopback(cidr: string): boolean {
  const c = parseCIDROrHost(cidr, "lenient");
  if (c === undefined) return false;
  const a = c.address;
  return a.family === "IPv4" ? a.value >>> 24 === 127 : a.value === 1n;
}

/** Families of the node IPs and non-loopback interface addresses; IPv4 when there are none. */
export function defaultIPFamilies(
  nodeIPs: readonly string[],
  interfaces: readonly NodeInterface[],
): IPFamily[] {
  const fams = new Set<IPFamily>();
  for (const ip of nodeIPs) {
    const a = parseIP(ip, "lenient");
    if (a !== undefined) fams.add(a.family);
  }
  for (const itf of interfaces)
    for (const addr of itf.addresses) {
      if (isLoopback(addr)) continue;
      const c = parseCIDROrHost(addr, "lenient");
      if (c !== undefined) fams.add(c.family);
    }
  const out: IPFamily[] = [];
  if (fams.has("IPv4")) out.push("IPv4");
  if (fams.has("IPv6")) out.push("IPv6");
  return out.length === 0 ? ["IPv4"] : out;
}

export function parseNodeEnvironment(text: string, file: string): NodeEnvironment {
  const { reader, issues } = ConfigReader.fromText(text, file);
  if (reader === undefined) throw new ValidationError(issues);
  const r = reader;
  const apiVersion = r.string(["apiVersion"]);
  const kind = r.string(["kind"]);
  if (kind !== "NodeEnvironment")
    r.report(
      ["kind"],
      `Unsupported value: ${showValue(kind ?? "")}: supported values: "NodeEnvironment"`,
      "unsupported-value",
    );
  if (apiVersion !== NODE_ENVIRONMENT_API_VERSION)
    r.report(
      ["apiVersion"],
      `Unsupported value: ${showValue(apiVersion ?? "")}: supported values: "${NODE_ENVIRONMENT_API_VERSION}"`,
      "unsupported-value",
    );
  r.unknownFields([], KNOWN, "error");

  const nodeName = r.string(["nodeName"]);
  if (nodeName === undefined || nodeName === "")
    r.report(["nodeName"], "Required value", "required");

  const nodeIPs: string[] = [];
  (r.stringList(["nodeIPs"]) ?? []).forEach((ip, i) => {
    const a = parseIP(ip, "lenient");
    if (a === undefined)
      r.report(["nodeIPs", i], `Invalid value: ${showValue(ip)}: must be a valid IP address`);
    else nodeIPs.push(formatIP(a));
  });

  let interfaces: NodeInterface[] = [];
  const rawItfs = r.array(["interfaces"]);
  if (rawItfs === undefined) interfaces = [LOOPBACK_INTERFACE];
  else
    rawItfs.forEach((_, i) => {
      if (r.record(["interfaces", i]) === undefined) return;
      const name = r.string(["interfaces", i, "name"]);
      if (name === undefined || name === "")
        r.report(["interfaces", i, "name"], "Required value", "required");
      const addresses: string[] = [];
      (r.stringList(["interfaces", i, "addresses"]) ?? []).forEach((addr, j) => {
        const c = parseCIDROrHost(addr, "lenient");
        if (c === undefined)
          r.report(
            ["interfaces", i, "addresses", j],
            `Invalid value: ${showValue(addr)}: must be an IP address or CIDR`,
          );
        else addresses.push(formatCIDRAsWritten(c));
      });
      interfaces.push({ name: name ?? "", addresses });
    });
  const seenItf = new Set<string>();
  interfaces.forEach((itf, i) => {
    if (itf.name !== "" && seenItf.has(itf.name))
      r.report(["interfaces", i, "name"], `Duplicate value: ${showValue(itf.name)}`, "duplicate");
    seenItf.add(itf.name);
  });

  let ipFamilies: IPFamily[];
  const rawFams = r.stringList(["ipFamilies"]);
  if (rawFams === undefined || rawFams.length === 0)
    ipFamilies = defaultIPFamilies(nodeIPs, interfaces);
  else {
    ipFamilies = [];
    rawFams.forEach((f, i) => {
      if (f !== "IPv4" && f !== "IPv6")
        r.report(
          ["ipFamilies", i],
          `Unsupported value: ${showValue(f)}: supported values: "IPv4", "IPv6"`,
          "unsupported-value",
        );
      else if (ipFamilies.includes(f))
        r.report(["ipFamilies", i], `Duplicate value: ${showValue(f)}`, "duplicate");
      else ipFamilies.push(f);
    });
  }

  const routes = readRoutes(r);

  r.record(["kernel"]);
  const nfacct = r.stringList(["kernel", "nfacct"]);
  const kernel: KernelCapabilities = {
    iptablesRandomFully:
      r.boolean(["kernel", "iptablesRandomFully"]) ?? DEFAULT_KERNEL.iptablesRandomFully,
    nfacct: nfacct ?? DEFAULT_KERNEL.nfacct,
    conntrackTCPBeLiberal:
      r.boolean(["kernel", "conntrackTCPBeLiberal"]) ?? DEFAULT_KERNEL.conntrackTCPBeLiberal,
    ipvs: r.boolean(["kernel", "ipvs"]) ?? DEFAULT_KERNEL.ipvs,
    sctp: r.boolean(["kernel", "sctp"]) ?? DEFAULT_KERNEL.sctp,
  };

  if (r.issues.length > 0) throw new ValidationError(r.issues);
  return {
    nodeName: nodeName ?? "",
    ipFamilies,
    nodeIPs,
    interfaces,
    ...(routes.length > 0 ? { routes } : {}),
    kernel,
  };
}

/** `routes`: dst "default" or a CIDR, a gateway of its family and/or a dev. */
function readRoutes(r: ConfigReader): NodeRoute[] {
  const routes: NodeRoute[] = [];
  (r.array(["routes"]) ?? []).forEach((_, i) => {
    if (r.record(["routes", i]) === undefined) return;
    const dst = r.string(["routes", i, "dst"]);
    const gateway = r.string(["routes", i, "gateway"]);
    const dev = r.string(["routes", i, "dev"]);
    let family: IPFamily | undefined;
    if (dst === undefined || dst === "")
      r.report(["routes", i, "dst"], "Required value", "required");
    else if (dst !== "default") {
      const c = parseCIDROrHost(dst, "lenient");
      if (c === undefined)
        r.report(
          ["routes", i, "dst"],
          `Invalid value: ${showValue(dst)}: must be "default" or an IP address or CIDR`,
        );
      else family = c.family;
    }
    let gw: string | undefined;
    if (gateway !== undefined) {
      const a = parseIP(gateway, "lenient");
      if (a === undefined)
        r.report(
          ["routes", i, "gateway"],
          `Invalid value: ${showValue(gateway)}: must be a valid IP address`,
        );
      else if (family !== undefined && a.family !== family)
        r.report(
          ["routes", i, "gateway"],
          `Invalid value: ${showValue(gateway)}: must be of the family of dst (${family})`,
        );
      else gw = formatIP(a);
    }
    if (dev === "") r.report(["routes", i, "dev"], 'Invalid value: "": must be an interface name');
    if (gateway === undefined && dev === undefined)
      r.report(["routes", i], "Required value: gateway or dev", "required");
    routes.push({
      dst: dst ?? "",
      ...(gw !== undefined ? { gateway: gw } : {}),
      ...(dev !== undefined && dev !== "" ? { dev } : {}),
    });
  });
  return routes;
}

/**
 * A node environment from a Node object: InternalIP and ExternalIP addresses (in status order)
 * become the node IPs and the host addresses of `eth0`, next to `lo`. Throws a ValidationError
 * naming the node when it is not in the cluster.
 */
export function nodeEnvironmentFromNode(cluster: Cluster, nodeName: string): NodeEnvironment {
  const node = nodeByName(cluster, nodeName);
  if (node === undefined)
    throw new ValidationError([
      {
        code: "not-found",
        severity: "error",
        message: `node "${nodeName}" not found (the manifests declare ${
          cluster.nodes.length === 0
            ? "no Node"
            : cluster.nodes.map((n) => `"${n.metadata?.name ?? ""}"`).join(", ")
        })`,
        path: [],
      },
    ]);
  const nodeIPs: string[] = [];
  for (const a of node.status?.addresses ?? []) {
    if (a.type !== "InternalIP" && a.type !== "ExternalIP") continue;
    const ip = parseIP(a.address ?? "", "lenient");
    if (ip === undefined) continue;
    const text = formatIP(ip);
    if (!nodeIPs.includes(text)) nodeIPs.push(text);
  }
  const eth0: NodeInterface = {
    name: "eth0",
    addresses: nodeIPs.map((ip) => formatCIDRAsWritten(parseCIDROrHost(ip, "lenient")!)),
  };
  const interfaces = [LOOPBACK_INTERFACE, eth0];
  return {
    nodeName,
    ipFamilies: defaultIPFamilies(nodeIPs, interfaces),
    nodeIPs,
    interfaces,
    kernel: DEFAULT_KERNEL,
  };
}
