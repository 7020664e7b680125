import { type Logger, newConsoleLogger, SignalLink, safeLog } from "@informer-ts/instrumentation";
import type { TypedInterface } from "./queue.js";
import type { TypedRateLimitingInterface } from "./rate-limiting-queue.js";

/** Processes one item taken from the queue. May be async; a throw or rejection is a failure of that item. */
export type ProcessItemFunc<T> = (item: T, signal: AbortSignal) => unknown;

/** Options of {@link runWorkers}. */
export interface RunWorkersOptions<T> {
  /** Concurrent workers (`threadiness`). Default 1; must be a positive integer. */
  readonly workers?: number;
  /**
   * On a rate-limiting queue, a failed item is re-added with `addRateLimited` until it has been requeued this many
   * times, then dropped with `forget`. Default `Infinity` (sample-controller retries forever). Ignored for other
   * queues: there a failed item is dropped.
   */
  readonly maxRetries?: number;
  /** Told about every failure, and whether the item was requeued. Default: a `warn` line on `logger`. */
  readonly onError?: (error: unknown, item: T, requeued: boolean) => void;
  /** Where failures go without `onError`, and where a throwing `onError` is reported. Default: the console. */
  readonly logger?: Logger;
}

function isRateLimiting<T>(q: TypedInterface<T>): q is TypedRateLimitingInterface<T> {
  const r = q as Partial<TypedRateLimitingInterface<T>>;
  return (
    typeof r.addRateLimited === "function" && typeof r.forget === "function" && typeof r.numRequeues === "function"
  );
}

const defaultLogger = newConsoleLogger("workqueue");

/**
 * Runs `workers` workers over `queue` until `signal` aborts (the worker loop of client-go's sample-controller:
 * `wait.UntilWithContext(ctx, runWorker)` per worker plus `defer queue.ShutDown()`), and resolves once every
 * worker has returned. This is the workqueue's `run(signal)` lifecycle; wrap it with `runAsObservable` from
 * `@informer-ts/instrumentation` for the Observable form.
 *
 * Each worker loops: `get()` an item, `await process(item, signal)`, then `forget(item)` on success (rate-limiting
 * queues) or, on failure, `addRateLimited(item)` while `numRequeues(item) < maxRetries` (else `forget`), and
 * always `done(item)`. A failure never stops a worker and never becomes an unhandled rejection.
 *
 * When `signal` aborts, the queue is shut down: as in client-go, items already queued are still handed out and
 * processed (their `process` sees the aborted signal and can return early), then the workers stop. A queue shut
 * down by someone else ends the workers too. One listener is added to `signal` and removed when the run ends.
 *
 * Differences from client-go: client-go has no such function (every controller writes this loop); processing
 * may be async; failures are data (`onError`) rather than `utilruntime.HandleError` log lines.
 */
export async function runWorkers<T>(
  signal: AbortSignal,
  queue: TypedInterface<T>,
  process: ProcessItemFunc<T>,
  options: RunWorkersOptions<T> = {},
): Promise<void> {
  const workers = options.workers ?? 1;
  if (!Number.isInteger(workers) || workers < 1) {
    throw new RangeError(`workers must be a positive integer, got ${String(options.workers)}`);
  }
  if (typeof process !== "function") throw new TypeError(`process is not a function: ${String(process)}`);
  const maxRetries = options.maxRetries ?? Number.POSITIVE_INFINITY;
  if (!(maxRetries >= 0)) throw new RangeError(`maxRetries must be ≥ 0, got ${String(options.maxRetries)}`);
  const logger = options.logger ?? defaultLogger;
  const rateLimiting = isRateLimiting(queue) ? queue : undefined;
  const link = new SignalLink(signal);
  const onAbort = () => queue.shutDown();
  if (link.signal.aborted) onAbort();
  else link.signal.addEventListener("abort", onAbort, { once: true });

  const failed = (error: unknown, item: T): void => {
    let requeued = false;
    if (rateLimiting !== undefined) {
      if (rateLimiting.numRequeues(item) < maxRetries) {
        rateLimiting.addRateLimited(item);
        requeued = true;
      } else {
        rateLimiting.forget(item);
      }
    }
    if (options.onError !== undefined) {
      try {
        options.onError(error, item, requeued);
        return;
      } catch (callbackError) {
        safeLog(logger, "error", "runWorkers: onError threw", { err: callbackError });
      }
    }
    safeLog(logger, "warn", requeued ? "error processing item, requeued" : "error processing item, dropped", {
      item: typeof item === "string" ? item : String(item),
      err: error,
    });
  };

  const worker = async (): Promise<void> => {
    for (;;) {
      const [item, shutdown] = await queue.get();
      if (shutdown) return;
      try {
        await process(item, link.signal);
        rateLimiting?.forget(item);
      } catch (error) {
        failed(error, item);
      } finally {
        queue.done(item);
      }
    }
  };

  try {
    await Promise.all(Array.from({ length: workers }, worker));
  } finally {
    link.signal.removeEventListener("abort", onAbort);
    link.release();
  }
}
