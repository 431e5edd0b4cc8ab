/**
 * The CLI options that load an acceptance case's directory (shared/acceptance/<case>/): its
 * manifests, node environment and kube-proxy configuration.
 */
import { join } from "node:path";

export function caseArgs(dir: string): string[] {
  return [
    "-f",
    join(dir, "cluster.yaml"),
    "--node-env",
    join(dir, "node.yaml"),
    "--proxy-config",
    join(dir, "proxy.yaml"),
  ];
}
