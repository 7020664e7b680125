// The buffer between a processor listener's producer and its delivery loop (client-go's buffer.RingGrowing).

/**
 * A growable, shrinkable FIFO ring of notifications. Popped slots are cleared so delivered objects can be
 * collected; capacity doubles when full and halves whenever occupancy falls to a quarter, never below the
 * initial capacity (client-go's `RingGrowing` never shrinks).
 */
export class NotificationRing<T> {
  private buf: (T | undefined)[];
  private head = 0;
  private count = 0;

  constructor(private readonly minCapacity: number) {
    this.buf = new Array<T | undefined>(minCapacity);
  }

  get size(): number {
    return this.count;
  }

  get capacity(): number {
    return this.buf.length;
  }

  push(item: T): void {
    if (this.count === this.buf.length) this.resize(this.buf.length * 2);
    this.buf[(this.head + this.count) % this.buf.length] = item;
    this.count++;
  }

  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.buf[this.head];
    this.buf[this.head] = undefined;
    this.head = (this.head + 1) % this.buf.length;
    this.count--;
    if (this.buf.length > this.minCapacity && this.count <= this.buf.length / 4) {
      this.resize(Math.max(this.minCapacity, this.buf.length / 2));
    }
    return item;
  }

  clear(): void {
    this.buf = new Array<T | undefined>(this.minCapacity);
    this.head = 0;
    this.count = 0;
  }

  private resize(capacity: number): void {
    const next = new Array<T | undefined>(capacity);
    for (let i = 0; i < this.count; i++) next[i] = this.buf[(this.head + i) % this.buf.length];
    this.buf = next;
    this.head = 0;
  }
}
