/**
 * Something a {@link Manager} runs for its lifetime (controller-runtime's `manager.Runnable`): a controller, a
 * periodic job, a server. `run(signal)` starts it and settles when it has stopped; `signal` aborts when the manager
 * stops (or, for a leader-elected runnable, when this replica stops leading). Resolving early is fine — the runnable is
 * just done; rejecting (or throwing) is a failure that stops the manager.
 *
 * Differences from controller-runtime: `run(signal)` instead of `Start(ctx)` (this project's one lifecycle); the
 * optional `name` names the runnable in events and errors (a {@link Controller} has one).
 */
export interface Runnable {
  /** Names the runnable in `events$` and errors; unique per manager. Default `runnable-<index>`. */
  readonly name?: string;
  /** Runs until `signal` aborts; settles once everything it held is released. */
  run(signal: AbortSignal): Promise<void> | void;
  /** See {@link LeaderElectionRunnable}; absent means `true`, as upstream. */
  needLeaderElection?(): boolean;
}

/**
 * A runnable that says whether it needs leader election (controller-runtime's `LeaderElectionRunnable`): `true` runs
 * it only on the replica holding the lease, while it holds it; `false` on every replica, as soon as the caches have
 * synced. A runnable without the method needs leader election (upstream's default).
 */
export interface LeaderElectionRunnable extends Runnable {
  needLeaderElection(): boolean;
}

/** Whether a manager runs `runnable` only while leading: its `needLeaderElection()`, default true. */
export function needsLeaderElection(runnable: Runnable): boolean {
  return typeof runnable.needLeaderElection === "function" ? runnable.needLeaderElection() !== false : true;
}

/** A runnable of a {@link Manager} rejected (or threw) while the manager ran: the manager stopped, `run` rejects. */
export class RunnableError extends Error {
  override readonly name = "RunnableError";
  constructor(
    /** The runnable's name. */
    readonly runnable: string,
    cause: unknown,
  ) {
    super(`runnable ${runnable} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/**
 * Some runnables of a {@link Manager} did not stop within its `gracefulShutdownTimeout` (upstream's "failed waiting for
 * all runnables to end within grace period"); `runnables` names them. The manager released everything else.
 */
export class GracefulShutdownTimeoutError extends Error {
  override readonly name = "GracefulShutdownTimeoutError";
  constructor(
    readonly timeoutMs: number,
    /** Names of the runnables still running at the deadline. */
    readonly runnables: readonly string[],
  ) {
    super(
      `failed waiting for all runnables to end within grace period of ${timeoutMs} ms: still running: ${runnables.join(", ")}`,
    );
  }
}
