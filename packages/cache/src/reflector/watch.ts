import {
  fromStatus,
  type GroupVersionKind,
  INITIAL_EVENTS_END_ANNOTATION,
  type KubeObject,
  metaOf,
  type Status,
  type WatchEvent,
} from "@informer-ts/apimachinery";
import type { Clock } from "@informer-ts/clock";
import type { Watch } from "../listwatch.js";
import type { ReflectorStore } from "../store.js";
import { VeryShortWatchError, watchIterationError } from "./errors.js";
import { InitialEventsEndBookmarkTicker } from "./initial-events-end-bookmark-ticker.js";
import { type ReflectorLogger, safeLog } from "./logger.js";
import { VERY_SHORT_WATCH_MS } from "./options.js";
import { errorInfo, type ReflectorStatusTracker, type SkipReason, type WatchEndReason } from "./status.js";
import type { WatchInterrupt, WatchInterrupter } from "./watch-interrupter.js";

// GroupVersionKind and gvkString are apimachinery's schema types; re-exported here for the reflector's files.
export { type GroupVersionKind, gvkString } from "@informer-ts/apimachinery";

const TABLE_API_VERSIONS = new Set(["meta.k8s.io/v1", "meta.k8s.io/v1beta1"]);

/** `isUnsupportedTableObject`: a `Table` of `meta.k8s.io/v1` or `v1beta1` (kubernetes#132926). */
export function isUnsupportedTableObject(obj: unknown): boolean {
  if (typeof obj !== "object" || obj === null) return false;
  const o = obj as KubeObject;
  return o.kind === "Table" && typeof o.apiVersion === "string" && TABLE_API_VERSIONS.has(o.apiVersion);
}

/** What the event loop needs from its reflector. */
export interface WatchHandlerContext {
  readonly name: string;
  readonly typeDescription: string;
  readonly expectedGVK: GroupVersionKind | undefined;
  readonly clock: Clock;
  readonly logger: ReflectorLogger;
  readonly status: ReflectorStatusTracker;
  /** Called on every BOOKMARK (the liveness check uses it to know the server sends bookmarks). */
  readonly onBookmark?: () => void;
}

/** The result of {@link handleAnyWatch}. */
export interface WatchResult {
  /** True if the `k8s.io/initial-events-end` bookmark was received. */
  readonly initialEventsEnd: boolean;
  /** Counted events (skipped objects excluded). */
  readonly events: number;
  readonly end: WatchEndReason | "initial-events-end";
  /** Set when `end` is `error`, `very-short` or `resync-error`. */
  readonly error?: unknown;
}

function isStatus(obj: unknown): obj is Status {
  return typeof obj === "object" && obj !== null && (obj as { kind?: unknown }).kind === "Status";
}

/** The arguments of {@link handleAnyWatch}. */
export interface HandleWatchArgs<T> {
  readonly start: number;
  readonly watch: Watch<T>;
  readonly store: ReflectorStore<T>;
  /** `(rv, eventReceivedBesidesAdded)` after every counted event. */
  readonly setLastSyncResourceVersion: (rv: string, eventReceivedBesidesAdded: boolean) => void;
  /** Return (leaving the watch open) as soon as the initial-events-end bookmark is processed (watch-list). */
  readonly exitOnInitialEventsEndBookmark: boolean;
  readonly interrupter: WatchInterrupter;
  /** Told the clock time of every counted event (for the liveness check). */
  readonly onEvent?: (now: number) => void;
}

/**
 * Consumes one watch stream into `store` (`handleAnyWatch`): ERROR events end the watch with
 * the decoded Status error; objects of the wrong GVK, `Table` objects and objects without metadata are skipped
 * and not counted; ADDED/MODIFIED/DELETED go to `add`/`update`/`delete` and BOOKMARK to `bookmark(rv)` when the
 * store has it; store failures are logged, never fatal. After each counted event the RV is handed to
 * `setLastSyncResourceVersion` with whether any non-ADDED event was seen. The watch is always stopped on return,
 * except when it returns at the initial-events-end bookmark in watch-list mode, where the caller keeps using it.
 *
 * A stream that ends within 1 s with no counted event is a {@link VeryShortWatchError}.
 */
