import type { KubeObject, Watch, WatchEvent } from "@informer-ts/apimachinery";
import { decodeWatchBatches, type WatchDecoderOptions } from "./watch-decoder.js";

/** A response body a {@link StreamWatcher} reads: chunks, and a way to abort it. */
export interface WatchBody extends AsyncIterable<Uint8Array | string> {
  /** Aborts the body (and its connection). Called at most once, when the watch stops early. */
  destroy(): void;
}

/** How a {@link StreamWatcher} ended, for accounting. */
export interface StreamWatcherResult {
  /** Events delivered to the consumer. */
  readonly events: number;
  /** `stop()` was called (or the signal aborted) before the server ended the stream. */
  readonly stopped: boolean;
  /** The error iteration threw, if any. */
  readonly error?: unknown;
}

/** Options of {@link StreamWatcher}. */
export interface StreamWatcherOptions extends WatchDecoderOptions {
  /** Aborting it stops the watch, like {@link StreamWatcher.stop}. */
  readonly signal?: AbortSignal;
  /** Called once when the watch is finished (ended, failed or stopped). Must not throw. */
  readonly onDone?: (result: StreamWatcherResult) => void;
}

/**
 * A {@link Watch} over a streaming response body (`watch.StreamWatcher`): iterating it decodes events with
 * {@link decodeWatchBatches}, one chunk per pull, so a consumer that stops reading stops reading the socket.
 * {@link StreamWatcher.nextBatch} hands over every event already decoded from the current chunk at once; `next()`
 * hands them out one at a time (the two share one buffer, so they may be mixed).
 *
 * - The server ending the stream ends iteration normally.
 * - A transport or decode error is thrown from iteration (then the body is released).
 * - `stop()` (or the signal) aborts the body: a pending `next()` resolves as done, and any error the abort
 *   causes is swallowed. Breaking out of `for await` also releases the body.
 * - Whenever it is stopped (before iterating, between events, or during a pending `next()`), the decoder and the
 *   body's iterator are released, the signal's abort listener is removed, and `onDone` is called exactly once.
 * - The watch can be iterated once; asking for a second iterator returns the same one.
 */
export class StreamWatcher<T = KubeObject> implements Watch<T> {
  private stopped = false;
  private started = false;
  /** A `next()` of the iterator is pending (its settlement closes the iteration if the watch was stopped). */
  private inFlight = false;
  /** Closes the started iteration and releases the decoder; set once iteration has started. */
  private closeIteration: (() => void) | undefined;
  private finished = false;
  private events = 0;
  private iterator:
    | (AsyncIterator<WatchEvent<T>> & { nextBatch(): Promise<IteratorResult<WatchEvent<T>[]>> })
    | undefined;
  private readonly onAbort = () => this.stop();

