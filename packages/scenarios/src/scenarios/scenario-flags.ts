// Flag parsing shared by the studies' commands: numbers with bounds, comma-separated lists of known names.
import { didYouMean, UsageError } from "@informer-ts/apimachinery";

/** The parsed flags of one study's command line, as `parseArgs` returns them. */
export type ScenarioFlagValues = Readonly<Record<string, string | boolean | undefined>>;

/**
 * The number given to `--<name>`: finite, ≥ `min`, and an integer when `integer` is set; otherwise a
 * {@link UsageError} naming the flag and the value.
 */
export function numberFlag(values: ScenarioFlagValues, name: string, min: number, integer = false): number {
  const raw = values[name];
  const text = typeof raw === "string" ? raw : undefined;
  const v = Number(text);
  if (text === undefined || text.trim() === "" || !Number.isFinite(v) || v < min || (integer && !Number.isInteger(v)))
    throw new UsageError(`--${name} must be ${integer ? "an integer" : "a number"} ≥ ${min}, got "${text ?? ""}"`);
  return v;
}

/**
 * The comma-separated list given to `--<name>`, each entry one of `known`; an unknown entry is a {@link UsageError}
 * naming it with a suggestion.
 */
export function listFlag<T extends string>(values: ScenarioFlagValues, name: string, known: readonly T[]): T[] {
  const raw = values[name];
  const entries = (typeof raw === "string" ? raw : "").split(",").map((v) => v.trim());
  for (const v of entries)
    if (!known.includes(v as T)) throw new UsageError(`--${name}: unknown value "${v}"${didYouMean(v, known)}`);
  return entries as T[];
}
