import {
  MAX_WATCH_CHAN_SIZE_WITH_INDEX_AND_TRIGGER,
  MAX_WATCH_CHAN_SIZE_WITH_INDEX_WITHOUT_TRIGGER,
  MAX_WATCH_CHAN_SIZE_WITHOUT_INDEX,
  MIN_WATCH_CHAN_SIZE,
  WATCH_FIXED_OVERHEAD_BYTES,
  WATCH_INPUT_SLOT_BYTES,
  WATCH_RESULT_SLOT_BYTES,
} from "../filters/index.js";
import { EVENT_FRESH_DURATION_MS } from "../storage/index.js";

/**
 * The channel size kube-apiserver's cacher gives a new watcher (`watchCache.suggestedWatchChannelSize`): about one
 * second of history — the ring's capacity divided by its freshness window in seconds, rounded up — at least 10 and at
 * most 10 for a watch that selects on the resource's trigger (pods by `spec.nodeName`, ConfigMaps and Secrets by
 * `metadata.name`), 1000 for a watch of such a resource that does not, 100 for a resource without a trigger. Both the
 * `input` and the `result` channel get this size.
 */
export function suggestedWatchChannelSize(
  historyCapacity: number,
  opts: { readonly indexExists: boolean; readonly triggerUsed: boolean; readonly eventFreshMs?: number },
): number {
  if (!(historyCapacity >= 0) || !Number.isFinite(historyCapacity)) {
    throw new RangeError(`watch channel size: historyCapacity must be a finite number ≥ 0, got ${historyCapacity}`);
  }
  const freshMs = opts.eventFreshMs ?? EVENT_FRESH_DURATION_MS;
  if (!(freshMs > 0)) throw new RangeError(`watch channel size: eventFreshMs must be > 0, got ${freshMs}`);
  const max = !opts.indexExists
    ? MAX_WATCH_CHAN_SIZE_WITHOUT_INDEX
    : opts.triggerUsed
      ? MAX_WATCH_CHAN_SIZE_WITH_INDEX_AND_TRIGGER
      : MAX_WATCH_CHAN_SIZE_WITH_INDEX_WITHOUT_TRIGGER;
  const size = Math.ceil(historyCapacity / (freshMs / 1000));
  return Math.min(max, Math.max(MIN_WATCH_CHAN_SIZE, size));
}

/** Constants of the watch memory model (defaults in model-calibration.ts, with their sources). */
export interface WatchMemoryModel {
  /** Goroutine stacks, HTTP/2 stream, encoder, context of one watch. */
  readonly fixedOverheadBytes: number;
  readonly inputSlotBytes: number;
  readonly resultSlotBytes: number;
}

/** The model calibrated to ~100 KB per idle single-object watch (write-up 001, kubernetes#117777). */
export const DEFAULT_WATCH_MEMORY_MODEL: WatchMemoryModel = Object.freeze({
  fixedOverheadBytes: WATCH_FIXED_OVERHEAD_BYTES,
  inputSlotBytes: WATCH_INPUT_SLOT_BYTES,
  resultSlotBytes: WATCH_RESULT_SLOT_BYTES,
});

/** One watch as the memory model sees it. */
export interface WatchMemoryInput {
  /** Size of its `input` and of its `result` channel ({@link suggestedWatchChannelSize}). */
  readonly chanSize: number;
  /** Encoded size of one event's object (bytes). */
  readonly eventBytes: number;
  /**
   * Events buffered in its two channels: a count (0 ≤ n ≤ 2 × chanSize), `"empty"` (an idle watch, the default) or
   * `"full"` (both channels full: a watcher about to be closed for unresponsiveness).
   */
  readonly buffered?: number | "empty" | "full";
}

/** The model's estimate for one watch, by part. */
export interface WatchMemoryEstimate {
  readonly fixedBytes: number;
  /** The two channels' slots (`chanSize` × (input slot + result slot)). */
  readonly channelBytes: number;
  /** Events held in the channels × event size. */
  readonly bufferedEventBytes: number;
  readonly totalBytes: number;
}

