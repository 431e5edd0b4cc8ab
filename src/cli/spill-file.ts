/**
 * Restore text kept in a temporary file until it is printed (`SpilledText`, netfilter/build):
 * `render iptables` spills a large table's rule lines here while the rules are written (kube-proxy
 * prints every chain declaration before the first rule, so the lines wait for the last one).
 *
 * Why a file: on the virtual machines this runs on, each page of fresh process memory costs a
 * page fault (~20 µs each: 31 MB of restore text for 10,000 services × 10 endpoints cost
 * ~170 ms of CPU to hold), while the kernel's page cache takes the same bytes in ~10 ms and
 * gives them back as fast; the process reuses one chunk and one read buffer. The file is
 * unlinked as soon as it is opened, so nothing is left behind, even on a crash.
 */
import {
  closeSync,
  mkdtempSync,
  openSync,
  readSync,
  rmdirSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SpilledText } from "../netfilter/build/rule-set-builder.js";

/** Bytes read back at a time. */
const READ_SIZE = 1 << 20;

/**
 * One table's spilled lines. A write that fails (the temporary directory's file system full,
 * a quota) is not the user's problem: the file keeps what it holds, and the rest of the lines
 * are kept in memory from there on, as they would be without a spill file.
 */
export class SpillFile implements SpilledText {
  #size = 0;
  #buffer: Buffer | undefined;
  /** The lines after a failed write, copied (the caller reuses its chunk). */
  #memory: Buffer[] | undefined;

  constructor(private readonly fd: number) {}

  append(bytes: Uint8Array): void {
    if (this.#memory !== undefined) {
      this.#memory.push(Buffer.from(bytes));
      return;
    }
    let done = 0;
    try {
      while (done < bytes.length)
        done += writeSync(this.fd, bytes, done, bytes.length - done, this.#size + done);
    } catch {
      this.#memory = [Buffer.from(bytes.subarray(done))];
    }
    this.#size += done;
  }

  replay(write: (bytes: Uint8Array) => void): void {
    const buffer = (this.#buffer ??= Buffer.allocUnsafeSlow(READ_SIZE));
    for (let at = 0; at < this.#size;) {
      const n = readSync(this.fd, buffer, 0, Math.min(READ_SIZE, this.#size - at), at);
      if (n === 0) throw new Error("a spilled restore file ended early");
      write(buffer.subarray(0, n));
      at += n;
    }
    for (const b of this.#memory ?? []) write(b);
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * Spill files made on demand, and closed together when the output is written (`close`). A file
 * that cannot be made (no writable temporary directory) is an error, not a silent fallback:
 * the caller decides beforehand whether to spill.
 */
export class SpillFiles {
  readonly #files: SpillFile[] = [];

  /** A new, empty, already unlinked spill file. */
  readonly make = (): SpilledText => {
    const dir = mkdtempSync(join(tmpdir(), "kube-netsim-spill-"));
    const path = join(dir, "restore");
    try {
      const file = new SpillFile(openSync(path, "w+", 0o600));
      this.#files.push(file);
      return file;
    } finally {
      rmSafely(() => unlinkSync(path));
      rmSafely(() => rmdirSync(dir));
    }
  };

  close(): void {
    for (const f of this.#files.splice(0)) f.close();
  }
}

function rmSafely(rm: () => void): void {
  try {
    rm();
  } catch {
    // Already gone (the open failed before creating it).
  }
}
