/**
 * A plain-data object (field positions, a source position) that is computed on first use.
 * The loader attaches one to every object, but positions cost a second parse of the document,
 * and they are read only when there is something to report.
 *
 * It is a Proxy over an instance of a private class, so immer neither freezes nor drafts it
 * (a class instance is not draftable), and spreading or freezing a record that holds it does
 * not compute it. Every other read (a key, `in`, `Object.keys`, JSON) computes the value once
 * and answers from it. The one key it does not serve is `constructor` (immer's draftability
 * probe); no Kubernetes field has that name.
 */

class Pending {
  #value: object | undefined;
  #compute: (() => object) | undefined;
  constructor(compute: () => object) {
    this.#compute = compute;
  }
  get(): Record<string | symbol, unknown> {
    if (this.#value === undefined) {
      this.#value = this.#compute!();
      this.#compute = undefined;
    }
    return this.#value as Record<string | symbol, unknown>;
  }
}

const HANDLER: ProxyHandler<Pending> = {
  get: (t, key) => (typeof key === "string" && key !== "constructor" ? t.get()[key] : undefined),
  has: (t, key) => typeof key === "string" && Object.hasOwn(t.get(), key),
  ownKeys: (t) => Reflect.ownKeys(t.get()),
  getOwnPropertyDescriptor: (t, key) => {
    const d = Reflect.getOwnPropertyDescriptor(t.get(), key);
    return d === undefined ? undefined : { ...d, configurable: true };
  },
  set: () => false,
  defineProperty: () => false,
  deleteProperty: () => false,
};

export function deferred<T extends object>(compute: () => T): T {
  return new Proxy(new Pending(compute), HANDLER) as unknown as T;
}
