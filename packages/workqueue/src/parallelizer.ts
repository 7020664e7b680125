/** Processes one piece of work, synchronously or asynchronously (`workqueue.DoWorkPieceFunc`). */
export type DoWorkPieceFunc = (piece: number) => void | PromiseLike<void>;

/** Options of {@link parallelizeUntil}. */
export interface ParallelizeOptions {
  /**
   * Pieces handed to a worker at a time (`WithChunkSize`). Values below 1 mean 1. Use it when there are many
   * more pieces than workers and each piece is cheap.
   */
  readonly chunkSize?: number;
  /**
   * Called with each error thrown (or rejected) by the work function and the piece that failed. When given,
   * `parallelizeUntil` resolves normally; an error thrown by `onError` itself is collected as below.
   * Default: errors are collected and `parallelizeUntil` rejects with one `AggregateError` after every
   * worker has stopped.
   */
  readonly onError?: (error: unknown, piece: number) => void;
}

/**
 * Runs `doWorkPiece(0 … pieces−1)` on up to `workers` concurrent async workers until all pieces are done or
 * `signal` aborts (`workqueue.ParallelizeUntil`, M1). Resolves once every worker has stopped.
 *
 * Pieces are grouped into `ceil(pieces / chunkSize)` chunks; at most that many workers start. Each worker
 * takes the next chunk index and runs its pieces in order, awaiting each one; it checks `signal` before
 * **every** piece and stops once it is aborted (pieces already running are awaited, not cancelled).
 * `undefined` means no cancellation. `pieces === 0` returns at once; `workers < 1` processes nothing, as in
 * client-go.
 *
 * A failing piece ends the worker that ran it — the rest of its chunk is skipped and other workers continue
 * with the remaining chunks — which is what client-go's crash handler does when it recovers a panic. The
 * error goes to `onError`, or is collected and rethrown as an `AggregateError` at the end; it never becomes
 * an unhandled rejection.
 *
 * Differences from client-go: the work function may be async and the result is a promise; a failure is an
 * error value rather than a panic that (with client-go's defaults) crashes the process.
 */
export async function parallelizeUntil(
  signal: AbortSignal | undefined,
  workers: number,
  pieces: number,
  doWorkPiece: DoWorkPieceFunc,
  options: ParallelizeOptions = {},
): Promise<void> {
  if (!Number.isInteger(pieces) || pieces < 0) {
    throw new RangeError(`parallelizeUntil: pieces must be a non-negative integer, got ${pieces}`);
  }
  if (!Number.isInteger(workers)) {
    throw new RangeError(`parallelizeUntil: workers must be an integer, got ${workers}`);
  }
  if (pieces === 0) return;
  const requested = options.chunkSize ?? 1;
  const chunkSize = Number.isFinite(requested) && requested >= 1 ? Math.floor(requested) : 1;
  const chunks = Math.ceil(pieces / chunkSize);
  const workerCount = Math.min(workers, chunks);

  const errors: unknown[] = [];
  const report = (error: unknown, piece: number): void => {
    if (options.onError === undefined) {
      errors.push(error);
      return;
    }
    try {
      options.onError(error, piece);
    } catch (handlerError) {
      errors.push(handlerError);
    }
  };

  let nextChunk = 0;
  const work = async (): Promise<void> => {
    while (nextChunk < chunks) {
      const chunk = nextChunk++;
      const start = chunk * chunkSize;
      const end = Math.min(start + chunkSize, pieces);
      for (let p = start; p < end; p++) {
        if (signal?.aborted) return;
        try {
          const result = doWorkPiece(p);
          if (isPromiseLike(result)) await result;
        } catch (error) {
          report(error, p);
          return;
        }
      }
    }
  };

  const running: Promise<void>[] = [];
  for (let i = 0; i < workerCount; i++) running.push(work());
  await Promise.all(running);
  if (errors.length > 0) {
    throw new AggregateError(errors, `parallelizeUntil: ${errors.length} piece(s) failed`);
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<void> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}
