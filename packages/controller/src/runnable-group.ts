// The manager's runnables once started: each one's settling tracked, a group awaited until all of it has stopped.
import type { Runnable } from "./runnable.js";

/** A started runnable: settles (never rejects) once the runnable has; `settled` says whether it has. */
export interface Started {
  readonly name: string;
  readonly done: Promise<void>;
  settled: boolean;
}

/**
 * Starts `runnable` on `signal`. A throw or rejection is handed to `onError` (once); the returned {@link Started}
 * never rejects.
 */
export function startRunnable(
  name: string,
  runnable: Runnable,
  signal: AbortSignal,
  onError: (err: unknown) => void,
): Started {
  let ran: Promise<void>;
  try {
    ran = Promise.resolve(runnable.run(signal));
  } catch (err) {
    ran = Promise.reject(err);
  }
  const started: Started = {
    name,
    settled: false,
    done: ran.then(
      () => {
        started.settled = true;
      },
      (err: unknown) => {
        started.settled = true;
        onError(err);
      },
    ),
  };
  return started;
}

/** Resolves once every runnable of `group` has stopped, including those added to it meanwhile. */
export async function allStopped(group: readonly Started[]): Promise<void> {
  for (;;) {
    const pending = group.filter((r) => !r.settled);
    if (pending.length === 0) return;
    await Promise.all(pending.map((r) => r.done));
  }
}

/** Resolves when `signal` aborts (the caller makes sure it does). */
export function abortedOf(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
