/** Exhaustiveness check for discriminated unions: a `switch` over `kind` ends here. */
export function assertNever(x: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(x)}`);
}
