// Awaiting work that itself waits on a FakeClock (a simulator with virtual request latency): the clock has to be
// advanced for it to finish, and nobody else is advancing it.
import { type FakeClock, settle } from "@informer-ts/clock";

/**
 * Resolves with `work`'s value once it settles, advancing `clock` from one due timer to the next meanwhile (so a
 * request that sleeps its virtual latency on the clock completes). Rejects with `work`'s error; rejects with an
 * error naming `label` when the clock has nothing left to fire while `work` is still pending (it waits on something
 * off the clock), instead of hanging.
 */
export async function awaitOnClock<T>(clock: FakeClock, work: Promise<T>, label: string): Promise<T> {
  let done = false;
  const watched = work.finally(() => {
    done = true;
  });
  watched.catch(() => {});
  for (;;) {
    await settle();
    if (done) return watched;
    const due = clock.nextDue();
    if (due === undefined) throw new Error(`${label}: still pending with nothing left on the virtual clock`);
    await clock.advanceTo(due);
  }
}
