export * from "./service.js";
export * from "./endpointSlice.js";
export * from "./kubeCluster.js";
