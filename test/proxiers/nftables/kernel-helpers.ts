/**
 * Real nft in scratch network namespaces (created and deleted here). `nftTest` runs like
 * kernelTest (skipped with a reason off-root, a failure under CI=true) and also needs `nft`.
 */
import { spawnSync } from "node:child_process";
import { test } from "@jest/globals";
import { createNetns, deleteNetns, type Netns } from "../../../src/backends/netns.js";
import { kernelTest } from "../../helpers/kernel.js";

const hasNft = spawnSync("sh", ["-c", "command -v nft"], { encoding: "utf8" }).status === 0;

export function nftTest(name: string, fn: () => Promise<void> | void, timeoutMs?: number): void {
  if (hasNft) {
    kernelTest(name, ["root", "ip"], fn, timeoutMs);
    return;
  }
  if (process.env.CI === "true") {
    test(name, () => {
      throw new Error("kernel test must run in CI but cannot: nft (nftables) not installed");
    });
    return;
  }
  const skipped = test.skip;
  skipped(`${name} (skipped: nft (nftables) not installed)`, fn);
}

/** Runs `body` with a fresh namespace, deleted afterwards whatever happens. */
export function withNftNetns<T>(body: (ns: Netns) => T): T {
  const ns = createNetns("kns-nft");
  try {
    return body(ns);
  } finally {
    deleteNetns(ns);
  }
}

/** `nft -f -` of `text`: undefined on success, else nft's stderr. */
export function nftLoad(ns: Netns, text: string, check = false): string | undefined {
  const r = ns.run("nft", check ? ["-c", "-f", "-"] : ["-f", "-"], text);
  return r.status === 0 ? undefined : r.stderr;
}

/**
 * A listing with the order the kernel does not keep stable taken out: the items inside each
 * `elements = { ... }` are sorted (hash sets list in hash order).
 */
export function withSortedElements(listing: string): string {
  return listing.replace(/elements = \{ ([^}]*) \}/g, (_m, body: string) => {
    const items = body.split(/,\n\t*\s*|, /).map((s) => s.trim());
    return `elements = { ${items.sort().join(", ")} }`;
  });
}
