import { isNotFound, StatusError } from "@informer-ts/apimachinery";
import { type Clock, jitter, mathRand, type Rand, realClock, type Timer } from "@informer-ts/clock";
import {
  defaultRuntimeLogger,
  type Logger,
  type MetricsProvider,
  noopMetrics,
  safeLog,
  safeObservable,
  withFields,
} from "@informer-ts/instrumentation";
import { type Observable, Subject } from "rxjs";
import { InvalidLeaseError, type LeaderElectionRecord, type ResourceLock } from "./lease-lock.js";

/** `leaderelection.JitterFactor`: the acquire loop waits `retryPeriod · [1, 1 + 1.2)` between attempts. */
export const JitterFactor = 1.2;
/** client-go's (and controller-runtime's) defaults, in ms. */
export const DEFAULT_LEASE_DURATION = 15_000;
export const DEFAULT_RENEW_DEADLINE = 10_000;
export const DEFAULT_RETRY_PERIOD = 2_000;

/** `leaderelection.LeaderCallbacks`. */
export interface LeaderCallbacks {
  /**
   * Called once this candidate leads, with a signal aborted when it stops leading (lost renewal, or `run`'s signal).
   * Its promise is awaited by `run` before `onStoppedLeading`; a rejection is reported as an `error` event.
   */
  onStartedLeading(signal: AbortSignal): unknown;
  /** Called when `run` ends, whether or not this candidate ever led (as in client-go). */
  onStoppedLeading(): unknown;
  /** Called when the observed leader changes (also for this candidate), with the new identity. */
  onNewLeader?(identity: string): unknown;
}

/** `leaderelection.LeaderElectionConfig`; durations in ms. */
export interface LeaderElectionConfig {
  readonly lock: ResourceLock;
  /** How long non-leaders wait after observing a change before trying to take over. Default 15 000. */
  readonly leaseDuration?: number;
  /** How long the leader keeps retrying a failed renewal before it stops leading. Default 10 000. */
  readonly renewDeadline?: number;
  /** Time between attempts. Default 2 000. */
  readonly retryPeriod?: number;
  readonly callbacks: LeaderCallbacks;
  /** Give the lease up (holder "", 1 s duration) when `run`'s signal aborts, so another candidate takes over at once. */
  readonly releaseOnCancel?: boolean;
  /** The election's name: the `name` label of `leader_election_master_status`. Default the lock's description. */
  readonly name?: string;
  readonly clock?: Clock;
  readonly rand?: Rand;
  readonly metrics?: MetricsProvider;
  /**
   * Where the elector logs its transitions (acquired, new leader, lost) and the errors of its Lease requests with
   * their cause (`namespaces "nope" not found`, a 403). A failure that repeats the last one (same operation, same
   * message) is logged at `debug`, so a stuck election writes one error line, not one per retry. Default the process's
   * runtime logger; `silentLogger` turns it off.
   */
  readonly logger?: Logger;
  /**
   * Leader fencing: stop leading as soon as this candidate's own clock says the lease may have expired — the lease
   * duration since the start of the last successful renewal — even if the renewal deadline has not passed (a process
   * paused by SIGSTOP, a VM frozen, an event loop blocked). Default false: client-go's behaviour, where the leader stops
   * only when a renewal has kept failing for `renewDeadline`, so a leader that wakes up after a pause longer than the
   * lease goes on leading (its controllers reconciling) until the renewal it then starts times out or is refused.
   */
  readonly fencing?: boolean;
}

/** Why a fenced leader stopped leading: its lease may have expired by its own clock (see `fencing`). */
export class LeaseFencedError extends Error {
  override readonly name = "LeaseFencedError";
}

/** What a {@link LeaderElector} reports on `events$`. */
export type LeaderElectionEvent =
  | { readonly type: "acquired"; readonly identity: string }
  | { readonly type: "renewFailed"; readonly identity: string }
  /** With `fencing`: the lease may have expired by the local clock, so this candidate stopped leading. */
  | { readonly type: "fenced"; readonly identity: string }
  | { readonly type: "released"; readonly identity: string }
  | { readonly type: "newLeader"; readonly identity: string }
  | { readonly type: "error"; readonly op: string; readonly error: unknown };

/** `leader_election_master_status` and `leader_election_slowpath_total` (client-go's leaderelection metrics). */
export const leaderElectionMetrics = {
  masterStatus: {
    name: "leader_election_master_status",
    help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
    labelNames: ["name"],
  },
  slowpathTotal: {
    name: "leader_election_slowpath_total",
    help: "Total number of slow path exercised in renewing leader leases. 'name' is the string used to identify the lease. Please make sure to group by name.",
    labelNames: ["name"],
  },
} as const;

