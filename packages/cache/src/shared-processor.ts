import { type Clock, realClock } from "@informer-ts/clock";
import type { Notification, ProcessorListener, ResourceEventHandlerRegistration } from "./processor-listener.js";

/** `minimumResyncPeriod`: a handler's non-zero resync request is raised to at least this (ms; I1, I4). */
export const minimumResyncPeriod = 1000;

/**
 * `determineResyncPeriod(desired, check)` (I4): 0 when `desired` is 0; 0 when `check` is 0 (an informer built
 * without resync never resyncs, whatever its handlers ask); otherwise `max(desired, check)`.
 */
export function determineResyncPeriod(desired: number, check: number): number {
  if (desired === 0) return 0;
  if (check === 0) return 0;
  return Math.max(desired, check);
}

/**
 * Fans notifications out to a set of {@link ProcessorListener}s (`sharedProcessor`, I8, I9).
 *
 * - {@link SharedProcessor.distribute} with `sync = false` reaches every listener; with `sync = true` only the
 *   listeners whose *syncing* flag is set. A listener joins with the flag set.
 * - {@link SharedProcessor.shouldResync} (called by the reflector's resync timer) rewrites every flag to "due at
 *   now" and moves the due listeners' next resync one period ahead; it answers whether any is due.
 * - Notifications distributed before {@link SharedProcessor.run} are buffered in each listener and delivered
 *   once it runs (client-go 1.36 waits on a condition variable for the same effect).
 * - When `run`'s signal aborts, every listener is stopped (buffered notifications dropped), the set is
 *   emptied, and `run` resolves once every in-flight callback has returned.
 *
 * Every method is one synchronous turn, as client-go's `listenersLock` sections are.
 */
export class SharedProcessor<T> {
  /** Listener → syncing flag. */
  private readonly listeners = new Map<ProcessorListener<T>, boolean>();
  private listenersStarted = false;
  private readonly clock: Clock;

  constructor(clock: Clock = realClock) {
    this.clock = clock;
  }

  /** Whether {@link SharedProcessor.run} is running (listeners added now start at once). */
  get started(): boolean {
    return this.listenersStarted;
  }

  /** Number of registered listeners. */
  get size(): number {
    return this.listeners.size;
  }

  /** The registered listeners, in registration order. */
  list(): ProcessorListener<T>[] {
    return [...this.listeners.keys()];
  }

  /** The listener behind `registration` if it is registered here, else undefined (`getListener`). */
  getListener(registration: unknown): ProcessorListener<T> | undefined {
    const listener = registration as ProcessorListener<T>;
    return this.listeners.has(listener) ? listener : undefined;
  }

  /**
   * Registers `listener` with its syncing flag set. If the processor runs, the listener's loop starts now, but
   * not its sync watch: the caller queues the initial list first and then calls `listener.watchSynced()`.
   * Returns whether the processor was running.
   */
  addListener(listener: ProcessorListener<T>): boolean {
    this.listeners.set(listener, true);
    if (this.listenersStarted) listener.run();
    return this.listenersStarted;
  }

  /**
   * Unregisters and stops the listener behind `handle`; its buffered notifications are dropped. A handle that
   * is not registered here (already removed, or another informer's) is a no-op. Returns whether it was removed.
   */
  removeListener(handle: ResourceEventHandlerRegistration): boolean {
    const listener = this.getListener(handle);
    if (listener === undefined) return false;
    this.listeners.delete(listener);
    listener.stop();
    return true;
  }

  /** Queues `notification` on every listener (`sync = false`) or on every syncing listener (`sync = true`). */
  distribute(notification: Notification<T>, sync: boolean): void {
    if (!sync) {
      for (const listener of this.listeners.keys()) listener.add(notification);
      return;
    }
    for (const [listener, syncing] of this.listeners) {
      if (syncing) listener.add(notification);
    }
  }

  /**
   * Starts every listener's delivery loop and sync watch and keeps them running until `signal` aborts; then
   * stops them all and resolves once their in-flight callbacks have returned. A processor runs once.
   */
  async run(signal: AbortSignal): Promise<void> {
    for (const listener of this.listeners.keys()) {
      listener.watchSynced();
      listener.run();
    }
    this.listenersStarted = true;
    if (!signal.aborted) {
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    }
    const stopping = [...this.listeners.keys()];
    for (const listener of stopping) listener.stop();
    this.listeners.clear();
    this.listenersStarted = false;
    await Promise.all(stopping.map((l) => l.shutdownDone()));
  }

  /**
   * `shouldResync` (I9): for every listener, syncing := (now ≥ its next resync) — always false for period 0 —
   * and each due listener's next resync moves to now + period. True when any listener is due.
   */
  shouldResync(): boolean {
    let resyncNeeded = false;
    const now = this.clock.now();
    for (const listener of this.listeners.keys()) {
      const due = listener.shouldResync(now);
      this.listeners.set(listener, due);
      if (due) {
        resyncNeeded = true;
        listener.determineNextResync(now);
      }
    }
    return resyncNeeded;
  }

  /** The informer's resync check period changed (before start): re-derive every listener's effective period. */
  resyncCheckPeriodChanged(resyncCheckPeriod: number): void {
    for (const listener of this.listeners.keys()) {
      listener.setResyncPeriod(determineResyncPeriod(listener.requestedResyncPeriod, resyncCheckPeriod));
    }
  }

  /** Whether `listener` is currently flagged to receive sync notifications (for tests and status). */
  isSyncing(listener: ProcessorListener<T>): boolean {
    return this.listeners.get(listener) ?? false;
  }
}
