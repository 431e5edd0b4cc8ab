/**
 * The subcommands of `kube-netsim render`, in the order `render --help` lists them. Each area
 * adds its own `(render, io) => void` here (one import, one entry).
 */
import type { Command } from "commander";
import type { CliIO } from "../program.js";
import { registerRenderHostports } from "./render-hostports.js";
import { registerRenderIptables } from "./render-iptables.js";
import { registerRenderIpvs } from "./render-ipvs.js";
import { registerRenderNftables } from "./render-nftables.js";

export type RegisterRenderSubcommand = (render: Command, io: CliIO) => void;

export const renderSubcommands: RegisterRenderSubcommand[] = [
  registerRenderIptables,
  registerRenderIpvs,
  registerRenderHostports,
  registerRenderNftables,
];