/**
 * Checks a config like `NewLeaderElector` and returns the effective durations; throws an `Error` naming the violated
 * rule (leaseDuration > renewDeadline > JitterFactor·retryPeriod, all ≥ 1 ms, callbacks present, identity non-empty).
 */
export function validateLeaderElectionConfig(c: LeaderElectionConfig): {
  leaseDuration: number;
  renewDeadline: number;
  retryPeriod: number;
} {
  const leaseDuration = c.leaseDuration ?? DEFAULT_LEASE_DURATION;
  const renewDeadline = c.renewDeadline ?? DEFAULT_RENEW_DEADLINE;
  const retryPeriod = c.retryPeriod ?? DEFAULT_RETRY_PERIOD;
  for (const [n, v] of [
    ["leaseDuration", leaseDuration],
    ["renewDeadline", renewDeadline],
    ["retryPeriod", retryPeriod],
  ] as const) {
    if (typeof v !== "number" || !Number.isFinite(v) || v < 1) {
      throw new RangeError(`${n} must be greater than zero (in ms), got ${String(v)}`);
    }
  }
  if (leaseDuration <= renewDeadline) throw new RangeError("leaseDuration must be greater than renewDeadline");
  if (renewDeadline <= JitterFactor * retryPeriod) {
    throw new RangeError("renewDeadline must be greater than retryPeriod*JitterFactor");
  }
  if (leaseDuration < 1000) throw new RangeError("leaseDuration must be at least 1 s: the Lease stores whole seconds");
  if (c.lock === undefined || c.lock === null) throw new TypeError("Lock must not be nil.");
  if (typeof c.lock.identity() !== "string" || c.lock.identity() === "") throw new TypeError("Lock identity is empty");
  if (typeof c.callbacks?.onStartedLeading !== "function")
    throw new TypeError("OnStartedLeading callback must not be nil");
  if (typeof c.callbacks?.onStoppedLeading !== "function")
    throw new TypeError("OnStoppedLeading callback must not be nil");
  return { leaseDuration, renewDeadline, retryPeriod };
}

/**
 * A candidate in a leader election (client-go `tools/leaderelection.LeaderElector`).
 *
 * `run(signal)`: tries to acquire the lock every `retryPeriod` (jittered by 1.2); once it leads, calls
 * `onStartedLeading(signal)` and renews every `retryPeriod`. A renewal that keeps failing for `renewDeadline` ends the
 * leadership: the leading signal aborts, `run` stops, `onStoppedLeading` is called. Expiry is judged on this candidate's
 * own clock from when it last *observed* a change of the record (never from the timestamps written by others), so
 * clock skew between candidates does not matter; since `renewDeadline` < `leaseDuration`, a leader that cannot renew
 * stops before any other candidate can take over. Writes are optimistic on the lock's resourceVersion: of two
 * candidates racing, the one answered 409 lost. With `releaseOnCancel` the lease is given up when `run`'s signal aborts.
 *
 * Errors (API failures, an unreadable Lease) are data: `error` events on `events$` and `status()`; nothing throws
 * into the host. Differences from client-go: `run` returns a promise resolved after `onStoppedLeading` returned and
 * every timer is released; `onStartedLeading` is awaited, not fire-and-forget; no coordinated leader election.
 */
export class LeaderElector {
  readonly events$: Observable<LeaderElectionEvent>;
  private readonly config: LeaderElectionConfig;
  private readonly leaseDuration: number;
  private readonly renewDeadline: number;
  private readonly retryPeriod: number;
  private readonly clock: Clock;
  private readonly rand: Rand;
  private readonly name: string;
  private readonly events = new Subject<LeaderElectionEvent>();
  private readonly masterStatus;
  private readonly slowpath;
  private observedRecord: LeaderElectionRecord = {
    holderIdentity: "",
    leaseDurationSeconds: 0,
    acquireTime: undefined,
    renewTime: undefined,
    leaderTransitions: 0,
  };
  private observedRawRecord = "";
  private observedTime = 0;
  private reportedLeader = "";
  private started = false;
  private lastError: { op: string; message: string } | undefined;
  /** `op` and message of the last failure logged at error level; a repeat is logged at debug. */
  private lastLogged: string | undefined;
  private readonly log: Logger;
  private fenceTimer: Timer | undefined;
  /** While leading: the leadership's controller and the clock time the last successful renewal started. */
  private leadership: { readonly leading: AbortController; renewedAt: number } | undefined;

