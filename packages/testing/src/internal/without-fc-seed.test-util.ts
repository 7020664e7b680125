// Tests that search for a planted bug pin their own seed: `pnpm test:explore` sets FC_SEED for every other property,
// which would otherwise override it (and the search might not find the bug within its runs).

/** Runs `fn` with `FC_SEED` unset, restoring it afterwards. */
export async function withoutFcSeed<T>(fn: () => Promise<T>): Promise<T> {
  const before = process.env.FC_SEED;
  delete process.env.FC_SEED;
  try {
    return await fn();
  } finally {
    if (before !== undefined) process.env.FC_SEED = before;
  }
}
