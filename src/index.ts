/** The kube-netsim library. This file only re-exports. */
export * from "./net/index.js";
export * from "./model/index.js";
export * from "./policy/index.js";