  constructor(config: LeaderElectionConfig) {
    const d = validateLeaderElectionConfig(config);
    this.config = config;
    this.leaseDuration = d.leaseDuration;
    this.renewDeadline = d.renewDeadline;
    this.retryPeriod = d.retryPeriod;
    this.clock = config.clock ?? realClock;
    this.rand = config.rand ?? mathRand;
    this.name = config.name ?? config.lock.describe();
    const m = config.metrics ?? noopMetrics;
    this.masterStatus = m.gauge(leaderElectionMetrics.masterStatus);
    this.slowpath = m.counter(leaderElectionMetrics.slowpathTotal);
    this.masterStatus.set(0, { name: this.name });
    this.log = withFields(config.logger ?? defaultRuntimeLogger(), {
      logger: "leader-election",
      lease: config.lock.describe(),
      identity: config.lock.identity(),
    });
    this.events$ = safeObservable(this.events.asObservable(), `leader election ${this.name} events$`);
  }

  /** Whether the last observed record names this candidate (`IsLeader`). */
  isLeader(): boolean {
    return this.observedRecord.holderIdentity === this.config.lock.identity();
  }

  /** The last observed leader's identity, "" if none (`GetLeader`). */
  getLeader(): string {
    return this.observedRecord.holderIdentity;
  }

  /**
   * With `fencing`: whether this candidate may still act as leader at this instant by its own clock. When the lease may
   * have expired (`leaseDuration` since the start of the last successful renewal), stops leading at once — the leading
   * signal aborts before this returns — and answers false. True without fencing, and when not leading (there is no
   * leadership to fence). The {@link Manager}'s controllers ask before every reconcile, so a process resumed after a
   * pause (its timers all overdue) does not reconcile once more before the fence timer runs.
   */
  fence(): boolean {
    const l = this.leadership;
    if (this.config.fencing !== true || l === undefined) return true;
    if (l.leading.signal.aborted) return false;
    if (this.clock.now() < l.renewedAt + this.leaseDuration) return true;
    this.fenceNow(l.renewedAt, l.leading);
    return false;
  }

  /** The observed record, when it was observed (on this candidate's clock), and the last error. */
  status(): {
    identity: string;
    leader: string;
    isLeader: boolean;
    observedTime: number;
    lastError?: { op: string; message: string };
  } {
    return {
      identity: this.config.lock.identity(),
      leader: this.getLeader(),
      isLeader: this.isLeader(),
      observedTime: this.observedTime,
      ...(this.lastError !== undefined && { lastError: this.lastError }),
    };
  }

  /** Runs the election until `signal` aborts or leadership is lost (see the class contract). Once per elector. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.started) throw new Error(`leader elector ${this.name} was run more than once`);
    this.started = true;
    let leading: AbortController | undefined;
    try {
      safeLog(this.log, "info", "attempting to acquire leader lease");
      const acquiredAt = await this.acquire(signal);
      if (acquiredAt === undefined) return;
      leading = new AbortController();
      const onAbort = () => leading?.abort(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      this.masterStatus.set(1, { name: this.name });
      safeLog(this.log, "info", "successfully acquired lease");
      this.events.next({ type: "acquired", identity: this.config.lock.identity() });
      this.armFence(acquiredAt, leading);
      const led = leading;
      const callback = this.invoke("onStartedLeading", () => this.config.callbacks.onStartedLeading(led.signal));
      try {
        await this.renew(leading, signal);
      } finally {
        signal.removeEventListener("abort", onAbort);
        this.fenceTimer?.stop();
        this.leadership = undefined;
        leading.abort(new Error(`leader election ${this.name}: stopped leading`));
        this.masterStatus.set(0, { name: this.name });
        await callback;
      }
    } finally {
      if (leading !== undefined) safeLog(this.log, "info", "stopped leading");
      await this.invoke("onStoppedLeading", () => this.config.callbacks.onStoppedLeading());
      this.events.complete();
    }
  }

  /**
   * Loops until the lock is acquired or `signal` aborts (`wait.JitterUntil(…, retryPeriod, 1.2, sliding)`). Resolves
   * to the clock time the successful attempt started (the lease's renew time), `undefined` when `signal` aborted.
   */
  private async acquire(signal: AbortSignal): Promise<number | undefined> {
    while (!signal.aborted) {
      const started = this.clock.now();
      const ok = await this.tryAcquireOrRenew(signal);
      this.maybeReportTransition();
      if (ok) return started;
      if (!(await this.sleep(jitter(this.retryPeriod, JitterFactor, this.rand), signal))) return undefined;
    }
    return undefined;
  }

