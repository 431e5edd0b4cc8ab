// Placeholder until the target extensions land: the union of every target's type.
export type Target = { readonly kind: string };
