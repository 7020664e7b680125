import { type Logger, newConsoleLogger } from "@informer-ts/instrumentation";

/**
 * The logging contract moved to `@informer-ts/instrumentation` ({@link Logger}); these re-exports keep the
 * reflector's imports and the package's public names working.
 */
export { type LogLevel, safeLog, silentLogger } from "@informer-ts/instrumentation";

/** Where a reflector writes its log lines: the repo-wide {@link Logger} (client-go uses klog). */
export type ReflectorLogger = Logger;

/**
 * The reflector's default logger: `warn` and `error` lines go to `console.warn` / `console.error` as
 * `W reflector: …` (what klog shows at its default verbosity, e.g. `Failed to watch` for a 403); `debug` and
 * `info` are dropped.
 */
export const consoleLogger: Logger = newConsoleLogger("reflector");
