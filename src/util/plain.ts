/** Narrowing helpers for plain data decoded from YAML/JSON. */

export type PlainRecord = Record<string, unknown>;

export function isRecord(v: unknown): v is PlainRecord {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function asRecord(v: unknown): PlainRecord | undefined {
  return isRecord(v) ? v : undefined;
}

export function asArray(v: unknown): unknown[] | undefined {
  return Array.isArray(v) ? v : undefined;
}