  /**
   * With `fencing`, (re)arms the timer that stops leading once the lease renewed at `renewedAt` may have expired
   * (`renewedAt + leaseDuration` on this candidate's clock).
   */
  private armFence(renewedAt: number, leading: AbortController): void {
    if (this.leadership?.leading === leading) this.leadership.renewedAt = renewedAt;
    else this.leadership = { leading, renewedAt };
    if (this.config.fencing !== true) return;
    this.fenceTimer?.stop();
    const left = renewedAt + this.leaseDuration - this.clock.now();
    if (left <= 0) this.fenceNow(renewedAt, leading);
    else this.fenceTimer = this.clock.afterFunc(left, () => this.fenceNow(renewedAt, leading));
  }

  /** Stops leading because the lease renewed at `renewedAt` may have expired (fencing). */
  private fenceNow(renewedAt: number, leading: AbortController): void {
    if (leading.signal.aborted) return;
    this.fenceTimer?.stop();
    safeLog(this.log, "error", "lease may have expired by the local clock: stopped leading (fencing)", {
      leaseDuration: this.leaseDuration,
      sinceLastRenewal: this.clock.now() - renewedAt,
    });
    leading.abort(
      new LeaseFencedError(
        `leader election ${this.name}: the lease may have expired by the local clock (${this.clock.now() - renewedAt} ms since the last successful renewal began, lease ${this.leaseDuration} ms): stopped leading`,
      ),
    );
  }

  /**
   * Renews every `retryPeriod` while leading. Each renewal polls `tryAcquireOrRenew` every `retryPeriod` until it
   * succeeds or `renewDeadline` passes; then leadership is lost.
   */
  private async renew(leading: AbortController, outer: AbortSignal): Promise<void> {
    for (;;) {
      if (outer.aborted) break;
      if (leading.signal.aborted) {
        this.events.next({ type: "fenced", identity: this.config.lock.identity() });
        break;
      }
      const deadline = new AbortController();
      const onAbort = () => deadline.abort(outer.reason);
      const onFenced = () => deadline.abort(leading.signal.reason);
      outer.addEventListener("abort", onAbort, { once: true });
      leading.signal.addEventListener("abort", onFenced, { once: true });
      const timer = this.clock.afterFunc(this.renewDeadline, () =>
        deadline.abort(new Error(`failed to renew lease ${this.config.lock.describe()}: timed out`)),
      );
      let renewed = false;
      try {
        for (;;) {
          const started = this.clock.now();
          const attempt = this.tryAcquireOrRenew(deadline.signal);
          renewed = await Promise.race([attempt, abortedOf(deadline.signal).then(() => false)]);
          if (renewed) this.armFence(started, leading);
          if (renewed || deadline.signal.aborted) break;
          if (!(await this.sleep(this.retryPeriod, deadline.signal))) break;
        }
      } finally {
        timer.stop();
        outer.removeEventListener("abort", onAbort);
        leading.signal.removeEventListener("abort", onFenced);
      }
      this.maybeReportTransition();
      if (leading.signal.aborted && !outer.aborted) continue; // fenced: reported at the top
      if (!renewed) {
        if (!outer.aborted) {
          safeLog(this.log, "error", "failed to renew lease: renew deadline passed", {
            renewDeadline: this.renewDeadline,
            ...(this.lastError !== undefined && { lastError: this.lastError.message }),
          });
          this.events.next({ type: "renewFailed", identity: this.config.lock.identity() });
        }
        leading.abort(new Error(`leader election ${this.name}: lost the lease (renew deadline passed)`));
        break;
      }
      // On the leading signal: it aborts with `outer`, and when fenced.
      if (!(await this.sleep(this.retryPeriod, leading.signal))) continue;
    }
    if (this.config.releaseOnCancel === true) await this.release();
  }

  /** Gives the lease up if this candidate holds it (`release`). */
  private async release(): Promise<boolean> {
    if (!this.isLeader()) return true;
    const ac = new AbortController();
    const timer = this.clock.afterFunc(this.renewDeadline, () => ac.abort(new Error("release timed out")));
    const now = this.clock.now();
    const record: LeaderElectionRecord = {
      holderIdentity: "",
      leaseDurationSeconds: 1,
      acquireTime: now,
      renewTime: now,
      leaderTransitions: this.observedRecord.leaderTransitions,
    };
    try {
      await this.config.lock.update(record, ac.signal);
      this.setObservedRecord(record);
      this.events.next({ type: "released", identity: this.config.lock.identity() });
      return true;
    } catch (err) {
      this.reportError("release", err);
      return false;
    } finally {
      timer.stop();
    }
  }

