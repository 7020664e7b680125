// Flag parsing shared by the studies' commands: numbers with bounds, comma-separated lists of known names.
import { accessSync, constants, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
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
    if (!known.includes(v as T))
      throw new UsageError(`--${name}: unknown value "${v}"${didYouMean(v, known)} (known: ${known.join(", ")})`);
  return entries as T[];
}

/**
 * The file given to `--<name>`, to be written after a run, checked before it starts so that a typo does not cost
 * the run: its directory must exist and be writable, and the path must not be a directory. `undefined` when the flag
 * was not given; otherwise a {@link UsageError} naming the flag and the path.
 */
export function outputFileFlag(values: ScenarioFlagValues, name: string): string | undefined {
  const raw = values[name];
  if (typeof raw !== "string") return undefined;
  if (raw.trim() === "") throw new UsageError(`--${name} needs a file name, got ""`);
  const dir = dirname(resolve(raw));
  const isDir = (path: string) => {
    try {
      return statSync(path).isDirectory();
    } catch {
      return undefined;
    }
  };
  if (isDir(raw) === true) throw new UsageError(`--${name}: ${raw} is a directory, not a file`);
  if (isDir(dir) !== true) throw new UsageError(`--${name}: cannot write ${raw}: no directory ${dir}`);
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    throw new UsageError(`--${name}: cannot write ${raw}: directory ${dir} is not writable`);
  }
  return raw;
}
