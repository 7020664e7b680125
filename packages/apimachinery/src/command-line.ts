// Command-line parsing for the project's CLIs (`informer`, `pnpm apiserver`, `pnpm bench`): Node's `parseArgs`, with
// errors a user can act on (what was wrong, and the flag they probably meant).
import { type ParseArgsConfig, parseArgs } from "node:util";
import { didYouMean } from "./suggestions.js";

/**
 * A command line that cannot be parsed: unknown option, missing value, unexpected argument, bad value. CLIs print
 * its message (with their usage) and exit 2, the conventional "usage error" status.
 */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/**
 * Parses a command line with Node's `parseArgs` (strict unless `config.strict` is false) and returns its result,
 * typed from `config` exactly as `parseArgs` types it. A command line it rejects throws a {@link UsageError} whose
 * message names the offending argument and, for an unknown option, the closest known one:
 * `unknown option --kubeconfig; did you mean --kubeconfig-out?`.
 *
 * Differences from pflag (kubectl's parser): pflag says `unknown flag: --kubeconfig` and suggests nothing; option
 * syntax is Node's (`--name value`, `--name=value`, `-n value`, no `-nvalue` for long names).
 */
export function parseCommandLine<const T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    throw usageErrorOf(err, config);
  }
}

/** Option names as typed on a command line (`--name`, `-n`) of a `parseArgs` options config. */
export function optionSpellings(options: ParseArgsConfig["options"]): string[] {
  const out: string[] = [];
  for (const [name, o] of Object.entries(options ?? {})) {
    out.push(`--${name}`);
    if (o.short !== undefined) out.push(`-${o.short}`);
  }
  return out;
}

function usageErrorOf(err: unknown, config: ParseArgsConfig): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !code.startsWith("ERR_PARSE_ARGS_")) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const raw = unknownOption(config) ?? /'(-[^']*)'/.exec(message)?.[1] ?? "?";
    return new UsageError(`unknown option ${raw}${didYouMean(raw, optionSpellings(config.options))}`);
  }
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") {
    const arg = /'([^']*)'/.exec(message)?.[1];
    return new UsageError(arg === undefined ? message : `unexpected argument ${JSON.stringify(arg)}`);
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    // Node: "Option '--port <value>' argument missing" or "Option '-h, --help' does not take an argument".
    const m = /^Option '(?:-\w, )?(--[^' ]+)(?: <value>)?' (argument missing|does not take an argument)/.exec(message);
    const ambiguous = /^Option '(--[^']+)' argument is ambiguous/.exec(message);
    if (ambiguous !== null) {
      const o = ambiguous[1];
      return new UsageError(`option ${o} needs a value (one that starts with "-" is written ${o}=<value>)`);
    }
    if (m !== null) {
      return new UsageError(
        m[2] === "argument missing" ? `option ${m[1]} needs a value` : `option ${m[1]} takes no value`,
      );
    }
  }
  return new UsageError(message);
}

/** The first option on the command line that `config` does not declare, as typed (`--kubeconfig`, `-x`). */
function unknownOption(config: ParseArgsConfig): string | undefined {
  const known = new Set(Object.keys(config.options ?? {}));
  try {
    const { tokens } = parseArgs({ ...config, strict: false, tokens: true, allowPositionals: true });
    for (const t of tokens ?? []) if (t.kind === "option" && !known.has(t.name)) return t.rawName;
  } catch {
    // Not expected with strict off; the caller falls back to the name in Node's message.
  }
  return undefined;
}
