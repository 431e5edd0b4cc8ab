/** nftables acceptance cases on disk (shared/acceptance/nftables). */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { ACCEPTANCE_DIR } from "../../helpers/shared.js";

export { loadCase, readFlows, FAKE_LOCAL_IPS } from "../iptables/helpers.js";
export type { Case, Flow } from "../iptables/helpers.js";

export const NFT_ACCEPTANCE = join(ACCEPTANCE_DIR, "nftables");

/** Every case folder with inputs (cluster.yaml), variants expanded. */
export function caseDirs(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    const entries = readdirSync(dir, { withFileTypes: true });
    if (entries.some((e) => e.name === "cluster.yaml")) out.push(dir);
    for (const e of entries) if (e.isDirectory()) walk(join(dir, e.name));
  };
  walk(NFT_ACCEPTANCE);
  return out.sort();
}
