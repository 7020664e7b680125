import type { KubeObject } from "@informer-ts/apimachinery";
import { SubscriberErrorReporter, safeObservable } from "@informer-ts/instrumentation";
import { Observable, type Subscriber, Subscription } from "rxjs";
import type { ListerWatcher } from "./listwatch.js";
import { consoleLogger, safeLog } from "./reflector/logger.js";
import type { ReflectorOptions } from "./reflector/options.js";
import { Reflector } from "./reflector/reflector.js";
import type {
  FailureKind,
  ReflectorErrorInfo,
  ReflectorEvent,
  ReflectorFailure,
  ReflectorStatus,
} from "./reflector/status.js";
import type { BookmarkStore, DeletedFinalStateUnknownLike, ReflectorStore } from "./store.js";
import type { WatcherEvent } from "./watcher-event.js";

/**
 * Decides whether a failure ends a {@link watcher} stream with an error instead of being retried. Called on every
 * failed list/watch attempt (never on routine ones such as an expired resource version) with the failure streak
 * so far; return true to make it fatal.
 */
export type WatcherErrorPolicy = (failure: ReflectorFailure) => boolean;

/** Options of {@link watcher}: the reflector's options (no resync: a stream has no store to resync), plus: */
export interface WatcherConfig<T> extends Omit<ReflectorOptions<T>, "resyncPeriod" | "shouldResync"> {
  /**
   * An example object whose `apiVersion`/`kind` (when both set) every object must have; others are skipped
   * (client-go's `expectedType`).
   */
  readonly expectedType?: KubeObject;
  /** Told the status on subscribe and on every lifecycle change (phase, sync, error, failure streak). */
  readonly onStatus?: (status: ReflectorStatus) => void;
  /** Told every lifecycle event (list/watch start and end, backoffs, errors, relists…). */
  readonly onEvent?: (event: ReflectorEvent) => void;
  /** Which failures end the stream with a {@link WatcherFailedError}. Default: none (retry forever, as client-go). */
  readonly fatal?: WatcherErrorPolicy;
}

/** The error a {@link watcher} stream ends with when its {@link WatcherConfig.fatal} policy says so. */
export class WatcherFailedError extends Error {
  override readonly name = "WatcherFailedError";
  /** The latest error (HTTP code, reason, message). */
  readonly error: ReflectorErrorInfo;

  constructor(readonly failure: ReflectorFailure) {
    super(
      `watcher gave up after ${failure.tries} failed ${failure.tries === 1 ? "try" : "tries"} (${failure.kind} during ${failure.during}): ${failure.error.message}`,
    );
    this.error = failure.error;
  }
}

/**
 * A {@link WatcherErrorPolicy}: fatal once a failure of one of `kinds` (or with one of the HTTP `codes`) has
 * happened `tries` times in a row. `failAfter({ codes: [403], tries: 5 })` gives up on a forbidden resource after
 * five tries; with neither `kinds` nor `codes` every failure counts.
 */
export function failAfter(options: {
  readonly tries: number;
  readonly kinds?: readonly FailureKind[];
  readonly codes?: readonly number[];
}): WatcherErrorPolicy {
  const { tries, kinds, codes } = options;
  if (!Number.isInteger(tries) || tries < 1) throw new RangeError(`failAfter needs tries ≥ 1, got ${tries}`);
  return (f) => {
    const selected =
      (kinds === undefined && codes === undefined) ||
      (kinds?.includes(f.kind) ?? false) ||
      (f.error.code !== undefined && (codes?.includes(f.error.code) ?? false));
    return selected && f.tries >= tries;
  };
}

/**
 * The reflector's store interface turned into stream events: `replace` → `init`, one `initApply` per object,
 * `initDone(rv)`; add/update → `apply`; delete → `delete`; bookmark → `bookmark`.
 */
class EventSink<T> implements ReflectorStore<T>, BookmarkStore {
  constructor(private readonly subscriber: Subscriber<WatcherEvent<T>>) {}

  add(obj: T): void {
    this.subscriber.next({ type: "apply", object: obj });
  }

  update(obj: T): void {
    this.subscriber.next({ type: "apply", object: obj });
  }

