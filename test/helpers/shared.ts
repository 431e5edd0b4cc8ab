/**
 * The shared/ folder (specs, acceptance cases) sits beside the repository: ../shared from the
 * project root. A clone made elsewhere (`git clone . "$(mktemp -d)"`, as a check of a fresh
 * checkout does) finds it beside the repository it was cloned from; KUBE_NETSIM_SHARED names it
 * outright.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";

const ROOT = join(__dirname, "../..");

/** The directory the checkout was cloned from, when that was a local path. */
function originDirectory(): string | undefined {
  try {
    const url = execFileSync("git", ["-C", ROOT, "config", "--get", "remote.origin.url"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    return isAbsolute(url) ? url : undefined;
  } catch {
    return undefined;
  }
}

function findShared(): string {
  const origin = originDirectory();
  const candidates = [
    process.env["KUBE_NETSIM_SHARED"],
    join(ROOT, "../shared"),
    origin === undefined ? undefined : join(origin, "../shared"),
  ].filter((c): c is string => c !== undefined);
  const found = candidates.find((c) => existsSync(join(c, "acceptance")));
  if (found === undefined)
    throw new Error(
      `shared/ (specs and acceptance cases) not found; looked in ${candidates.join(", ")}. ` +
        "Put it beside the repository or set KUBE_NETSIM_SHARED.",
    );
  return found;
}

export const SHARED_DIR = findShared();
export const ACCEPTANCE_DIR = join(SHARED_DIR, "acceptance");
