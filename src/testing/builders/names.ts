/** `"ns/name"` (or `"name"`, namespace `default`) as builders take it, split into metadata. */
export interface NamespacedName {
  readonly namespace: string;
  readonly name: string;
}

export function splitName(ref: string): NamespacedName {
  const i = ref.indexOf("/");
  // An empty or malformed part is left for the API-server validation cluster() runs, which
  // reports it by field path like the loader does.
  return i === -1
    ? { namespace: "default", name: ref }
    : { namespace: ref.slice(0, i), name: ref.slice(i + 1) };
}

/** `T` with every property that may be `undefined` made optional instead. */
export type Defined<T> = {
  [K in keyof T as undefined extends T[K] ? never : K]: T[K];
} & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** Drops `undefined` values, so an option left out is absent (as if not written in YAML). */
export function defined<T extends object>(o: T): Defined<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Defined<T>;
}