/**
 * kube-apiserver's memory for one open watch, by the model: a fixed part (goroutines, HTTP/2 stream, encoder), the
 * `cacheWatcher`'s `input` and `result` channels sized as the cacher sizes them, and the events buffered in them ×
 * event size (objects are shared with the watch cache while it holds them; a buffered event pins its object and its
 * cached serialization after the cache moved on). Calibrated so that an idle single-object ConfigMap watch
 * (channels of 10) is 100,000 bytes: 200,000 such watches ≈ 20 GB, as background write-up 001 measured. Throws a
 * `RangeError` naming a bad input.
 */
export function watchMemoryEstimate(
  w: WatchMemoryInput,
  model: WatchMemoryModel = DEFAULT_WATCH_MEMORY_MODEL,
): WatchMemoryEstimate {
  if (!Number.isInteger(w.chanSize) || w.chanSize < 0) {
    throw new RangeError(`watch memory: chanSize must be an integer ≥ 0, got ${w.chanSize}`);
  }
  if (!(w.eventBytes >= 0) || !Number.isFinite(w.eventBytes)) {
    throw new RangeError(`watch memory: eventBytes must be a finite number ≥ 0, got ${w.eventBytes}`);
  }
  for (const k of ["fixedOverheadBytes", "inputSlotBytes", "resultSlotBytes"] as const) {
    const v = model[k];
    if (!(v >= 0) || !Number.isFinite(v)) throw new RangeError(`watch memory: ${k} must be ≥ 0, got ${v}`);
  }
  const b = w.buffered ?? "empty";
  let buffered: number;
  if (b === "empty") buffered = 0;
  else if (b === "full") buffered = 2 * w.chanSize;
  else if (typeof b === "number" && Number.isInteger(b) && b >= 0 && b <= 2 * w.chanSize) buffered = b;
  else {
    throw new RangeError(
      `watch memory: buffered must be "empty", "full" or an integer in [0, ${2 * w.chanSize}], got ${String(b)}`,
    );
  }
  const channelBytes = w.chanSize * (model.inputSlotBytes + model.resultSlotBytes);
  const bufferedEventBytes = buffered * w.eventBytes;
  return {
    fixedBytes: model.fixedOverheadBytes,
    channelBytes,
    bufferedEventBytes,
    totalBytes: model.fixedOverheadBytes + channelBytes + bufferedEventBytes,
  };
}

/** The engine's live figure: the model's bytes for every open watch, by resource. */
export interface WatchMemoryGauge {
  readonly watches: number;
  readonly totalBytes: number;
  readonly byResource: ReadonlyArray<{
    readonly resource: string;
    readonly watches: number;
    readonly bufferedEvents: number;
    readonly averageEventBytes: number;
    readonly totalBytes: number;
  }>;
}

/** One open watch as the engine samples it for {@link watchMemoryGauge}. */
export interface OpenWatchSample {
  readonly resource: string;
  readonly chanSize: number;
  /** Events in its `input` and `result` buffers now. */
  readonly buffered: number;
}

/**
 * The model's bytes for a set of open watches, by resource: each watch as {@link watchMemoryEstimate} with its own
 * channel size and current fill, its events sized at its resource's average encoded object (`eventBytesOf`). A fill
 * above the channels (the simulator's dispatcher queues beyond them while it waits on a blocked watcher) counts as
 * full. Resources come out in name order.
 */
export function watchMemoryGauge(
  watches: Iterable<OpenWatchSample>,
  eventBytesOf: (resource: string) => number,
  model: WatchMemoryModel = DEFAULT_WATCH_MEMORY_MODEL,
): WatchMemoryGauge {
  const by = new Map<
    string,
    { watches: number; bufferedEvents: number; averageEventBytes: number; totalBytes: number }
  >();
  let watchesN = 0;
  let total = 0;
  for (const w of watches) {
    let row = by.get(w.resource);
    if (row === undefined) {
      row = { watches: 0, bufferedEvents: 0, averageEventBytes: eventBytesOf(w.resource), totalBytes: 0 };
      by.set(w.resource, row);
    }
    const buffered = Math.min(Math.max(0, Math.trunc(w.buffered)), 2 * w.chanSize);
    const est = watchMemoryEstimate({ chanSize: w.chanSize, eventBytes: row.averageEventBytes, buffered }, model);
    row.watches++;
    row.bufferedEvents += buffered;
    row.totalBytes += est.totalBytes;
    watchesN++;
    total += est.totalBytes;
  }
  const byResource = [...by.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([resource, r]) => ({ resource, ...r }));
  return { watches: watchesN, totalBytes: total, byResource };
}
