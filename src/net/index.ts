export * from "./address.js";
export * from "./cidr.js";
export * from "./port.js";
