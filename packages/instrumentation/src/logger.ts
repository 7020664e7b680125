/** Severity of a log line. `debug` stands for klog's V(2)–V(5), `info` for V(0)–V(1). */
export type LogLevel = "debug" | "info" | "warn" | "error";

/** Structured key/values of a log line, such as `{ reflector, type, err }`. */
export type LogFields = Readonly<Record<string, unknown>>;

/**
 * The one logging contract of informer-ts (client-go logs through klog): every component that logs takes a
 * `Logger` option. A line has a level, a message and structured fields. Implementations must not throw; every
 * component calls its logger through {@link safeLog}, so a throwing logger is ignored.
 */
export interface Logger {
  log(level: LogLevel, message: string, fields?: LogFields): void;
}

function render(fields: LogFields | undefined): string {
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

/** Renders one line as `<L> <component>: <message> k="v" …` (`L` is the level's first letter, as klog prints). */
export function formatLogLine(component: string, level: LogLevel, message: string, fields?: LogFields): string {
  return `${level[0]?.toUpperCase() ?? "?"} ${component}: ${message}${render(fields)}`;
}

/**
 * A logger for `component` that writes `warn` and `error` lines to `console.warn` / `console.error` (what klog
 * shows at its default verbosity) and drops `debug` and `info`, unless `minLevel` says otherwise.
 */
export function newConsoleLogger(component: string, minLevel: LogLevel = "warn"): Logger {
  const min = levelRank[minLevel];
  return {
    log(level, message, fields) {
      if (levelRank[level] < min) return;
      const line = formatLogLine(component, level, message, fields);
      if (level === "error") console.error(line);
      else if (level === "warn") console.warn(line);
      else console.log(line);
    },
  };
}

/**
 * A logger writing every line at or above `minLevel` (default `debug`: all of them) as text to `write`: a file
 * stream's `write`, an array's `push`, a test's collector. Adapts the `(line) => void` sinks used before.
 */
export function newLineLogger(component: string, write: (line: string) => void, minLevel: LogLevel = "debug"): Logger {
  const min = levelRank[minLevel];
  return {
    log(level, message, fields) {
      if (levelRank[level] >= min) write(formatLogLine(component, level, message, fields));
    },
  };
}

/**
 * A logger writing every line at or above `minLevel` (default `debug`) as one JSON object,
 * `{"level":…,"msg":…,<fields>}`, to `write` (klog's JSON format has the same shape). Errors among the fields
 * become their message. Used for machine-read logs such as the simulated apiserver's httplog.
 */
export function newJsonLineLogger(write: (line: string) => void, minLevel: LogLevel = "debug"): Logger {
  const min = levelRank[minLevel];
  return {
    log(level, message, fields) {
      if (levelRank[level] < min) return;
      const record: Record<string, unknown> = { level, msg: message };
      if (fields !== undefined) {
        for (const [k, v] of Object.entries(fields)) record[k] = v instanceof Error ? v.message : v;
      }
      write(safeJson(record));
    },
  };
}

const levelRank: Readonly<Record<LogLevel, number>> = { debug: 0, info: 1, warn: 2, error: 3 };

/** A logger that drops everything (status, events and metrics still carry every error). */
export const silentLogger: Logger = { log() {} };

/** Calls `logger.log`, swallowing anything it throws: a broken logger must not take a component down. */
export function safeLog(logger: Logger, level: LogLevel, message: string, fields?: LogFields): void {
  try {
    logger.log(level, message, fields);
  } catch {
    // ignored on purpose
  }
}
