// The work queue a client-node user writes by hand, shared by the controller-over-HTTP child and the burst harness of
// `pnpm bench instructions` (the reference both measure informer-ts's Controller against).

/**
 * A deduplicating work queue as a client-node user writes it: a FIFO of keys, a dirty set (queued or changed while in
 * flight) and a processing set (a key is never handed to two workers), one waiting worker woken on add.
 */
export class HandWrittenQueue {
  private items: string[] = [];
  private head = 0;
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private wake: (() => void) | undefined;
  private closed = false;

  add(key: string): void {
    if (this.closed || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.items.push(key);
    this.wake?.();
  }

  /** The next key, or `undefined` once closed. */
  async get(): Promise<string | undefined> {
    while (this.head === this.items.length) {
      if (this.closed) return undefined;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = undefined;
    }
    const key = this.items[this.head++]!;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    this.dirty.delete(key);
    this.processing.add(key);
    return key;
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) {
      this.items.push(key);
      this.wake?.();
    }
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }
}
