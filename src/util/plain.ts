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

/**
 * Freezes plain data (objects whose prototype is Object.prototype or null, and arrays) and
 * everything in it, as immer's `freeze(x, true)` does for such data; anything else (a class
 * instance, a Map) is left as it is. A plain walk: on a 10,000-Service load it takes about a
 * quarter of the time immer's generic walk does.
 */
export function deepFreeze<T>(v: T): T {
  freezeValue(v);
  return v;
}

function freezeValue(v: unknown): void {
  if (typeof v !== "object" || v === null || Object.isFrozen(v)) return;
  if (Array.isArray(v)) {
    Object.freeze(v);
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      // Most leaves are strings and numbers: no call for them (a loaded cluster has ~10^6).
      if (typeof item === "object" && item !== null) freezeValue(item);
    }
    return;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return;
  Object.freeze(v);
  for (const k in v) {
    const value = (v as PlainRecord)[k];
    if (typeof value === "object" && value !== null) freezeValue(value);
  }
}
