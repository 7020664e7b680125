/** Severity of a reflector log line. `debug` stands for klog's V(2)–V(5), `info` for V(0)–V(1). */
export type LogLevel = "debug" | "info" | "warn" | "error";

/**
 * Where a reflector writes its log lines (client-go uses klog). `fields` are structured key/values such as
 * `{ reflector, type, err }`. Implementations must not throw; a throwing logger is ignored.
 */
export interface ReflectorLogger {
  log(level: LogLevel, message: string, fields?: Readonly<Record<string, unknown>>): void;
}

function render(fields: Readonly<Record<string, unknown>> | undefined): string {
  if (fields === undefined) return "";
  const parts: string[] = [];
  for (const [k, v] of Object.entries(fields)) {
    const value = v instanceof Error ? v.message : typeof v === "string" ? v : safeJson(v);
    parts.push(`${k}=${JSON.stringify(value)}`);
  }
  return parts.length === 0 ? "" : ` ${parts.join(" ")}`;
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/**
 * The default logger: `warn` and `error` lines go to `console.warn` / `console.error` (what klog shows at its
 * default verbosity, e.g. `Failed to watch` for a 403); `debug` and `info` are dropped.
 */
export const consoleLogger: ReflectorLogger = {
  log(level, message, fields) {
    if (level === "error") console.error(`E reflector: ${message}${render(fields)}`);
    else if (level === "warn") console.warn(`W reflector: ${message}${render(fields)}`);
  },
};

/** A logger that drops everything (status, events and the watch error handler still see every error). */
export const silentLogger: ReflectorLogger = { log() {} };

/** Calls `logger.log`, swallowing anything it throws. */
export function safeLog(
  logger: ReflectorLogger,
  level: LogLevel,
  message: string,
  fields?: Readonly<Record<string, unknown>>,
): void {
  try {
    logger.log(level, message, fields);
  } catch {
    // A broken logger must not take the reflector down.
  }
}
