import { objectFieldSet, type WatchEvent } from "@informer-ts/apimachinery";
import type { Clock, Timer } from "@informer-ts/clock";
import { groupResourceString, type SimResource } from "../resources.js";
import { CacheEvent } from "../storage/index.js";
import type { CacheWatcher, WatchCloseReason } from "./cache-watcher.js";
import { TimeBudget } from "./time-budget.js";
import { WatchDeadlines } from "./watch-deadlines.js";

/** An event for the watchers, or a progress notification (moves the RV bookmarks carry). */
export type Incoming = CacheEvent | { readonly progress: number };

/** What the dispatcher reports. */
export interface DispatcherHooks {
  onWatcherTerminated(resource: SimResource, message: string): void;
  onWatcherCountChanged(resource: SimResource, delta: number): void;
  onEventsDispatched(resource: SimResource, deliveries: number): void;
  /** A watcher was registered (its bookmarks are scheduled). */
  onRegistered(w: CacheWatcher): void;
}

/**
 * The cacher's watchers and its dispatcher (`dispatchEvents`/`dispatchEvent` of kube-apiserver's `Cacher`): the
 * registered watchers (indexed by trigger value, e.g. pods by `spec.nodeName`), their deadlines, the queue of
 * incoming events, and the delivery of each event to every interested watcher without blocking when it has room;
 * watchers whose buffer is full are waited on with the shared {@link TimeBudget}, and those still full when it runs
 * out are closed as unresponsive. Later events queue while it waits.
 */
export class CacheDispatcher {
  readonly watchers = new Set<CacheWatcher>();
  /** The RV of the last event or progress notification handed out. */
  lastDispatchedRV = 0;
  /** Watchers closed for unresponsiveness since start. */
  terminatedWatchers = 0;
  private readonly byTrigger = new Map<string, Set<CacheWatcher>>();
  private readonly untriggered = new Set<CacheWatcher>();
  /** One timer for every watcher's deadline (`watch-deadlines.ts`), not one each. */
  private readonly deadlines: WatchDeadlines<CacheWatcher>;
  private readonly incoming: Incoming[] = [];
  private incomingHead = 0;
  private dispatching = false;
  private paused: { blocked: Map<CacheWatcher, WatchEvent>; timer: Timer; start: number; timeout: number } | undefined;
  private readonly budget: TimeBudget;

  constructor(
    private readonly resource: SimResource,
    private readonly clock: Clock,
    cfg: { readonly dispatchBudgetMs: number; readonly budgetRefreshMsPerSecond: number },
    private readonly hooks: DispatcherHooks,
  ) {
    this.budget = new TimeBudget(clock, cfg.dispatchBudgetMs, cfg.budgetRefreshMsPerSecond);
    this.deadlines = new WatchDeadlines<CacheWatcher>(clock, (w) => w.close("timeout", false));
  }

  /** Remaining dispatch budget (ms). */
  get budgetAvailable(): number {
    return this.budget.available();
  }

  /** Forgets queued input and starts over at `rv` (a relist). */
  reset(rv: number): void {
    this.lastDispatchedRV = rv;
    this.incoming.length = 0;
    this.incomingHead = 0;
  }

  /** Queues an event or progress notification and dispatches what it can. */
  push(item: Incoming): void {
    this.incoming.push(item);
    this.dispatch();
  }

  /** Adds a watcher (and its deadline after `timeoutSeconds`). */
  register(w: CacheWatcher, timeoutSeconds: number | undefined): void {
    this.watchers.add(w);
    if (w.triggerValue !== undefined) {
      let set = this.byTrigger.get(w.triggerValue);
      if (set === undefined) {
        set = new Set();
        this.byTrigger.set(w.triggerValue, set);
      }
      set.add(w);
    } else this.untriggered.add(w);
    this.hooks.onWatcherCountChanged(this.resource, 1);
    if (timeoutSeconds !== undefined && timeoutSeconds > 0) {
      w.deadline = this.clock.now() + timeoutSeconds * 1000;
      this.deadlines.add(w);
    }
    this.hooks.onRegistered(w);
  }

