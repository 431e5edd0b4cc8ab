/** The kube-netsim library. This file only re-exports. */
export * from "./net/index.js";
export * from "./model/issue.js";
export * from "./model/kinds.js";
export * from "./model/cluster.js";
export * from "./model/node-environment.js";
export * from "./model/proxy-config.js";
