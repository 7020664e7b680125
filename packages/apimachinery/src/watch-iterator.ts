/** What {@link stoppingIterator} needs: a pull-based source of items that can be stopped (a watch). */
export interface StoppableSource<T> {
  /** The next item, or `done` once the source has ended. */
  next(): Promise<IteratorResult<T>>;
  /** Ends the source and releases what it holds. Must be idempotent. */
  stop(): void;
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ value: undefined, done: true });

/**
 * The async iterator of a stoppable source, the way every watch in informer-ts is iterated: `next()` pulls from
 * the source, and `return()` — what `break`, `return` or a throw inside `for await` calls — stops it (as a Go
 * consumer calls `watch.Interface.Stop()`). Use it as the body of `[Symbol.asyncIterator]()`.
 *
 * The pull contract: the source produces nothing the consumer has not asked for beyond its own buffer, so a slow
 * consumer slows the watch down instead of growing memory elsewhere.
 */
export function stoppingIterator<T>(source: StoppableSource<T>): AsyncIterator<T> {
  return {
    next: () => source.next(),
    return: () => {
      source.stop();
      return Promise.resolve(DONE);
    },
  };
}
