import type { LogFields, Logger, LogLevel } from "./logger.js";

/** Where a {@link newRuntimeLogger} writes: `process.stderr` by default, or anything with `write` (a test's sink). */
export interface LogSink {
  write(line: string): unknown;
  /** A terminal gets readable lines, anything else JSON lines (`format: "auto"`). */
  readonly isTTY?: boolean;
}

/** Options of {@link newRuntimeLogger} (controller-runtime's `zap.Options`). */
export interface RuntimeLoggerOptions {
  /**
   * `"json"`: one JSON object a line (zap's production encoder); `"text"`: `<time> <LEVEL> <logger> <msg> {fields}`
   * (zap's console encoder); `"auto"` (default): text when the sink is a terminal, JSON otherwise.
   */
  readonly format?: "json" | "text" | "auto";
  /** The least severe level written. Default `info` (`debug` in development mode). */
  readonly level?: LogLevel;
  /** `--zap-devel`: text lines and `debug` level unless `format`/`level` say otherwise, and error stacks. */
  readonly development?: boolean;
  /** Default `process.stderr`. */
  readonly sink?: LogSink;
  /** The `logger` field of every line (zap's logger name), e.g. `controller-runtime`. Default none. */
  readonly name?: string;
  /** Wall-clock time of a line in ms since the epoch (the `ts` field). Default `Date.now`. */
  readonly now?: () => number;
}

const levelRank: Readonly<Record<LogLevel, number>> = { debug: 0, info: 1, warn: 2, error: 3 };
const levels = new Set<string>(Object.keys(levelRank));

/**
 * The runtime's default logger: every line at or above `level` written at once as one line to the sink — JSON lines
 * (`{"level","ts","logger","msg",…fields}`) in production, readable lines in a terminal or in development mode.
 * `Error` fields become their message (and, in development mode, an `<key>Stack` field). It never throws: a field that
 * cannot be serialised is written as its `String()`, a sink that throws loses the line. Bad options throw a
 * `RangeError` naming them.
 *
 * Differences from controller-runtime: no verbosity integers (levels are `debug|info|warn|error`), no sampling.
 */
export function newRuntimeLogger(options: RuntimeLoggerOptions = {}): Logger {
  const dev = options.development === true;
  const level = options.level ?? (dev ? "debug" : "info");
  if (!levels.has(level)) {
    throw new RangeError(`runtime logger: level must be one of debug, info, warn, error, got ${String(level)}`);
  }
  const format = options.format ?? "auto";
  if (format !== "json" && format !== "text" && format !== "auto") {
    throw new RangeError(`runtime logger: format must be json, text or auto, got ${String(format)}`);
  }
  const sink = options.sink ?? process.stderr;
  const text = format === "text" || (format === "auto" && (dev || sink.isTTY === true));
  const min = levelRank[level];
  const now = options.now ?? Date.now;
  const name = options.name;
  return {
    log(lvl, message, fields) {
      if ((levelRank[lvl] ?? 3) < min) return;
      const line = text
        ? textLine(now(), lvl, name, message, fields, dev)
        : jsonLine(now(), lvl, name, message, fields, dev);
      try {
        sink.write(`${line}\n`);
      } catch {
        // a broken sink loses the line; the component goes on
      }
    },
  };
}

/** Parses a level name as flags spell it (`--zap-log-level=debug`, also `warning`); `undefined` when not one. */
export function parseLogLevel(value: string): LogLevel | undefined {
  const v = value.trim().toLowerCase();
  if (v === "warning") return "warn";
  return levels.has(v) ? (v as LogLevel) : undefined;
}

/**
 * A logger that adds `fields` to every line of `logger` (logr's `WithValues`); the line's own fields win. Used for
 * the per-reconcile logger carrying the controller's and the request's keys.
 */
export function withFields(logger: Logger, fields: LogFields): Logger {
  return {
    log(level, message, more) {
      logger.log(level, message, more === undefined ? fields : { ...fields, ...more });
    },
  };
}

function plain(fields: LogFields | undefined, dev: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (fields === undefined) return out;
  for (const [k, v] of Object.entries(fields)) {
    if (v instanceof Error) {
      out[k] = v.message;
      if (dev && v.stack !== undefined) out[`${k}Stack`] = v.stack;
    } else out[k] = v;
  }
  return out;
}

const bigints = (_k: string, x: unknown) => (typeof x === "bigint" ? x.toString() : x);

/** JSON of a record of fields; a field that cannot be serialised (a cycle…) is written as its `String()`. */
function stringify(record: Record<string, unknown>): string {
  try {
    return JSON.stringify(record, bigints);
  } catch {
    const safe: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(record)) {
      try {
        JSON.stringify(v, bigints);
        safe[k] = v;
      } catch {
        safe[k] = String(v);
      }
    }
    return JSON.stringify(safe, bigints);
  }
}

function jsonLine(
  ts: number,
  level: LogLevel,
  name: string | undefined,
  msg: string,
  fields: LogFields | undefined,
  dev: boolean,
): string {
  const record: Record<string, unknown> = { level, ts: ts / 1000 };
  if (name !== undefined) record.logger = name;
  record.msg = msg;
  for (const [k, v] of Object.entries(plain(fields, dev))) record[k in record ? `fields.${k}` : k] = v;
  return stringify(record);
}

function textLine(
  ts: number,
  level: LogLevel,
  name: string | undefined,
  msg: string,
  fields: LogFields | undefined,
  dev: boolean,
): string {
  const rest = plain(fields, dev);
  const parts = [new Date(ts).toISOString(), level.toUpperCase()];
  if (name !== undefined) parts.push(name);
  parts.push(msg);
  if (Object.keys(rest).length > 0) parts.push(stringify(rest));
  return parts.join("\t");
}

let processLogger: Logger | undefined;

/**
 * The process's default runtime logger, created on first use: {@link newRuntimeLogger} with its defaults (info and
 * above to stderr; JSON lines unless stderr is a terminal). What the controller runtime logs through when no
 * `logger` is given, so errors are never silent by accident.
 */
export function defaultRuntimeLogger(): Logger {
  processLogger ??= newRuntimeLogger();
  return processLogger;
}
