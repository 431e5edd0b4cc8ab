/**
 * The errors the kubelet's hostport manager returns from Add, kept as data (`kind`) with the
 * kubelet's message text, so a caller can both branch on them and print them as kubelet would.
 */
import type { IPFamily } from "../net/index.js";
import { assertNever } from "../util/assert-never.js";

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

export class HostportError extends Error {
  readonly detail: HostportErrorDetail;
  constructor(detail: HostportErrorDetail) {
    super(messageOf(detail));
    this.name = "HostportError";
    this.detail = detail;
  }
}
