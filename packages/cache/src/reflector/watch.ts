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

  try {
    iterator = w[Symbol.asyncIterator]();
    for (;;) {
      if (interrupter.interrupt !== undefined) return interrupted(interrupter.interrupt);
      let next: IteratorResult<WatchEvent<T>>;
      try {
        const raced = await interrupter.race(iterator.next());
        if ("interrupt" in raced) return interrupted(raced.interrupt);
        next = raced.value;
      } catch (err) {
        const mapped = watchIterationError(err);
        if (mapped === undefined) {
          safeLog(ctx.logger, "debug", "watch stream ended with a connection error", {
            reflector: ctx.name,
            err: errorInfo(err).message,
          });
          break;
        }
        return { initialEventsEnd, events: eventCount, end: "error", error: mapped };
      }
      if (next.done === true) break;
      const event = next.value as WatchEvent<unknown>;
      if (event === null || typeof event !== "object") continue;
      if (event.type === "ERROR") {
        const obj: unknown = event.object;
        const error = isStatus(obj)
          ? fromStatus(obj)
          : new Error(`unexpected object in a watch ERROR event: ${JSON.stringify(obj)?.slice(0, 200)}`);
        return { initialEventsEnd, events: eventCount, end: "error", error };
      }
      const obj = event.object;
      const skip = skipReason(ctx, obj);
      if (skip !== undefined) {
        status.counts.skippedObjects++;
        status.emit({ type: "skipped-object", reason: skip, eventType: event.type });
        safeLog(ctx.logger, "error", skipMessage(skip), {
          reflector: ctx.name,
          expected: ctx.expectedGVK,
          actual: describeKind(obj),
        });
        continue;
      }
      const meta = metaOf(obj)!;
      const rv = typeof meta.resourceVersion === "string" ? meta.resourceVersion : "";
      const now = clock.now();
      switch (event.type) {
        case "ADDED":
          storeOp(ctx, "add", () => store.add(obj as T), obj);
          break;
        case "MODIFIED":
          eventReceivedBesidesAdded = true;
          storeOp(ctx, "update", () => store.update(obj as T), obj);
          break;
        case "DELETED":
          eventReceivedBesidesAdded = true;
          storeOp(ctx, "delete", () => store.delete(obj as T), obj);
          break;
        case "BOOKMARK": {
          eventReceivedBesidesAdded = true;
          const end = meta.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === "true";
          if (end) initialEventsEnd = true;
          status.counts.bookmarks++;
          ctx.onBookmark?.();
          if (status.events.observed) status.emit({ type: "bookmark", resourceVersion: rv, initialEventsEnd: end });
          if (hasBookmark) storeOp(ctx, "bookmark", () => store.bookmark!(rv), obj);
          break;
        }
        default: {
          const type = String((event as { type: unknown }).type);
          status.counts.skippedObjects++;
          status.emit({ type: "skipped-object", reason: "unknown-event-type", eventType: type });
          safeLog(ctx.logger, "error", "Unknown watch event", { reflector: ctx.name, event: type });
        }
      }
      // Past any synthetic ADDED events once something else was seen.
      args.setLastSyncResourceVersion(rv, eventReceivedBesidesAdded);
      eventCount++;
      status.counts.events++;
      status.lastEventTime = now;
      args.onEvent?.(now);
      if (exitOnInitialEventsEndBookmark && initialEventsEnd) {
        stopWatcher = false;
        safeLog(
          ctx.logger,
          "debug",
          "Exiting watch because received the bookmark that marks the end of initial events",
          {
            reflector: ctx.name,
            totalItems: eventCount,
            duration: clock.since(args.start),
          },
        );
        return { initialEventsEnd, events: eventCount, end: "initial-events-end" };
      }
      ticker?.observeLastEventTimeStamp(now);
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

function storeOp(ctx: WatchHandlerContext, op: string, fn: () => void, obj: unknown): void {
  try {
    fn();
  } catch (err) {
    const info = errorInfo(err);
    ctx.status.recordError("store", info);
    safeLog(ctx.logger, "error", `Unable to ${op} watch event object to store`, {
      reflector: ctx.name,
      err: info.message,
      object: describeKind(obj),
    });
  }
}
