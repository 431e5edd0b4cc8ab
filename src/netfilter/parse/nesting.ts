/**
 * The kernel's limit on nested chains. nf_tables validates the paths from each base chain and
 * refuses a rule that makes one of them jump (or go to) through more than 15 user chains: its
 * jump stack holds 16 levels (NFT_JUMP_STACK_SIZE), and iptables-restore reports the rule with
 * "RULE_APPEND failed (Too many links)". A loop that a base chain reaches never ends, so it is
 * refused the same way; a loop that no base chain reaches loads. Checked with iptables-nft 1.8.9
 * on the real kernel: 15 nested jumps load and 16 do not, with -j and -g, in filter and nat,
 * for IPv4 and IPv6 (test/netfilter/kernel-nesting.test.ts).
 */

/** The most jumps a path from a base chain may take. */
export const MAX_JUMPS = 15;

const ON_STACK = -1;

/**
 * Whether a path from one of `bases` takes more than MAX_JUMPS jumps (or loops), following
 * `jumps(chain, visit)`, which calls `visit` with each chain a rule of `chain` jumps to. The
 * walk never goes deeper than MAX_JUMPS + 1 levels, whatever the input.
 */
export function nestsTooDeep<C>(
  bases: readonly C[],
  jumps: (chain: C, visit: (to: C) => void) => void,
): boolean {
  // The most jumps a path takes from each chain seen (ON_STACK while it is being walked).
  const height = new Map<C, number>();
  let deep = false;
  let level = 0;
  const walk = (chain: C): number => {
    const known = height.get(chain);
    if (known !== undefined) {
      if (known === ON_STACK || level + known > MAX_JUMPS) deep = true;
      return known;
    }
    if (level > MAX_JUMPS) {
      deep = true;
      return 0;
    }
    height.set(chain, ON_STACK);
    let h = 0;
    jumps(chain, (to) => {
      if (deep) return;
      level++;
      const below = walk(to);
      level--;
      if (below + 1 > h) h = below + 1;
    });
    height.set(chain, h);
    return h;
  };
  for (const b of bases) {
    walk(b);
    if (deep) return true;
  }
  return false;
}
