/**
 * Reading kube-netsim's own single-document config files (NodeEnvironment,
 * KubeProxyConfiguration): one YAML object, typed field access that records positioned issues
 * instead of throwing, and a check for unknown fields.
 */
import { positionOf, type FieldPositions } from "./field-positions.js";
import { formatFieldPath, type Issue, type Severity } from "./issue.js";
import { readManifests } from "./yaml-documents.js";
import { isRecord, type PlainRecord } from "../util/plain.js";
import { showValue } from "./validation/field-issue.js";

export type Path = readonly (string | number)[];

export class ConfigReader {
  readonly issues: Issue[] = [];
  constructor(
    readonly file: string,
    readonly root: PlainRecord,
    private readonly positions: FieldPositions,
  ) {}

  /** Reads a YAML text holding exactly one object; undefined (with issues) otherwise. */
  static fromText(text: string, file: string): { reader?: ConfigReader; issues: Issue[] } {
    const read = readManifests([{ file, text }]);
    if (read.issues.length > 0) return { issues: read.issues };
    if (read.objects.length !== 1) {
      return {
        issues: [
          {
            code: "not-an-object",
            severity: "error",
            message: `expected exactly one YAML document with an object, found ${read.objects.length}`,
            source: { file, line: 1, col: 1 },
            path: [],
          },
        ],
      };
    }
    const obj = read.objects[0]!;
    return { reader: new ConfigReader(file, obj.value, obj.positions), issues: [] };
  }

  report(
    path: Path,
    message: string,
    code: Issue["code"] = "invalid",
    severity: Severity = "error",
  ): void {
    this.issues.push({
      code,
      severity,
      message,
      source: positionOf(this.positions, path) ?? { file: this.file, line: 1, col: 1 },
      path,
    });
  }

  get(path: Path): unknown {
    let cur: unknown = this.root;
    for (const p of path) {
      if (cur === null || cur === undefined) return undefined;
      if (typeof p === "number") cur = Array.isArray(cur) ? cur[p] : undefined;
      else cur = isRecord(cur) ? cur[p] : undefined;
    }
    return cur;
  }

  private typed<T>(path: Path, pred: (v: unknown) => v is T, what: string): T | undefined {
    const v = this.get(path);
    if (v === undefined || v === null) return undefined;
    if (pred(v)) return v;
    this.report(path, `Invalid value: ${showValue(v)}: must be ${what}`, "invalid-type");
    return undefined;
  }

  string(path: Path): string | undefined {
    return this.typed(path, (v): v is string => typeof v === "string", "a string");
  }
  boolean(path: Path): boolean | undefined {
    return this.typed(path, (v): v is boolean => typeof v === "boolean", "a boolean");
  }
  integer(path: Path): number | undefined {
    return this.typed(
      path,
      (v): v is number => typeof v === "number" && Number.isInteger(v),
      "an integer",
    );
  }
  array(path: Path): unknown[] | undefined {
    return this.typed(path, (v): v is unknown[] => Array.isArray(v), "a list");
  }
  record(path: Path): PlainRecord | undefined {
    return this.typed(path, isRecord, "an object");
  }
  stringList(path: Path): string[] | undefined {
    const arr = this.array(path);
    if (arr === undefined) return undefined;
    const out: string[] = [];
    arr.forEach((v, i) => {
      if (typeof v === "string") out.push(v);
      else
        this.report(
          [...path, i],
          `Invalid value: ${showValue(v)}: must be a string`,
          "invalid-type",
        );
    });
    return out;
  }

  /**
   * Reports fields of the object at `path` not in `known`. A known name maps to nested known
   * fields (an object), `true` (a leaf or anything below it is accepted), or `"list"` + object.
   */
  unknownFields(path: Path, known: KnownFields, severity: Severity): void {
    const v = this.get(path);
    if (!isRecord(v)) return;
    for (const key of Object.keys(v)) {
      const spec = known[key];
      if (spec === undefined) {
        this.report(
          [...path, key],
          `unknown field "${formatFieldPath([...path, key])}"`,
          "unknown-field",
          severity,
        );
      } else if (spec !== true) {
        if (isListSpec(spec)) {
          const arr = v[key];
          const item = spec[0];
          if (Array.isArray(arr))
            arr.forEach((_, i) => this.unknownFields([...path, key, i], item, severity));
        } else this.unknownFields([...path, key], spec, severity);
      }
    }
  }
}

export interface KnownFields {
  readonly [field: string]: true | KnownFields | readonly [KnownFields];
}

function isListSpec(s: KnownFields | readonly [KnownFields]): s is readonly [KnownFields] {
  return Array.isArray(s);
}
