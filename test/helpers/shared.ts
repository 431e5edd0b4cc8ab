/**
 * The shared/ folder (specs, acceptance cases) sits beside the repository: ../shared from the
 * project root, both here and in CI's fresh clone.
 */
import { join } from "node:path";

export const SHARED_DIR = join(__dirname, "../../../shared");
export const ACCEPTANCE_DIR = join(SHARED_DIR, "acceptance");
