/** Initial ring capacity. A power of two. */
const MIN_CAPACITY = 16;
/**
 * The ring only shrinks while larger than this (a power of two): a queue that cycles through bursts of up to
 * a thousand items keeps one 8 KiB array instead of reallocating it on every burst.
 */
const SHRINK_FLOOR = 1024;

/**
 * A FIFO ring buffer that releases what it no longer holds.
 *
 * The capacity is a power of two so that positions wrap with a mask. A popped slot is overwritten with
 * `undefined` at once, so the deque never keeps a popped item reachable (client-go zeroes popped slots for
 * the same reason). The ring doubles when full and, above 1024 slots, halves when it is at most a quarter
 * full, so a burst of a million items does not pin a million-slot array after it drains.
 */
export class Deque<T> {
  private ring: (T | undefined)[];
  /** `ring.length - 1`; the ring length is a power of two. */
  private mask: number;
  private head = 0;
  private size = 0;

  constructor() {
    this.ring = new Array<T | undefined>(MIN_CAPACITY).fill(undefined);
    this.mask = MIN_CAPACITY - 1;
  }

  /** Number of items held. */
  get length(): number {
    return this.size;
  }

  /** Current slot count (for tests that check shrinking). */
  get capacity(): number {
    return this.ring.length;
  }

  /** Appends `item` at the tail. */
  push(item: T): void {
    if (this.size > this.mask) this.resize((this.mask + 1) * 2);
    this.ring[(this.head + this.size) & this.mask] = item;
    this.size++;
  }

  /** Removes and returns the head; `undefined` when empty. The vacated slot is cleared. */
  shift(): T | undefined {
    if (this.size === 0) return undefined;
    const item = this.ring[this.head];
    this.ring[this.head] = undefined;
    this.head = (this.head + 1) & this.mask;
    this.size--;
    if (this.mask >= SHRINK_FLOOR && this.size <= (this.mask + 1) >>> 2) this.resize((this.mask + 1) >>> 1);
    return item;
  }

  /** The head without removing it; `undefined` when empty. */
  peek(): T | undefined {
    return this.size === 0 ? undefined : this.ring[this.head];
  }

  /** Drops every item and returns to the minimum capacity. */
  clear(): void {
    this.ring = new Array<T | undefined>(MIN_CAPACITY).fill(undefined);
    this.mask = MIN_CAPACITY - 1;
    this.head = 0;
    this.size = 0;
  }

  /** The items from head to tail (a copy). */
  toArray(): T[] {
    const out: T[] = [];
    for (let i = 0; i < this.size; i++) out.push(this.ring[(this.head + i) & this.mask] as T);
    return out;
  }

  private resize(capacity: number): void {
    const next = new Array<T | undefined>(capacity).fill(undefined);
    for (let i = 0; i < this.size; i++) next[i] = this.ring[(this.head + i) & this.mask];
    this.ring = next;
    this.mask = capacity - 1;
    this.head = 0;
  }
}
