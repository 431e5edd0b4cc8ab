// Placeholder until the match extensions land: the union of every match module's type.
export type Match = { readonly module: string };
