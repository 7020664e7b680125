import { type SchedulerAction, type SchedulerLike, Subscription } from "rxjs";
import type { Clock, Timer } from "./clock.js";

class ClockAction<T> extends Subscription implements SchedulerAction<T> {
  private timer: Timer | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly work: (this: SchedulerAction<T>, state?: T) => void,
  ) {
    super(() => {
      this.timer?.stop();
      this.timer = undefined;
    });
  }

  schedule(state?: T, delay = 0): Subscription {
    if (this.closed) return this;
    this.timer?.stop();
    this.timer = this.clock.afterFunc(delay, () => {
      this.timer = undefined;
      if (this.closed) return;
      try {
        this.work.call(this, state);
      } catch (err) {
        this.unsubscribe();
        throw err;
      }
    });
    return this;
  }
}

/**
 * An RxJS scheduler whose `now()` and delays come from a {@link Clock}. Pass it to `timer`, `interval`,
 * `delay`, `debounceTime`, `timeout`… so those operators follow virtual time under {@link FakeClock}.
 *
 * `retry({ delay: ms })` with a number always uses RxJS's own async scheduler; give it
 * `delay: () => timer(ms, clockScheduler(clock))` instead.
 */
export function clockScheduler(clock: Clock): SchedulerLike {
  return {
    now: () => clock.now(),
    schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
      return new ClockAction<T>(clock, work).schedule(state, delay);
    },
  };
}