  /**
   * One attempt (`tryAcquireOrRenew`): the leader's fast path updates the lock directly; otherwise get (create if
   * absent), refuse while another holder's lease is valid by our observation, then update. True when this candidate
   * holds the lock afterwards.
   */
  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const lock = this.config.lock;
    const now = this.clock.now();
    let record: LeaderElectionRecord = {
      holderIdentity: lock.identity(),
      leaseDurationSeconds: Math.floor(this.leaseDuration / 1000),
      renewTime: now,
      acquireTime: now,
      leaderTransitions: 0,
    };
    // 1. Fast path for the leader.
    if (this.isLeader() && this.isLeaseValid(now)) {
      const old = this.observedRecord;
      const renewed = { ...record, acquireTime: old.acquireTime, leaderTransitions: old.leaderTransitions };
      try {
        await lock.update(renewed, signal);
        this.setObservedRecord(renewed);
        this.lastLogged = undefined;
        return true;
      } catch (err) {
        this.reportError("renew", err);
        this.slowpath.inc({ name: this.name });
      }
    }
    // 2. Obtain or create the lock.
    let got: { record: LeaderElectionRecord; raw: string };
    try {
      got = await lock.get(signal);
    } catch (err) {
      if (!isNotFound(err)) {
        this.reportError("get", err);
        return false;
      }
      try {
        await lock.create(record, signal);
      } catch (createErr) {
        this.reportError("create", createErr);
        return false;
      }
      this.setObservedRecord(record);
      this.lastLogged = undefined;
      return true;
    }
    // 3. Record obtained: note changes, respect a valid lease held by another.
    if (got.raw !== this.observedRawRecord) {
      this.setObservedRecord(got.record, got.raw);
      if (got.record.holderIdentity !== "" && got.record.leaseDurationSeconds === 0) {
        this.reportError(
          "get",
          new InvalidLeaseError(
            `lease ${lock.describe()}: spec.leaseDurationSeconds is 0 (held by ${JSON.stringify(got.record.holderIdentity)}): treated as expired`,
          ),
        );
      }
    }
    if (got.record.holderIdentity !== "" && this.isLeaseValid(now) && !this.isLeader()) {
      this.lastLogged = undefined;
      safeLog(this.log, "debug", "lock is held by another candidate and has not yet expired", {
        holder: got.record.holderIdentity,
      });
      return false;
    }
    // 4. Take over or renew.
    if (this.isLeader()) {
      record = { ...record, acquireTime: got.record.acquireTime, leaderTransitions: got.record.leaderTransitions };
    } else {
      record = { ...record, leaderTransitions: got.record.leaderTransitions + 1 };
    }
    try {
      await lock.update(record, signal);
    } catch (err) {
      this.reportError("update", err);
      return false;
    }
    this.setObservedRecord(record);
    this.lastLogged = undefined;
    return true;
  }

  private isLeaseValid(now: number): boolean {
    return this.observedTime + this.observedRecord.leaseDurationSeconds * 1000 > now;
  }

  private setObservedRecord(record: LeaderElectionRecord, raw = JSON.stringify(record)): void {
    this.observedRecord = record;
    this.observedRawRecord = raw;
    this.observedTime = this.clock.now();
  }

  private maybeReportTransition(): void {
    const holder = this.observedRecord.holderIdentity;
    if (holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    if (holder !== "") safeLog(this.log, "info", "new leader elected", { leader: holder });
    this.events.next({ type: "newLeader", identity: holder });
    const cb = this.config.callbacks.onNewLeader;
    if (cb !== undefined) void this.invoke("onNewLeader", () => cb(holder));
  }

  private reportError(op: string, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.lastError = { op, message };
    const signature = `${op}\u0000${message}`;
    const level = signature === this.lastLogged ? "debug" : "error";
    this.lastLogged = signature;
    safeLog(this.log, level, errorMessages[op] ?? `leader election callback ${op} failed`, {
      error: message,
      ...(error instanceof StatusError && { code: error.code, reason: error.reason }),
    });
    this.events.next({ type: "error", op, error });
  }

  private async invoke(op: string, fn: () => unknown): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.reportError(op, err);
    }
  }

  /** Sleeps on the clock; false when `signal` aborted first. */
  private async sleep(ms: number, signal: AbortSignal): Promise<boolean> {
    try {
      await this.clock.sleep(ms, signal);
      return true;
    } catch {
      return false;
    }
  }
}

/** client-go's log message of each failing operation. */
const errorMessages: Readonly<Record<string, string>> = {
  get: "error retrieving resource lock",
  create: "error initially creating leader election record",
  update: "Failed to update lock",
  renew: "Failed to update lock optimistically, falling back to slow path",
  release: "Failed to release lock",
};

function abortedOf(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