export async function handleAnyWatch<T>(ctx: WatchHandlerContext, args: HandleWatchArgs<T>): Promise<WatchResult> {
  const { watch: w, store, interrupter, exitOnInitialEventsEndBookmark } = args;
  const clock = ctx.clock;
  const status = ctx.status;
  let initialEventsEnd = false;
  let eventReceivedBesidesAdded = false;
  let eventCount = 0;
  let stopWatcher = true;
  const ticker = exitOnInitialEventsEndBookmark ? new InitialEventsEndBookmarkTicker(ctx, args.start) : undefined;
  ticker?.start();
  const hasBookmark = typeof store.bookmark === "function";
  let iterator: AsyncIterator<WatchEvent<T>> | undefined;

  const interrupted = (i: WatchInterrupt): WatchResult => {
    if (i.reason === "resync-error")
      return { initialEventsEnd, events: eventCount, end: "resync-error", error: i.error };
    return { initialEventsEnd, events: eventCount, end: i.reason };
  };

  /** One event of the stream into the store; a result ends the watch, undefined goes on. */
  const handleEvent = (value: WatchEvent<T>): WatchResult | undefined => {
    const event = value as WatchEvent<unknown>;
    if (event === null || typeof event !== "object") return undefined;
    if (event.type === "ERROR") return errorEventResult(event.object, initialEventsEnd, eventCount);
    const obj = event.object;
    const skip = skipReason(ctx, obj);
    if (skip !== undefined) {
      skipObject(ctx, skip, event.type, obj);
      return undefined;
    }
    const meta = metaOf(obj)!;
    const rv = typeof meta.resourceVersion === "string" ? meta.resourceVersion : "";
    const now = clock.now();
    switch (event.type) {
      case "ADDED":
        storeOp(ctx, "add", store, obj as T);
        break;
      case "MODIFIED":
        eventReceivedBesidesAdded = true;
        storeOp(ctx, "update", store, obj as T);
        break;
      case "DELETED":
        eventReceivedBesidesAdded = true;
        storeOp(ctx, "delete", store, obj as T);
        break;
      case "BOOKMARK":
        eventReceivedBesidesAdded = true;
        if (bookmark(ctx, store, hasBookmark, meta.annotations, rv, obj)) initialEventsEnd = true;
        break;
      default:
        unknownEventType(ctx, (event as { type: unknown }).type);
    }
    // Past any synthetic ADDED events once something else was seen.
    args.setLastSyncResourceVersion(rv, eventReceivedBesidesAdded);
    eventCount++;
    status.counts.events++;
    status.lastEventTime = now;
    args.onEvent?.(now);
    if (exitOnInitialEventsEndBookmark && initialEventsEnd) {
      stopWatcher = false;
      safeLog(ctx.logger, "debug", "Exiting watch because received the bookmark that marks the end of initial events", {
        reflector: ctx.name,
        totalItems: eventCount,
        duration: clock.since(args.start),
      });
      return { initialEventsEnd, events: eventCount, end: "initial-events-end" };
    }
    ticker?.observeLastEventTimeStamp(now);
    return undefined;
  };
  /** A failed pull: the mapped error ends the watch, undefined means the connection just ended. */
  const pullFailed = (err: unknown): WatchResult | undefined => {
    const mapped = watchIterationError(err);
    if (mapped !== undefined) return { initialEventsEnd, events: eventCount, end: "error", error: mapped };
    safeLog(ctx.logger, "debug", "watch stream ended with a connection error", {
      reflector: ctx.name,
      err: errorInfo(err).message,
    });
    return undefined;
  };

  try {
    // The batch path takes every event already decoded from a chunk in one turn. Not while watch-list waits for its
    // initial-events-end bookmark: the caller keeps the watch then, and events after the bookmark must stay in it.
    if (w.nextBatch !== undefined && !exitOnInitialEventsEndBookmark) {
      for (;;) {
        if (interrupter.interrupt !== undefined) return interrupted(interrupter.interrupt);
        let next: IteratorResult<readonly WatchEvent<T>[]>;
        try {
          const raced = await interrupter.race(w.nextBatch());
          if ("interrupt" in raced) return interrupted(raced.interrupt);
          next = raced.value;
        } catch (err) {
          const failed = pullFailed(err);
          if (failed !== undefined) return failed;
          break;
        }
        if (next.done === true) break;
        const batch = next.value;
        for (let i = 0; i < batch.length; i++) {
          // A store operation or handler may have interrupted the watch: the rest of the batch is not applied.
          if (i > 0 && interrupter.interrupt !== undefined) return interrupted(interrupter.interrupt);
          const result = handleEvent(batch[i]!);
          if (result !== undefined) return result;
        }
      }
    } else {
      iterator = w[Symbol.asyncIterator]();
      for (;;) {
        if (interrupter.interrupt !== undefined) return interrupted(interrupter.interrupt);
        let next: IteratorResult<WatchEvent<T>>;
        try {
          const raced = await interrupter.race(iterator.next());
          if ("interrupt" in raced) return interrupted(raced.interrupt);
          next = raced.value;
        } catch (err) {
          const failed = pullFailed(err);
          if (failed !== undefined) return failed;
          break;
        }
        if (next.done === true) break;
        const result = handleEvent(next.value);
        if (result !== undefined) return result;
      }
    }
  } finally {
    ticker?.stop();
    if (stopWatcher) stopQuietly(w);
  }

  if (clock.since(args.start) < VERY_SHORT_WATCH_MS && eventCount === 0) {
    return { initialEventsEnd, events: 0, end: "very-short", error: new VeryShortWatchError(ctx.name) };
  }
  safeLog(ctx.logger, "debug", "Watch close", {
    reflector: ctx.name,
    type: ctx.typeDescription,
    totalItems: eventCount,
  });
  return { initialEventsEnd, events: eventCount, end: "closed" };
}

