export * from "./model.js";
export * from "./parse-error.js";
export * from "./address-port.js";
export * from "./ipvsadm-save.js";
export * from "./ipvsadm-list.js";
export * from "./simulator.js";
export * from "./hook.js";
