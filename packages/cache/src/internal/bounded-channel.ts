/**
 * A single-producer, single-consumer channel with Go semantics for a buffered `chan T` of capacity `capacity`
 * (0 = unbuffered): `send` resolves once the value is in the buffer or handed to a waiting receiver; `receive`
 * resolves with the next value, or `undefined` once the channel is closed and drained.
 *
 * Slots are released as soon as a value is received, so the channel never keeps a consumed value alive.
 */
export class BoundedChannel<T> {
  private readonly buffer: T[] = [];
  private closed = false;
  private receiver: ((v: { value: T } | undefined) => void) | undefined;
  /** A sender blocked because the buffer is full (or, unbuffered, because no receiver waits). */
  private sender: { value: T; resolve: (accepted: boolean) => void } | undefined;

  constructor(private readonly capacity: number) {}

  /**
   * Resolves `true` once `value` is accepted, or `false` if the channel was closed first (the value is dropped).
   * At most one pending send at a time (single producer).
   */
  send(value: T): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    const receiver = this.receiver;
    if (receiver !== undefined) {
      this.receiver = undefined;
      receiver({ value });
      return Promise.resolve(true);
    }
    if (this.buffer.length < this.capacity) {
      this.buffer.push(value);
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      this.sender = { value, resolve };
    });
  }

  /** The next value, or `undefined` when closed and empty. At most one pending receive at a time. */
  receive(): Promise<{ value: T } | undefined> {
    if (this.buffer.length > 0) {
      const value = this.buffer.shift() as T;
      this.admitSender();
      return Promise.resolve({ value });
    }
    const sender = this.sender;
    if (sender !== undefined) {
      this.sender = undefined;
      sender.resolve(true);
      return Promise.resolve({ value: sender.value });
    }
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.receiver = resolve;
    });
  }

  /** Closes the channel: a blocked sender gets `false`, a waiting receiver gets `undefined`. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const sender = this.sender;
    this.sender = undefined;
    sender?.resolve(false);
    const receiver = this.receiver;
    this.receiver = undefined;
    receiver?.(undefined);
  }

  /** Drops buffered values (used when the consumer gives up). */
  drain(): void {
    this.buffer.length = 0;
  }

  private admitSender(): void {
    const sender = this.sender;
    if (sender === undefined || this.buffer.length >= this.capacity) return;
    this.sender = undefined;
    this.buffer.push(sender.value);
    sender.resolve(true);
  }
}
