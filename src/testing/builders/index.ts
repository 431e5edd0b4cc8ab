/** Fixtures in code: typed builders whose objects go through the loader (see cluster.ts). */
export * from "./cluster.js";
export * from "./namespace.js";
export * from "./pod.js";
export * from "./service.js";
export * from "./endpoints.js";
export * from "./network-policy.js";
export * from "./node-env.js";
export * from "./proxy-config.js";
