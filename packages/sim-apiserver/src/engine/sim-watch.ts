import { type KubeObject, stoppingIterator, type Watch, type WatchEvent } from "@informer-ts/apimachinery";

/**
 * An open watch on the engine: apimachinery's {@link Watch} (async-iterable in-process, `stop()`), and pullable by
 * the HTTP face with `next()`.
 */
export interface SimWatch extends Watch<KubeObject> {
  next(): Promise<IteratorResult<WatchEvent>>;
  stop(): void;
}

/** An in-process watch cut in the middle of a line (the in-process face of the `truncate-watch` fault). */
export class SimTruncatedWatchError extends Error {
  override readonly name = "SimTruncatedWatchError";
  /** Node's code for a stream that ended before it was complete: clients classify it as a probable EOF. */
  readonly code = "ERR_STREAM_PREMATURE_CLOSE";
}

/** Delivers `afterEvents` events of `inner`, then stops it and fails as a watch cut mid-line would. */
export class TruncatingWatch implements SimWatch {
  private n = 0;

  constructor(
    private readonly inner: SimWatch,
    private readonly afterEvents: number,
  ) {}

  async next(): Promise<IteratorResult<WatchEvent>> {
    if (this.n >= this.afterEvents) {
      this.inner.stop();
      throw new SimTruncatedWatchError("watch stream ended in the middle of an event (truncated line)");
    }
    const r = await this.inner.next();
    if (r.done !== true) this.n++;
    return r;
  }

  stop(): void {
    this.inner.stop();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return stoppingIterator(this);
  }
}
