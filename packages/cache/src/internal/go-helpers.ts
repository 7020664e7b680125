// Go standard-library behaviours the port needs to match: strconv.ParseBool, os.Getenv, time.Duration.String.

/** Parses a boolean the way Go's `strconv.ParseBool` does; anything else is `undefined`. */
export function parseGoBool(value: string | undefined): boolean | undefined {
  switch (value) {
    case "1":
    case "t":
    case "T":
    case "TRUE":
    case "true":
    case "True":
      return true;
    case "0":
    case "f":
    case "F":
    case "FALSE":
    case "false":
    case "False":
      return false;
    default:
      return undefined;
  }
}

/** Reads an environment variable when running under Node (undefined elsewhere). */
export function envVar(name: string): string | undefined {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return proc?.env?.[name];
}

/** Go's `time.Duration.String()` for whole milliseconds ("1s", "1.5s", "2m0s", "250ms"). */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return "0s";
  if (ms < 1000) return `${ms}ms`;
  const totalSeconds = ms / 1000;
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds - hours * 3600) / 60);
  const seconds = totalSeconds - hours * 3600 - minutes * 60;
  const secText = `${Number.isInteger(seconds) ? seconds : Number(seconds.toFixed(3))}s`;
  if (hours > 0) return `${hours}h${minutes}m${secText}`;
  if (minutes > 0) return `${minutes}m${secText}`;
  return secText;
}
