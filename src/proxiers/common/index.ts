/**
 * What every kube-proxy mode shares (spec: shared/spec/kube-proxy-iptables.md §1, §3, §5.8,
 * §5.9, §4.10). The shared layer decides; each mode only renders. Stable API:
 *
 * - `proxierSettings(cluster, family, { proxyConfig?, node }): ProxierSettings` — one
 *   per-family proxier's view: nodeName (hostnameOverride wins), nodeIP of the family, the Node
 *   object, `localDetector`, `masqueradeAll`, `masqueradeMark` (1 << bit), `localhostNodePorts`
 *   (IPv4 and 127/8 allowed only), `nodePortAddresses` ("all" or the matching local IPs), and
 *   the topology input (node name, zone label, PreferSameTrafficDistribution gate).
 * - `planFamily(cluster, settings): FamilyPlan` — every `ServicePortPlan`, sorted by
 *   (namespace, service, port name, protocol), plus `totalEndpoints` (large-cluster mode).
 * - `familyPlanSource(cluster, settings): FamilyPlanSource` — the same plans made one service
 *   port at a time (`forEach(visit)` returns `totalEndpoints`), with bounds known before planning
 *   (`servicePortCount`, `endpointBound`): what a renderer uses that writes each service port's
 *   rules as it comes and keeps no plan of the whole cluster (`planFamily` is built on it).
 * - `ServicePortPlan` — `servicePort` (normalised `ServicePort`: name, clusterIP, port,
 *   nodePort, externalIPs, loadBalancerVIPs, loadBalancerSourceRanges, sessionAffinity, traffic
 *   policies, healthCheckNodePort), `endpoints` (all, sorted by `ip:port` string),
 *   `categorized` (clusterEndpoints / localEndpoints / allReachable / hasAnyEndpoints /
 *   topologyMode), and the decisions: hasEndpoints, hasInternalEndpoints, hasExternalEndpoints,
 *   usesClusterPolicy, usesLocalPolicy, usesExternalEntry, usesFirewall, allowFromNode,
 *   internalVerdict / externalVerdict ("reject" | "drop" | undefined), healthCheckNodePort,
 *   localReadyEndpointCount.
 * - Building blocks: `servicePortsForFamily`, `endpointsByServicePort`, `categorizeEndpoints`,
 *   `topologyModeFromHints`, `localDetectorFor` + `ifLocalArgs` / `ifNotLocalArgs`,
 *   `nodePortAddressesFor`, `chainHash` (base32(sha256) truncated to 16), `parseCIDRSloppy`.
 */
export * from "./hash.js";
export * from "./service-port.js";
export * from "./endpoint.js";
export * from "./categorize.js";
export * from "./local-detector.js";
export * from "./node-port-addresses.js";
export * from "./proxier-settings.js";
export * from "./plan.js";
