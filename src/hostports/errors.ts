/**
 * The errors the kubelet's hostport manager returns from Add, kept as data (`kind`) with the
 * kubelet's message text, so a caller can both branch on them and print them as kubelet would.
 */
import type { IPFamily } from "../net/index.js";
import { assertNever } from "../util/assert-never.js";
import type { IssueCode } from "../issue/issue.js";
import { inputIssue, ValidationError } from "../issue/validation-error.js";

export type HostportErrorDetail =
  | { readonly kind: "invalid-pod-ip"; readonly pod: string }
  | {
      readonly kind: "family-mismatch";
      readonly podIP: string;
      readonly podFamily: IPFamily;
      readonly managerFamily: IPFamily;
    }
  | {
      readonly kind: "cannot-open-hostport";
      readonly pod: string;
      readonly hostPort: number;
      readonly protocol: "tcp" | "udp";
      readonly hostIP: string;
      /** Why the socket could not be opened ("hostport is occupied" in upstream's fake). */
      readonly cause: string;
    }
  | {
      readonly kind: "invalid-port-mapping";
      readonly pod: string;
      readonly index: number;
      readonly reason: string;
    }
  | { readonly kind: "restore-failed"; readonly cause: string };

function messageOf(d: HostportErrorDetail): string {
  switch (d.kind) {
    case "invalid-pod-ip":
      return `invalid or missing IP of pod ${d.pod}`;
    case "family-mismatch":
      return `HostPortManager IP family mismatch: ${d.podIP}, isIPv6 - ${d.podFamily === "IPv6"}`;
    case "cannot-open-hostport":
      return `cannot open hostport ${d.hostPort} for pod ${d.pod}: ${d.cause}`;
    case "invalid-port-mapping":
      return `invalid port mapping ${d.index} of pod ${d.pod}: ${d.reason}`;
    case "restore-failed":
      return `failed to execute iptables-restore: ${d.cause}`;
  }
  return assertNever(d);
}

function codeOf(d: HostportErrorDetail): IssueCode {
  switch (d.kind) {
    case "cannot-open-hostport":
      return "duplicate";
    case "restore-failed":
      return "syntax";
    case "invalid-pod-ip":
    case "family-mismatch":
    case "invalid-port-mapping":
      return "invalid";
  }
  return assertNever(d);
}

/**
 * One of these errors, as bad input (a pod the manager cannot program); the message is the
 * kubelet's alone (no object or path prefix), so it reads as the kubelet logs it.
 */
export class HostportError extends ValidationError {
  readonly detail: HostportErrorDetail;
  constructor(detail: HostportErrorDetail) {
    super([inputIssue(codeOf(detail), messageOf(detail))]);
    this.name = "HostportError";
    this.detail = detail;
  }
}
