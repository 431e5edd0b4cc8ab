/** Every CLI command, in the order `--help` lists them. */
import type { Command } from "commander";
import type { CliIO } from "../program.js";
import { registerParse } from "./parse.js";
import { registerPolicy } from "./policy.js";
import { registerRender } from "./render.js";
import { registerRepl } from "./repl.js";
import { registerReport } from "./report.js";
import { registerTrace } from "./trace.js";
import { registerValidate } from "./validate.js";
import { registerVerify } from "./verify.js";
import { registerSnapshot } from "./snapshot.js";
import { registerConformance } from "./conformance.js";

export type RegisterCommand = (program: Command, io: CliIO) => void;

export const COMMANDS: readonly RegisterCommand[] = [
  registerValidate,
  registerRender,
  registerPolicy,
  registerTrace,
  registerParse,
  registerRepl,
  registerReport,
  registerVerify,
  registerSnapshot,
  registerConformance,
];
