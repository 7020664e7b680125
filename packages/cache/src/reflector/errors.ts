import {
  anyErrorInChain,
  isConnectionRefused,
  isExpired,
  isNetworkTimeout,
  isProbableEOF,
  isResourceVersionTooLarge,
  isTooManyRequests,
  newInternalError,
  type StatusError,
  statusOf,
} from "@informer-ts/apimachinery";

/**
 * A watch whose stream closed in under one second without delivering a single counted event
 * (`cache.VeryShortWatchError`). The reflector treats it as a failure: back off, then relist.
 */
export class VeryShortWatchError extends Error {
  override readonly name = "VeryShortWatchError";
  constructor(readonly reflectorName: string) {
    super(
      `very short watch: ${reflectorName}: Unexpected watch close - watch lasted less than a second and no items received`,
    );
  }
}

/**
 * The watch-list did not deliver its `k8s.io/initial-events-end` bookmark within
 * `ReflectorOptions.initialEventsEndTimeout` (not in client-go, which waits forever: kubernetes#140890). The
 * reflector falls back to LIST.
 */
export class InitialEventsEndTimeoutError extends Error {
  override readonly name = "InitialEventsEndTimeoutError";
  constructor(
    readonly reflectorName: string,
    readonly waitedMs: number,
  ) {
    super(
      `${reflectorName}: no initial-events-end bookmark after ${waitedMs} ms of watch-list; falling back to LIST ` +
        "(the server or a proxy probably ignores sendInitialEvents)",
    );
  }
}

/** `isExpiredError`: HTTP 410 with reason `Expired` or `Gone`. */
export function isExpiredError(err: unknown): boolean {
  return isExpired(err);
}

/** `isTooLargeResourceVersionError`, including the legacy message match. */
export function isTooLargeResourceVersionError(err: unknown): boolean {
  return isResourceVersionTooLarge(err);
}

/**
 * How client-go's `StreamWatcher` tells a stream that simply ended from a broken one: `net.IsProbableEOF` or
 * `net.IsTimeout`, plus an abort of the request (the watch was stopped: upstream's `done` channel is closed then and
 * nothing is reported).
 */
export function isWatchStreamEnd(err: unknown): boolean {
  return (
    isProbableEOF(err) ||
    isNetworkTimeout(err) ||
    anyErrorInChain(err, (e) => {
      if (typeof e !== "object" || e === null) return false;
      const x = e as { name?: unknown; code?: unknown };
      return x.name === "AbortError" || x.code === "UND_ERR_ABORTED" || x.code === "ABORT_ERR";
    })
  );
}

/**
 * `isWatchErrorRetriable`: connection refused or 429. The reflector backs off and re-watches from the
 * same resource version, without relisting.
 */
export function isWatchErrorRetriable(err: unknown): boolean {
  return isConnectionRefused(err) || isTooManyRequests(err);
}

/**
 * A stream that ended in the middle of a line, matched structurally (`cache` cannot import `client`):
 * `@informer-ts/client`'s `WatchDecodeError` of kind `truncated`. client-go's decoder sees `io.ErrUnexpectedEOF`
 * there and ends the watch normally. (An in-process source reports the same with a premature-close error code,
 * which {@link isWatchStreamEnd} already covers.)
 */
export function isTruncatedWatchStream(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const e = err as { name?: unknown; kind?: unknown };
  return e.name === "WatchDecodeError" && e.kind === "truncated";
}

/**
 * What a thrown watch iteration means, mirroring client-go's `StreamWatcher`: a `StatusError` is a watch error as
 * is; a truncated last line, a probable EOF, a reset or a timeout ends the stream normally (`undefined`); anything
 * else (e.g. an undecodable line) becomes a 500 `InternalError` "unable to decode an event from the watch stream".
 */
export function watchIterationError(err: unknown): StatusError | Error | undefined {
  if (statusOf(err) !== undefined) return err as StatusError;
  if (isTruncatedWatchStream(err) || isWatchStreamEnd(err)) return undefined;
  const message = err instanceof Error ? err.message : String(err);
  const wrapped = newInternalError(`unable to decode an event from the watch stream: ${message}`);
  wrapped.cause = err;
  return wrapped;
}
