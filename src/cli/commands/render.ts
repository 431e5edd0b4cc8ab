/** `kube-netsim render`: the rules a node component would write (iptables, ipvs, hostports). */
import type { Command } from "commander";
import type { CliIO } from "../program.js";
import { renderSubcommands } from "./render-subcommands.js";

export function registerRender(program: Command, io: CliIO): void {
  const render = program
    .command("render")
    .description("the rules kube-proxy or kubelet would write on a node, byte for byte");
  for (const register of renderSubcommands) register(render, io);
}
