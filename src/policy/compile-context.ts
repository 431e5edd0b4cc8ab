/**
 * Shared state of one compilation: the cluster facts, the issues found, and every CIDR seen
 * (IP-block classes). Helpers report what the API server would reject instead of failing.
 */
import type { Issue, ObjectRef } from "../model/issue.js";
import type { LabelSelector } from "../model/kinds.js";
import { parseCIDR, formatCIDR, type CIDR } from "../net/cidr.js";
import { parseProtocol, type Protocol } from "../net/port.js";
import { compileSelector, type CompiledSelector } from "./label-selector.js";
import type { ClusterFacts } from "./facts.js";
import type { DnsMap } from "./dns-map.js";

export type Path = readonly (string | number)[];

export class CompileContext {
  readonly issues: Issue[] = [];
  readonly cidrs = new Map<string, CIDR>();

  constructor(
    readonly facts: ClusterFacts,
    readonly dnsMap?: DnsMap,
  ) {}

  issue(
    object: ObjectRef,
    path: Path,
    message: string,
    severity: "error" | "warning" = "error",
  ): void {
    this.issues.push({ code: "invalid", severity, message, object, path });
  }

  selector(object: ObjectRef, path: Path, sel: LabelSelector | null | undefined): CompiledSelector {
    const c = compileSelector(sel);
    for (const p of c.problems) this.issue(object, path, p);
    return c;
  }

  /**
   * `hostBits: "accept"`: the CIDR's host bits are legal (CEL isCIDR in v1alpha2) and simply
   * masked, without the canonical-form warning.
   */
  cidr(
    object: ObjectRef,
    path: Path,
    text: string | undefined,
    hostBits: "warn" | "accept" = "warn",
  ): CIDR | undefined {
    if (text === undefined || text === "") {
      this.issue(object, path, "Required value");
      return undefined;
    }
    const strict = parseCIDR(text, "strict");
    const c = strict ?? parseCIDR(text, "lenient");
    if (c === undefined) {
      this.issue(object, path, `Invalid value: "${text}": must be a valid CIDR value`);
      return undefined;
    }
    if (strict === undefined || (hostBits === "warn" && c.address.value !== c.network.value))
      this.issue(
        object,
        path,
        `"${text}" is not in canonical form (strict CIDR validation would reject it); using ${formatCIDR(c)}`,
        "warning",
      );
    this.cidrs.set(formatCIDR(c), c);
    return c;
  }

  protocol(object: ObjectRef, path: Path, p: string | undefined): Protocol {
    if (p === undefined) return "TCP";
    const proto = p === "TCP" || p === "UDP" || p === "SCTP" ? p : undefined;
    if (proto === undefined) {
      this.issue(object, path, `Unsupported value: "${p}": supported values: "SCTP", "TCP", "UDP"`);
      return parseProtocol(p) ?? "TCP";
    }
    return proto;
  }
}
