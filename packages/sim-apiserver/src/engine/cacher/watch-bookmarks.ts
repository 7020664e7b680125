import { INITIAL_EVENTS_END_ANNOTATION, type WatchEvent } from "@informer-ts/apimachinery";
import { type Clock, jitter, type Rand, type Timer } from "@informer-ts/clock";
import { apiVersionOf, type SimResource } from "../resources.js";
import type { CacheWatcher } from "./cache-watcher.js";

/** Bookmark policy (fault injection): "on", "no-periodic" (no periodic bookmarks), "off" (none at all). */
export type BookmarkPolicy = "on" | "no-periodic" | "off";

/**
 * The cacher's bookmark ticks (`bookmarkWatchers` and the dispatcher's ~1 s bookmark timer): each watcher that
 * allows bookmarks is due one per bookmark period (and one 2 s before its deadline); a watch-list watcher is due its
 * `k8s.io/initial-events-end` marker once the cache reached the RV it waits for. The timer runs only while some
 * watcher is due, for the earliest one.
 */
export class WatchBookmarks {
  private timer: Timer | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  /** Earliest `nextBookmarkAt` of any watcher as of the last scan or registration. */
  private dueMin = Number.POSITIVE_INFINITY;

  constructor(
    private readonly resource: SimResource,
    private readonly clock: Clock,
    private readonly rand: Rand,
    private readonly frequencyMs: number,
    private readonly watchers: () => Iterable<CacheWatcher>,
    /** The RV of the last event (or progress) the dispatcher handed out: bookmarks carry it. */
    private readonly lastDispatchedRV: () => number,
    private readonly policy: () => BookmarkPolicy,
  ) {}

  /** A new watcher: its first bookmark is due now (a watch-list's end marker) or after one period. */
  onRegistered(w: CacheWatcher): void {
    if (!w.allowBookmarks) return;
    w.nextBookmarkAt = w.bookmarkAfterRV !== undefined ? this.clock.now() : this.nextBookmarkTime(w);
    // Only the new watcher can move the earliest due time: no scan of every watcher per registration.
    if (w.nextBookmarkAt !== undefined) this.schedule(Math.min(this.dueMin, w.nextBookmarkAt));
  }

  /** Stops the tick. */
  stop(): void {
    this.timer?.stop();
  }

  private nextBookmarkTime(w: CacheWatcher): number | undefined {
    const now = this.clock.now();
    let t = now + this.frequencyMs;
    if (Number.isFinite(w.deadline)) {
      const pre = w.deadline - 2000;
      if (pre < t) t = pre;
      if (t < now) return undefined;
    }
    return t;
  }

  // After a tick served the watcher: its next slot must lie ahead. Upstream's ticks fall at arbitrary sub-second
  // phases, so the pre-deadline slot (deadline − 2 s) is never served twice; under a fake clock the tick can land
  // exactly on it.
  private nextAfterTick(w: CacheWatcher, now: number): number | undefined {
    const t = this.nextBookmarkTime(w);
    return t !== undefined && t > now ? t : undefined;
  }

  /**
   * Arms the bookmark tick for the earliest due watcher: `due` when the caller knows it, else found by a scan. The
   * earliest due time is remembered (closing watchers may leave it too early, which only costs an idle tick).
   */
  private schedule(due = this.earliestDue()): void {
    this.dueMin = due;
    if (!Number.isFinite(due)) return;
    // The dispatcher's bookmark tick runs about every second (1 s, jittered by up to 25 %).
    const at = Math.max(due, this.clock.now() + jitter(1000, 0.25, this.rand));
    if (this.timer !== undefined && this.timerAt <= at) return;
    this.timer?.stop();
    this.timerAt = at;
    this.timer = this.clock.afterFunc(at - this.clock.now(), () => {
      this.timer = undefined;
      this.timerAt = Number.POSITIVE_INFINITY;
      this.tick();
      this.schedule();
    });
  }

  private earliestDue(): number {
    let due = Number.POSITIVE_INFINITY;
    for (const w of this.watchers())
      if (w.allowBookmarks && w.nextBookmarkAt !== undefined && w.nextBookmarkAt < due) due = w.nextBookmarkAt;
    return due;
  }

  private event(rv: number, endOfInitialEvents: boolean): WatchEvent {
    const r = this.resource;
    const metadata: Record<string, unknown> = { resourceVersion: String(rv) };
    if (endOfInitialEvents) metadata.annotations = { [INITIAL_EVENTS_END_ANNOTATION]: "true" };
    return { type: "BOOKMARK", object: { kind: r.kind, apiVersion: apiVersionOf(r), metadata } };
  }

  private tick(): void {
    const mode = this.policy();
    const now = this.clock.now();
    const rv = this.lastDispatchedRV();
    let periodic: WatchEvent | undefined;
    for (const w of this.watchers()) {
      if (!w.allowBookmarks || w.nextBookmarkAt === undefined || w.nextBookmarkAt > now) continue;
      if (w.bookmarkAfterRV !== undefined && !w.endBookmarkSent && !w.holdsEndBookmark) {
        // A watch-list watcher waiting for its end marker is considered on every tick until it got it.
        if (mode !== "off" && rv >= w.bookmarkAfterRV) {
          if (w.tryAddBookmark(this.event(Math.max(rv, w.bookmarkAfterRV), true), true)) {
            w.nextBookmarkAt = this.nextAfterTick(w, now);
          }
        }
        continue;
      }
      // Offered without blocking; the watcher forwards it only when its RV is past the watch's start (upstream
      // `process`), so a watch whose resource never moved gets none.
      if (mode === "on") {
        periodic ??= this.event(rv, false);
        w.tryAddBookmark(periodic, false);
      }
      w.nextBookmarkAt = this.nextAfterTick(w, now);
    }
  }
}
