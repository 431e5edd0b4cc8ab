/** Per-kind API-server validation entry points used by the loader. */
export * from "./field-issue.js";
export * from "./validate-object.js";
