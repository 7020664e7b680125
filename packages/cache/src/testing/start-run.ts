/** A run started by {@link startRun}. */
export interface RunHandle {
  /** The signal the run was given. */
  readonly signal: AbortSignal;
  /** The run's promise (resolves once the component has released everything). */
  readonly done: Promise<void>;
  /** True once {@link RunHandle.stop} was called. */
  readonly stopped: boolean;
  /** Aborts the run and waits until it has released everything. */
  stop(): Promise<void>;
}

/**
 * Starts `component.run(signal)` with a fresh AbortController and returns a
 * handle that stops it: the test-side form of "the subscription is the run" for `run(signal): Promise<void>`.
 * The run's rejection, if any, surfaces from `stop()` and `done`.
 */
export function startRun(component: { run(signal: AbortSignal): Promise<void> }): RunHandle {
  const controller = new AbortController();
  const done = component.run(controller.signal);
  // Observed here so that a rejection before stop() is never reported as unhandled; stop() rethrows it.
  done.catch(() => {});
  return {
    signal: controller.signal,
    done,
    get stopped() {
      return controller.signal.aborted;
    },
    stop() {
      controller.abort();
      return done;
    },
  };
}
