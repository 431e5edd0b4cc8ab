/** The model reports with the one issue type (src/issue/). */
export * from "../issue/issue.js";
export * from "../issue/validation-error.js";
export * from "../issue/operational-error.js";