/** Stops a watch, ignoring anything it throws. */
export function stopQuietly(w: { stop(): void }): void {
  try {
    w.stop();
  } catch {
    // A watch that fails to stop is already as stopped as it gets.
  }
}

function skipReason(ctx: WatchHandlerContext, obj: unknown): SkipReason | undefined {
  if (typeof obj !== "object" || obj === null) return "unexpected-type";
  const gvk = ctx.expectedGVK;
  if (gvk !== undefined) {
    const o = obj as KubeObject;
    if (o.apiVersion !== gvk.apiVersion || o.kind !== gvk.kind) return "unexpected-gvk";
  }
  if (isUnsupportedTableObject(obj)) return "table";
  if (metaOf(obj) === undefined) return "no-metadata";
  return undefined;
}

function skipMessage(reason: SkipReason): string {
  switch (reason) {
    case "unexpected-type":
      return "Unexpected watch event object type";
    case "unexpected-gvk":
      return "Unexpected watch event object gvk";
    case "table":
      return "Unsupported watch event object gvk";
    case "no-metadata":
      return "Unable to understand watch event";
    default:
      return "Unknown watch event";
  }
}

function describeKind(obj: unknown): string {
  if (typeof obj !== "object" || obj === null) return typeof obj;
  const o = obj as KubeObject;
  return `${String(o.apiVersion)}, Kind=${String(o.kind)}`;
}

/** The result of an ERROR event: its Status as the error that ends the watch. */
function errorEventResult(obj: unknown, initialEventsEnd: boolean, events: number): WatchResult {
  const error = isStatus(obj)
    ? fromStatus(obj)
    : new Error(`unexpected object in a watch ERROR event: ${JSON.stringify(obj)?.slice(0, 200)}`);
  return { initialEventsEnd, events, end: "error", error };
}

/** Counts, reports and logs an object the reflector does not apply (kept out of the per-event function). */
function skipObject(ctx: WatchHandlerContext, skip: SkipReason, eventType: string, obj: unknown): void {
  ctx.status.counts.skippedObjects++;
  ctx.status.emit({ type: "skipped-object", reason: skip, eventType });
  safeLog(ctx.logger, "error", skipMessage(skip), {
    reflector: ctx.name,
    expected: ctx.expectedGVK,
    actual: describeKind(obj),
  });
}

function unknownEventType(ctx: WatchHandlerContext, eventType: unknown): void {
  const type = String(eventType);
  ctx.status.counts.skippedObjects++;
  ctx.status.emit({ type: "skipped-object", reason: "unknown-event-type", eventType: type });
  safeLog(ctx.logger, "error", "Unknown watch event", { reflector: ctx.name, event: type });
}

/** A BOOKMARK: counted, reported, handed to the store; returns whether it marks the end of the initial events. */
function bookmark<T>(
  ctx: WatchHandlerContext,
  store: ReflectorStore<T>,
  hasBookmark: boolean,
  annotations: Record<string, string> | undefined,
  rv: string,
  obj: unknown,
): boolean {
  const end = annotations?.[INITIAL_EVENTS_END_ANNOTATION] === "true";
  const status = ctx.status;
  status.counts.bookmarks++;
  ctx.onBookmark?.();
  if (status.events.observed) status.emit({ type: "bookmark", resourceVersion: rv, initialEventsEnd: end });
  if (hasBookmark) {
    try {
      store.bookmark!(rv);
    } catch (err) {
      storeFailed(ctx, "bookmark", err, obj);
    }
  }
  return end;
}

/** `store.add`/`update`/`delete` of a watch event's object; a failure is recorded and logged, never thrown. */
function storeOp<T>(ctx: WatchHandlerContext, op: "add" | "update" | "delete", store: ReflectorStore<T>, obj: T): void {
  try {
    if (op === "update") store.update(obj);
    else if (op === "add") store.add(obj);
    else store.delete(obj);
  } catch (err) {
    storeFailed(ctx, op, err, obj);
  }
}

function storeFailed(ctx: WatchHandlerContext, op: string, err: unknown, obj: unknown): void {
  const info = errorInfo(err);
  ctx.status.recordError("store", info);
  safeLog(ctx.logger, "error", `Unable to ${op} watch event object to store`, {
    reflector: ctx.name,
    err: info.message,
    object: describeKind(obj),
  });
}
