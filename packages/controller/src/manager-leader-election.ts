// The manager's leader-election gate: the elector a manager builds from its `leaderElection` options.
import type { Clock, Rand } from "@informer-ts/clock";
import type { Logger, MetricsProvider } from "@informer-ts/instrumentation";
import { LeaderElector } from "./leaderelection/leader-election.js";
import { LeaseLock } from "./leaderelection/lease-lock.js";
import type { ManagerLeaderElectionOptions } from "./manager.js";
import type { ObjectClient } from "./object-client.js";

/**
 * The {@link LeaderElector} of a manager configured with `le`: a Lease lock written through `client`, leading by
 * calling `onStartedLeading` with the leadership's signal. Throws a `TypeError` without a client.
 */
export function newManagerElector(
  le: ManagerLeaderElectionOptions,
  deps: {
    readonly client: ObjectClient | undefined;
    readonly clock: Clock;
    readonly rand: Rand;
    readonly metrics: MetricsProvider;
    readonly logger: Logger;
    readonly onStartedLeading: (signal: AbortSignal) => Promise<void>;
  },
): LeaderElector {
  if (deps.client === undefined) throw new TypeError("manager options: leader election needs a client");
  const identity = le.identity ?? defaultIdentity(deps.rand);
  return new LeaderElector({
    lock: new LeaseLock({ namespace: le.namespace, name: le.name, identity, client: deps.client }),
    ...(le.leaseDuration !== undefined && { leaseDuration: le.leaseDuration }),
    ...(le.renewDeadline !== undefined && { renewDeadline: le.renewDeadline }),
    ...(le.retryPeriod !== undefined && { retryPeriod: le.retryPeriod }),
    ...(le.releaseOnCancel !== undefined && { releaseOnCancel: le.releaseOnCancel }),
    ...(le.fencing !== undefined && { fencing: le.fencing }),
    name: le.name,
    clock: deps.clock,
    rand: deps.rand,
    metrics: deps.metrics,
    logger: deps.logger,
    callbacks: { onStartedLeading: deps.onStartedLeading, onStoppedLeading: () => {} },
  });
}

/** `<hostname>_<8 hex digits>`, controller-runtime's default identity. */
function defaultIdentity(rand: Rand): string {
  const host = process.env.HOSTNAME ?? "localhost";
  const suffix = Math.floor(rand.float() * 2 ** 32)
    .toString(16)
    .padStart(8, "0");
  return `${host}_${suffix}`;
}