  /** A watcher closed (for whatever reason): forget it, and stop waiting for it. */
  onWatcherClosed(w: CacheWatcher, _reason: WatchCloseReason): void {
    if (!this.watchers.delete(w)) return;
    if (w.triggerValue !== undefined) {
      const set = this.byTrigger.get(w.triggerValue);
      set?.delete(w);
      if (set?.size === 0) this.byTrigger.delete(w.triggerValue);
    } else this.untriggered.delete(w);
    this.deadlines.remove(w);
    this.hooks.onWatcherCountChanged(this.resource, -1);
    if (this.paused?.blocked.delete(w) === true) this.maybeResume();
  }

  /** A watcher made room in its buffer: hand it the event it was blocked on. */
  onRoom(w: CacheWatcher): void {
    const p = this.paused;
    if (p === undefined) return;
    const e = p.blocked.get(w);
    if (e === undefined) return;
    // Delivering may free more room and re-enter; remove first.
    p.blocked.delete(w);
    if (!w.tryAdd(e)) p.blocked.set(w, e);
    this.maybeResume();
  }

  /** Stops waiting for blocked watchers (the cacher stops). */
  stop(): void {
    this.deadlines.stop();
    this.paused?.timer.stop();
    this.paused = undefined;
  }

  /**
   * How many watchers an event of an object with this trigger value would be offered to: every watcher that does not
   * select on the trigger, plus those selecting this value (APF's interested-watch count for a write).
   */
  interestedCount(triggerValue: string | undefined): number {
    const n = this.untriggered.size;
    return triggerValue === undefined ? n : n + (this.byTrigger.get(triggerValue)?.size ?? 0);
  }

  private candidates(ce: CacheEvent): Iterable<CacheWatcher> {
    const trigger = this.resource.trigger;
    if (trigger === undefined || this.byTrigger.size === 0) return this.untriggered;
    const out = new Set<CacheWatcher>(this.untriggered);
    for (const o of [ce.ev.object, ce.ev.prevObject]) {
      if (o === undefined) continue;
      const v = objectFieldSet(o, [trigger])[trigger] ?? "";
      const set = this.byTrigger.get(v);
      if (set !== undefined) for (const w of set) out.add(w);
    }
    return out;
  }

  private dispatch(): void {
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      while (this.paused === undefined && this.incomingHead < this.incoming.length) {
        const item = this.incoming[this.incomingHead++]!;
        if (this.incomingHead === this.incoming.length) {
          this.incoming.length = 0;
          this.incomingHead = 0;
        }
        if (!(item instanceof CacheEvent)) {
          this.lastDispatchedRV = item.progress;
          continue;
        }
        this.lastDispatchedRV = item.rev;
        let deliveries = 0;
        let blocked: Map<CacheWatcher, WatchEvent> | undefined;
        for (const w of this.candidates(item)) {
          const e = w.convert(item);
          if (e === undefined) continue;
          deliveries++;
          if (w.tryAdd(e)) continue;
          blocked ??= new Map();
          blocked.set(w, e);
        }
        if (deliveries > 0) this.hooks.onEventsDispatched(this.resource, deliveries);
        if (blocked !== undefined) this.block(blocked);
      }
    } finally {
      this.dispatching = false;
    }
  }

  // Some watchers' input is full: wait for them with whatever budget is left, then close the ones still full.
  private block(blocked: Map<CacheWatcher, WatchEvent>): void {
    const timeout = this.budget.takeAvailable();
    if (timeout <= 0) {
      for (const w of blocked.keys()) this.terminate(w);
      return;
    }
    const timer = this.clock.afterFunc(timeout, () => {
      const p = this.paused;
      if (p === undefined || p.timer !== timer) return;
      this.paused = undefined;
      for (const w of p.blocked.keys()) this.terminate(w);
      this.dispatch();
    });
    this.paused = { blocked, timer, start: this.clock.now(), timeout };
  }

  private maybeResume(): void {
    const p = this.paused;
    if (p === undefined || p.blocked.size > 0) return;
    p.timer.stop();
    this.paused = undefined;
    this.budget.returnUnused(p.timeout - (this.clock.now() - p.start));
    this.dispatch();
  }

  private terminate(w: CacheWatcher): void {
    if (w.isClosed) return;
    const graceful = w.holdsEndBookmark;
    this.terminatedWatchers++;
    this.hooks.onWatcherTerminated(
      this.resource,
      `Forcing ${groupResourceString(this.resource)} watcher close due to unresponsiveness: ${w.description}. len(c.input) = ${w.inputLength}, len(c.result) = ${w.resultLength}, graceful = ${graceful}`,
    );
    w.close("terminated-unresponsive", graceful);
  }
}
