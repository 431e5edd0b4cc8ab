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
 *
 * The loader makes two per object (its field positions and its own position), so what waits is
 * kept small: `deferredCall` holds a shared function and its two arguments rather than a
 * closure, whose context would keep every variable of the scope that made it (on the
 * 10,000-Service benchmark, closures and their contexts were ~7 MB of the loaded heap).
 */

type Compute = (a: unknown, b: unknown) => object;

class Pending {
  #value: object | undefined;
  #compute: Compute | undefined;
  #a: unknown;
  #b: unknown;
  constructor(compute: Compute, a: unknown, b: unknown) {
    this.#compute = compute;
    this.#a = a;
    this.#b = b;
  }
  get(): Record<string | symbol, unknown> {
    if (this.#value === undefined) {
      this.#value = this.#compute!(this.#a, this.#b);
      this.#compute = undefined;
      this.#a = undefined;
      this.#b = undefined;
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

/** `compute(a, b)`, computed on first use. */
export function deferredCall<T extends object, A, B>(compute: (a: A, b: B) => T, a: A, b: B): T {
  return new Proxy(new Pending(compute as Compute, a, b), HANDLER) as unknown as T;
}

const callThunk = (compute: () => object): object => compute();

/** `compute()`, computed on first use. */
export function deferred<T extends object>(compute: () => T): T {
  return deferredCall(callThunk, compute, undefined) as T;
}
