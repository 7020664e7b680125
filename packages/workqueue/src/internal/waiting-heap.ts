/** One delayed item (client-go's `waitFor`). */
export interface WaitFor<T> {
  readonly item: T;
  /** Clock time (ms) at which the item is due. */
  readyAt: number;
  /** Insertion order: breaks ties between equal `readyAt` so that equal times come out FIFO. */
  readonly seq: number;
  /** Position in the heap array; -1 once popped. */
  index: number;
}

/**
 * A binary min-heap of delayed items on `(readyAt, seq)` plus a map item → entry (client-go's
 * `waitForPriorityQueue` and `waitingEntryByData`). A popped slot is removed from the array, and the array is
 * rebuilt smaller after a large drain so it does not pin a burst-sized backing store.
 */
export class WaitingHeap<T> {
  private heap: WaitFor<T>[] = [];
  private readonly byItem = new Map<T, WaitFor<T>>();
  private seq = 0;
  /** Largest size since the last compaction, to detect a drained burst. */
  private highWater = 0;

  get length(): number {
    return this.heap.length;
  }

  /** The earliest entry, or undefined when empty. */
  peek(): WaitFor<T> | undefined {
    return this.heap[0];
  }

  /**
   * Adds `item` due at `readyAt`, or moves an existing entry earlier (never later). Returns true when the
   * head of the heap changed.
   */
  insert(item: T, readyAt: number): boolean {
    const existing = this.byItem.get(item);
    if (existing !== undefined) {
      if (readyAt >= existing.readyAt) return false;
      existing.readyAt = readyAt;
      this.up(existing.index);
      return existing.index === 0;
    }
    const entry: WaitFor<T> = { item, readyAt, seq: this.seq++, index: this.heap.length };
    this.heap.push(entry);
    this.byItem.set(item, entry);
    this.up(entry.index);
    if (this.heap.length > this.highWater) this.highWater = this.heap.length;
    return entry.index === 0;
  }

  /** Removes and returns the earliest entry. */
  pop(): WaitFor<T> | undefined {
    const h = this.heap;
    const top = h[0];
    if (top === undefined) return undefined;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      last.index = 0;
      this.down(0);
    }
    top.index = -1;
    this.byItem.delete(top.item);
    if (this.highWater > 1024 && h.length < this.highWater >>> 2) {
      // V8 keeps a shrunk array's old backing store; a copy releases it.
      this.heap = h.slice();
      this.highWater = h.length;
    }
    return top;
  }

  /** Forgets every entry. */
  clear(): void {
    this.heap = [];
    this.byItem.clear();
    this.highWater = 0;
  }

  private less(a: WaitFor<T>, b: WaitFor<T>): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  private up(i: number): void {
    const h = this.heap;
    const entry = h[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = h[parent]!;
      if (!this.less(entry, p)) break;
      h[i] = p;
      p.index = i;
      i = parent;
    }
    h[i] = entry;
    entry.index = i;
  }

  private down(i: number): void {
    const h = this.heap;
    const n = h.length;
    const entry = h[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let m = l;
      if (r < n && this.less(h[r]!, h[l]!)) m = r;
      const child = h[m]!;
      if (!this.less(child, entry)) break;
      h[i] = child;
      child.index = i;
      i = m;
    }
    h[i] = entry;
    entry.index = i;
  }
}
