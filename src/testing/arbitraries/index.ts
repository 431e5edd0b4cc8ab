export * from "./service.js";
export * from "./endpointSlice.js";
export * from "./kubeCluster.js";
export * from "./hostPortPod.js";
export * from "./ipAddress.js";
export * from "./cidr.js";
export * from "./labels.js";
export * from "./labelSelector.js";
