/**
 * The seed a runner uses: `FC_SEED` from the environment when set (an integer, or `random` for a fresh one), else
 * `fallback`. A malformed `FC_SEED` is an error naming the value.
 */
export function seedFromEnv(fallback: number): number {
  const raw = typeof process !== "undefined" ? process.env.FC_SEED : undefined;
  if (raw === undefined || raw.trim() === "") return fallback;
  if (raw === "random") return Math.floor(Math.random() * 0x7fffffff);
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new Error(`FC_SEED must be an integer or "random", got ${JSON.stringify(raw)}`);
  return n;
}