  constructor(
    private readonly body: WatchBody,
    private readonly options: StreamWatcherOptions = {},
  ) {
    const signal = options.signal;
    if (signal?.aborted) this.stop();
    else signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  /** Whether the watch has stopped or ended. */
  get done(): boolean {
    return this.stopped || this.finished;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (!this.finished) {
      try {
        this.body.destroy();
      } catch {
        // Destroying an already-failed body must not throw into the caller.
      }
    }
    if (!this.started) {
      // Never iterated: nothing will run the decoder's cleanup, so finish here.
      this.finish(undefined);
    } else if (!this.inFlight) {
      // Iterated, but no next() is pending (the consumer stopped between events, e.g. after an ERROR event or an
      // interrupt): no settlement will come to close the iterator, so close it and release the decoder now.
      // A pending next() instead closes and releases when it settles (the destroyed body makes it settle).
      this.closeIteration?.();
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    this.iterator ??= this.iterate();
    return this.iterator;
  }

  /**
   * The events decoded and not yet handed out, or (when there are none) those of the next chunk: never an empty
   * batch. Ends, fails and stops exactly like `next()`, which it shares its state with.
   */
  nextBatch(): Promise<IteratorResult<WatchEvent<T>[]>> {
    this.iterator ??= this.iterate();
    return this.iterator.nextBatch();
  }

  // A hand-written iterator over the batch decoder (one `.then` per chunk, none per buffered event) rather than an
  // async generator wrapping it: a second generator layer costs several promise turns per event on the hot path of
  // every watch.
  private iterate(): AsyncIterator<WatchEvent<T>> & { nextBatch(): Promise<IteratorResult<WatchEvent<T>[]>> } {
    const done: IteratorReturnResult<undefined> = { value: undefined, done: true };
    let inner: AsyncGenerator<WatchEvent<T>[], void, undefined> | undefined;
    let closed = false;
    /** Decoded events not yet handed out: `buffer[head…]`. */
    let buffer: WatchEvent<T>[] = [];
    let head = 0;
    const release = (): void => {
      // Lets a decoder suspended at a batch run its cleanup (it releases the body's iterator).
      if (inner !== undefined) void inner.return(undefined).catch(() => undefined);
    };
    const close = (error: unknown): void => {
      if (closed) return;
      closed = true;
      buffer = [];
      head = 0;
      if (!this.finished && !this.stopped) {
        // Iteration failed, ended, or the consumer broke out of the loop: release the connection.
        try {
          this.body.destroy();
        } catch {
          // ignore
        }
      }
      this.finish(error);
    };
    const closeAndRelease = (): void => {
      if (closed) return;
      close(undefined);
      release();
    };
    /** A settled pull of the decoder: undefined when it delivered a batch (now in `buffer`), else the end. */
    const settled = (r: IteratorResult<WatchEvent<T>[], void>): IteratorReturnResult<undefined> | undefined => {
      this.inFlight = false;
      if (r.done === true) {
        close(undefined);
        return done;
      }
      if (this.stopped || closed) {
        // Stopped while this pull was pending, and the batch won the race with the abort: the decoder is
        // suspended at that batch, holding the body's iterator, so release it.
        closeAndRelease();
        return done;
      }
      buffer = r.value;
      head = 0;
      return undefined;
    };
    const one = (): IteratorResult<WatchEvent<T>> => {
      this.events++;
      return { value: buffer[head++]!, done: false };
    };
    const rest = (): IteratorResult<WatchEvent<T>[]> => {
      const value = head === 0 ? buffer : buffer.slice(head);
      this.events += value.length;
      buffer = [];
      head = 0;
      return { value, done: false };
    };
    const onEvent = (r: IteratorResult<WatchEvent<T>[], void>): IteratorResult<WatchEvent<T>> => settled(r) ?? one();
    const onBatch = (r: IteratorResult<WatchEvent<T>[], void>): IteratorResult<WatchEvent<T>[]> => settled(r) ?? rest();
    const onError = (err: unknown): IteratorReturnResult<undefined> => {
      this.inFlight = false;
      // An error caused by stop() or return() destroying the body is not the server's.
      if (this.stopped || closed) {
        close(undefined);
        return done;
      }
      close(err);
      throw err;
    };
    /** Starts a pull of the decoder, or returns the end when the watch is closed or stopped. */
    const pull = (): Promise<IteratorResult<WatchEvent<T>[], void>> | undefined => {
      if (closed || this.stopped) {
        closeAndRelease();
        return undefined;
      }
      this.started = true;
      this.closeIteration = closeAndRelease;
      inner ??= decodeWatchBatches<T>(this.body, this.options);
      this.inFlight = true;
      // An async generator's next() never throws synchronously: failures arrive as a rejection.
      return inner.next();
    };
    return {
      next: (): Promise<IteratorResult<WatchEvent<T>>> => {
        if (head < buffer.length && !this.stopped) return Promise.resolve(one());
        const p = pull();
        return p === undefined ? Promise.resolve(done) : p.then(onEvent, onError);
      },
      nextBatch: (): Promise<IteratorResult<WatchEvent<T>[]>> => {
        if (head < buffer.length && !this.stopped) return Promise.resolve(rest());
        const p = pull();
        return p === undefined ? Promise.resolve(done) : p.then(onBatch, onError);
      },
      return: (): Promise<IteratorResult<WatchEvent<T>>> => {
        closeAndRelease();
        return Promise.resolve(done);
      },
    };
  }

  private finish(error: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.options.signal?.removeEventListener("abort", this.onAbort);
    const result: StreamWatcherResult =
      error === undefined
        ? { events: this.events, stopped: this.stopped }
        : {
            events: this.events,
            stopped: this.stopped,
            error,
          };
    try {
      this.options.onDone?.(result);
    } catch {
      // Accounting must never break the watch.
    }
  }
}

/** `watch.NewEmptyWatch`: a watch that has already ended (iteration yields nothing). */
export function emptyWatch<T = KubeObject>(): Watch<T> {
  return {
    stop() {},
    async *[Symbol.asyncIterator]() {},
  };
}
