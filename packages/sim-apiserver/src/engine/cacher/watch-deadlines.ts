import type { Clock, Timer } from "@informer-ts/clock";

/** What {@link WatchDeadlines} needs of a watcher: its deadline and a slot the heap keeps its position in. */
export interface DeadlineHolder {
  /** Increases with registration order: breaks ties between equal deadlines. */
  readonly id: number;
  /** Clock ms of the deadline. */
  readonly deadline: number;
  /** Position in the deadline heap; -1 when not in it. Owned by {@link WatchDeadlines}. */
  deadlineSlot: number;
}

/**
 * The watch deadlines of one cacher (kube-apiserver's per-watch `timeoutSeconds` timer, `cacheWatcher`'s
 * `timer`): one clock timer for the earliest deadline instead of one per watch, over a binary min-heap of the
 * watchers ordered by (deadline, id: registration order). Each watcher keeps its own heap position, so a watcher that
 * closes early leaves the heap in O(log n) and holds nothing of it afterwards. An idle watch costs one array slot
 * here, not a timer, its callback and a map entry.
 *
 * Expired watchers are handed to `expire` in deadline order, ties in registration order (as one timer each would
 * fire them under a fake clock).
 *
 * The workqueue's delaying heap (`@informer-ts/workqueue`'s internal `WaitingHeap`) is not shared: it keys entries
 * by item in a map and has no removal, which is what an early close needs.
 */
export class WatchDeadlines<W extends DeadlineHolder> {
  private heap: W[] = [];
  private timer: Timer | undefined;
  private timerAt = Number.POSITIVE_INFINITY;

  constructor(
    private readonly clock: Clock,
    private readonly expire: (w: W) => void,
  ) {}

  get size(): number {
    return this.heap.length;
  }

  /** Adds a watcher whose `deadline` is set. */
  add(w: W): void {
    w.deadlineSlot = this.heap.length;
    this.heap.push(w);
    this.up(w.deadlineSlot);
    this.arm();
  }

  /** Removes a watcher (closed before its deadline); a no-op for one not in the heap. */
  remove(w: W): void {
    const i = w.deadlineSlot;
    if (i < 0 || this.heap[i] !== w) return;
    w.deadlineSlot = -1;
    const last = this.heap.pop()!;
    if (last !== w) {
      this.heap[i] = last;
      last.deadlineSlot = i;
      this.down(i);
      this.up(last.deadlineSlot);
    }
    if (this.heap.length === 0) this.stop();
    else this.arm();
  }

  /** Stops the timer (the cacher stops); the watchers stay. */
  stop(): void {
    this.timer?.stop();
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
  }

  /** Arms the timer for the earliest deadline unless it is already armed for it (or earlier). */
  private arm(): void {
    const head = this.heap[0];
    if (head === undefined) return;
    if (this.timer !== undefined && this.timerAt <= head.deadline) return;
    this.timer?.stop();
    this.timerAt = head.deadline;
    this.timer = this.clock.afterFunc(Math.max(0, head.deadline - this.clock.now()), () => this.fire());
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = this.clock.now();
    for (let head = this.heap[0]; head !== undefined && head.deadline <= now; head = this.heap[0]) {
      this.remove(head);
      this.expire(head);
    }
    this.arm();
  }

  private less(a: W, b: W): boolean {
    return a.deadline < b.deadline || (a.deadline === b.deadline && a.id < b.id);
  }

  private up(i: number): void {
    const h = this.heap;
    const w = h[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = h[parent]!;
      if (!this.less(w, p)) break;
      h[i] = p;
      p.deadlineSlot = i;
      i = parent;
    }
    h[i] = w;
    w.deadlineSlot = i;
  }

  private down(i: number): void {
    const h = this.heap;
    const n = h.length;
    const w = h[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const m = r < n && this.less(h[r]!, h[l]!) ? r : l;
      const child = h[m]!;
      if (!this.less(child, w)) break;
      h[i] = child;
      child.deadlineSlot = i;
      i = m;
    }
    h[i] = w;
    w.deadlineSlot = i;
  }
}
