/** Every CLI command, in the order `--help` lists them. */
import type { Command } from "commander";
import type { CliIO } from "../program.js";
import { registerPolicy } from "./policy.js";

export type RegisterCommand = (program: Command, io: CliIO) => void;

export const COMMANDS: readonly RegisterCommand[] = [registerPolicy];
