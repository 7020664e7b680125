// Go standard-library behaviours the port needs to match: strconv.ParseBool, os.Getenv (time.Duration.String is
// apimachinery's formatGoDuration).

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
