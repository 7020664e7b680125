import { type FakeClock, settle } from "@informer-ts/clock";

/**
 * Advances `clock` timer by timer until `promise` settles, then returns its result (or rethrows its error).
 * Throws if the promise is still pending when no timer is left or after `maxTimers` timers.
 */
export async function runUntilSettled<T>(clock: FakeClock, promise: Promise<T>, maxTimers = 10_000): Promise<T> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await settle();
  for (let i = 0; !done; i++) {
    // Give promise chains that hop through the event loop a chance before concluding nothing is scheduled.
    for (let spins = 0; !done && spins < 1000 && clock.nextDue() === undefined; spins++) await settle();
    if (done) break;
    const due = clock.nextDue();
    if (due === undefined || i >= maxTimers) {
      throw new Error(
        `runUntilSettled: promise still pending with ${due === undefined ? "no timer" : `${i} timers run`}`,
      );
    }
    await clock.advanceTo(due);
  }
  return promise;
}
