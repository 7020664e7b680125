/** The handle of {@link setupSignalHandler}. */
export interface SignalHandler {
  /** Aborted on the first SIGTERM or SIGINT. */
  readonly signal: AbortSignal;
  /** Removes the process listeners. */
  dispose(): void;
}

/**
 * controller-runtime's `signals.SetupSignalHandler`: an `AbortSignal` aborted on the first SIGTERM or SIGINT (the reason
 * names the signal). A second signal calls `onSecondSignal` — by default `process.exit(1)`, as controller-runtime does —
 * so an operator can still force a stuck shutdown. Opt-in: nothing listens to signals unless this is called.
 */
export function setupSignalHandler(
  options: {
    readonly onSecondSignal?: (signal: NodeJS.Signals) => void;
    readonly signals?: readonly NodeJS.Signals[];
  } = {},
): SignalHandler {
  const ac = new AbortController();
  const signals = options.signals ?? ["SIGTERM", "SIGINT"];
  const onSecond = options.onSecondSignal ?? (() => process.exit(1));
  const listeners = signals.map((sig) => {
    const listener = () => {
      if (!ac.signal.aborted) ac.abort(new Error(`received ${sig}: shutting down`));
      else onSecond(sig);
    };
    process.on(sig, listener);
    return [sig, listener] as const;
  });
  return {
    signal: ac.signal,
    dispose: () => {
      for (const [sig, listener] of listeners) process.off(sig, listener);
    },
  };
}