  delete(obj: T | DeletedFinalStateUnknownLike<T>): void {
    this.subscriber.next({ type: "delete", object: obj as T });
  }

  replace(list: readonly T[], resourceVersion: string): void {
    const s = this.subscriber;
    s.next({ type: "init" });
    for (let i = 0; i < list.length && !s.closed; i++) s.next({ type: "initApply", object: list[i] as T });
    s.next({ type: "initDone", resourceVersion });
  }

  resync(): void {
    // A stream has nothing to re-deliver.
  }

  bookmark(resourceVersion: string): void {
    this.subscriber.next({ type: "bookmark", resourceVersion });
  }
}

/**
 * Lists and watches a resource as a cold stream of {@link WatcherEvent}s (kube-rs `watcher()`), with the
 * reflector's behaviour unchanged: the cache is primed by watch-list (`sendInitialEvents`) or by LIST (resource
 * version "0" first, paginated; "" after an expired or too-large answer), then a watch with bookmarks continues
 * from the listed resource version, re-opened when the server ends it, and a relist follows a 410.
 *
 * Each subscription is one independent run: subscribing starts it, unsubscribing aborts the in-flight request,
 * stops the open watch and clears every timer and abort listener. Errors do **not** end the stream while the
 * client-go reflector would retry (backoff 800 ms ×2 with full jitter, capped at 30 s, on the injected clock):
 * they go to {@link WatcherConfig.onStatus} / {@link WatcherConfig.onEvent} and the log, with a hint; a
 * {@link WatcherConfig.fatal} policy can turn chosen failures into a {@link WatcherFailedError}. The stream
 * never completes on its own.
 *
 * A subscriber that throws (in `next`, `error` or `complete`, also after `pipe`) is reported through the logger and
 * never re-thrown into the host; it stays subscribed. A stream error reaching a subscriber without an `error`
 * callback is reported the same way.
 *
 * Events are pushed as fast as the server sends them (the watch is read into the stream without waiting for
 * consumers, like client-go's reflector writing into an unbounded queue); an asynchronous consumer buffers.
 *
 * Differences from client-go: client-go has no stream form (the `Reflector` writes into a store); this is the
 * reflector with a store that emits events. Resync is not offered (resync re-delivers a store's contents).
 */
export function watcher<T>(lw: ListerWatcher<T>, config: WatcherConfig<T> = {}): Observable<WatcherEvent<T>> {
  const { expectedType, onStatus, onEvent, fatal, ...options } = config;
  const logger = options.logger ?? consoleLogger;
  const events$ = new Observable<WatcherEvent<T>>((subscriber) => {
    const reflector = new Reflector<T>(lw, expectedType, new EventSink(subscriber), options);
    const teardown = new Subscription();
    const guarded =
      <V>(what: string, fn: (v: V) => void) =>
      (v: V) => {
        try {
          fn(v);
        } catch (err) {
          safeLog(logger, "error", `watcher ${what} callback threw`, { reflector: reflector.name, err });
        }
      };
    if (onStatus !== undefined) teardown.add(reflector.status$.subscribe(guarded("onStatus", onStatus)));
    if (onEvent !== undefined || fatal !== undefined) {
      const notify = onEvent === undefined ? undefined : guarded("onEvent", onEvent);
      teardown.add(
        reflector.events$.subscribe((event) => {
          notify?.(event);
          if (fatal === undefined || event.type !== "failure") return;
          let giveUp = false;
          try {
            giveUp = fatal(event.failure);
          } catch (err) {
            safeLog(logger, "error", "watcher fatal policy threw; the failure is retried", {
              reflector: reflector.name,
              err,
            });
          }
          if (giveUp) subscriber.error(new WatcherFailedError(event.failure));
        }),
      );
    }
    const stop = new AbortController();
    reflector.run(stop.signal).catch((err: unknown) => subscriber.error(err));
    teardown.add(() => stop.abort());
    return teardown;
  });
  // A subscriber that throws is reported through the logger, never re-thrown into the host (also after `pipe`).
  return safeObservable(events$, `watcher ${options.name ?? "(unnamed)"}`, new SubscriberErrorReporter({ logger }));
}
