/**
 * One kernel test file at a time per jest run: jest's workers run pure test files in parallel,
 * but two kernel files at once (namespaces, restores, probes with timeouts) slow each other into
 * timeouts on a small machine. The lock is a directory named after the run (the workers' parent
 * process); a holder that died leaves it to be taken over.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const LOCK = join(tmpdir(), `kube-netsim-kernel-tests-${process.ppid}`);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function tryTake(): boolean {
  try {
    mkdirSync(LOCK);
  } catch {
    let owner: number;
    try {
      owner = Number(readFileSync(join(LOCK, "pid"), "utf8"));
    } catch {
      return false; // being taken right now: the pid file follows the directory
    }
    if (!Number.isInteger(owner) || alive(owner)) return false;
    rmSync(LOCK, { recursive: true, force: true });
    return false;
  }
  writeFileSync(join(LOCK, "pid"), String(process.pid));
  return true;
}

/** Waits for the run's kernel lock; returns its release. */
export async function holdKernelLock(): Promise<() => void> {
  while (!tryTake()) await new Promise((r) => setTimeout(r, 200));
  return () => rmSync(LOCK, { recursive: true, force: true });
}
