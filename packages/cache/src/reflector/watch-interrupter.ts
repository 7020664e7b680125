// A one-shot interruption of the reflector's current watch (stop, resync error, inactivity, initial-events timeout).

/** Why `handleAnyWatch` was told to give up on a watch from outside the stream. */
export type WatchInterrupt =
  | { readonly reason: "stopped" }
  | { readonly reason: "resync-error"; readonly error: unknown }
  | { readonly reason: "inactive" }
  | { readonly reason: "initial-events-timeout" };

/**
 * A one-shot interruption of the current watch: the first `fire` wins and is delivered to whoever waits (a
 * single waiter slot, so a long watch never piles up promise reactions).
 */
export class WatchInterrupter {
  private fired: WatchInterrupt | undefined;
  private waiter: ((i: WatchInterrupt) => void) | undefined;

  get interrupt(): WatchInterrupt | undefined {
    return this.fired;
  }

  fire(interrupt: WatchInterrupt): void {
    if (this.fired !== undefined) return;
    this.fired = interrupt;
    const w = this.waiter;
    this.waiter = undefined;
    w?.(interrupt);
  }

  /** Resolves with `p`'s value, or with the interrupt if one fires first. `p`'s late rejection is swallowed. */
  race<V>(p: Promise<V>): Promise<{ value: V } | { interrupt: WatchInterrupt }> {
    if (this.fired !== undefined) {
      p.catch(() => {});
      return Promise.resolve({ interrupt: this.fired });
    }
    return new Promise((resolve, reject) => {
      let done = false;
      this.waiter = (interrupt) => {
        if (done) return;
        done = true;
        resolve({ interrupt });
      };
      p.then(
        (value) => {
          if (done) return;
          done = true;
          this.waiter = undefined;
          resolve({ value });
        },
        (err: unknown) => {
          if (done) return;
          done = true;
          this.waiter = undefined;
          reject(err);
        },
      );
    });
  }
}
