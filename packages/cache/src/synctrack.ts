/**
 * Trackers that tell whether a consumer has processed every item of an informer's initial list
 * (client-go `tools/cache/synctrack`), and the {@link DoneChecker} contract they share with informers.
 *
 * Every method is one synchronous turn (Go uses atomics and a mutex); completion is observable both
 * synchronously ({@link DoneChecker.isDone}) and as a promise ({@link DoneChecker.done}).
 */

/**
 * Something that completes once and stays complete (`cache.DoneChecker`): an informer's "has synced", a
 * handler registration's "has synced", a tracker.
 *
 * Differences from client-go: Go's `Done() <-chan struct{}` becomes a promise that resolves (never rejects)
 * on completion, and `cache.IsDone(checker)` becomes the method {@link DoneChecker.isDone}.
 */
export interface DoneChecker {
  /** Describes what is being waited for (for logs and sync reports). */
  name(): string;
  /** Resolves once the activity has completed; never rejects. The same promise on every call. */
  done(): Promise<void>;
  /** Whether the activity has completed (`cache.IsDone`). */
  isDone(): boolean;
}

/**
 * A one-shot completion flag with a lazily created promise: the building block of every {@link DoneChecker}
 * in this package. Completing twice is a no-op.
 */
export class DoneLatch implements DoneChecker {
  private completed = false;
  private promise: Promise<void> | undefined;
  private resolvePromise: (() => void) | undefined;

  constructor(private readonly description: string) {}

  name(): string {
    return this.description;
  }

  isDone(): boolean {
    return this.completed;
  }

  done(): Promise<void> {
    if (this.promise === undefined) {
      if (this.completed) {
        this.promise = Promise.resolve();
      } else {
        this.promise = new Promise<void>((resolve) => {
          this.resolvePromise = resolve;
        });
      }
    }
    return this.promise;
  }

  /** Marks the activity complete and resolves {@link DoneLatch.done}. Idempotent. */
  complete(): void {
    if (this.completed) return;
    this.completed = true;
    const resolve = this.resolvePromise;
    this.resolvePromise = undefined;
    resolve?.();
  }
}

/** A logic error in the use of a tracker (a `panic` in client-go): `finished()` without a matching `start()`. */
export class SyncTrackerError extends Error {
  override readonly name = "SyncTrackerError";
}

/**
 * What both trackers share (not exported): the latch, the upstream flag, and "synced once upstream has synced
 * and nothing is outstanding".
 */
abstract class UpstreamTracker implements DoneChecker {
  private upstreamSynced = false;
  private readonly latch: DoneLatch;

  constructor(name = "") {
    this.latch = new DoneLatch(name);
  }

  name(): string {
    return this.latch.name();
  }

  /** Call (at least once) as soon as upstream has synced, after every `start` for its initial list. */
  upstreamHasSynced(): void {
    this.upstreamSynced = true;
    this.completeIfIdle();
  }

  /** True once upstream has synced and every started item has finished. */
  hasSynced(): boolean {
    return this.latch.isDone();
  }

  isDone(): boolean {
    return this.latch.isDone();
  }

  done(): Promise<void> {
    return this.latch.done();
  }

  /** Whether no started item is waiting to finish. */
  protected abstract idle(): boolean;

  /** Completes the latch (for good) when upstream has synced and nothing is outstanding. */
  protected completeIfIdle(): void {
    if (this.upstreamSynced && this.idle()) this.latch.complete();
  }
}

/**
 * Tracks "has synced" when items are handled in order, one at a time (`synctrack.SingleFileTracker`), as a
 * `processorListener` does: {@link SingleFileTracker.start} for every initial-list item handed to the consumer,
 * {@link SingleFileTracker.finished} once that item has been handled, and
 * {@link SingleFileTracker.upstreamHasSynced} once the source has delivered its whole initial list (which must be
 * after the last `start`). The tracker is synced when upstream has synced and the count of started-but-unfinished
 * items is zero. Once synced it stays synced, whatever happens afterwards.
 *
 * Errors: `finished()` that would take the count below zero throws {@link SyncTrackerError} (Go panics), and
 * leaves the tracker synced if it already was.
 */
export class SingleFileTracker extends UpstreamTracker {
  private count = 0;

  /** Call before handing over each item of the initial list. */
  start(): void {
    this.count++;
  }

  /** Call after an item of the initial list has been handled. Throws when there was no matching `start`. */
  finished(): void {
    this.count--;
    if (this.count < 0) {
      this.count = 0;
      throw new SyncTrackerError(
        `synctrack ${JSON.stringify(this.name())}: negative counter; finished() was called without a matching start(), so hasSynced may be wrong`,
      );
    }
    this.completeIfIdle();
  }

  /** Started-but-unfinished items (for diagnostics). */
  get outstanding(): number {
    return this.count;
  }

  protected idle(): boolean {
    return this.count === 0;
  }
}

/**
 * Tracks "has synced" when items are handled by several workers in any order (`synctrack.AsyncTracker`):
 * {@link AsyncTracker.start} with an item's key before processing it, {@link AsyncTracker.finished} with the same
 * key after. Keys are tracked as a set, so `finished` for a key that was never started is harmless, and a key
 * started twice needs only one `finished`. Synced when upstream has synced and no key is waiting; once synced it
 * stays synced.
 */
export class AsyncTracker<K> extends UpstreamTracker {
  private readonly waiting = new Set<K>();

  /** Call before processing `key` when it is part of the initial list. */
  start(key: K): void {
    this.waiting.add(key);
  }

  /** Call after processing `key`. */
  finished(key: K): void {
    this.waiting.delete(key);
    this.completeIfIdle();
  }

  protected idle(): boolean {
    return this.waiting.size === 0;
  }
}
