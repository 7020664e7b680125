import { errnoOf, isConnectionRefused, isConnectionReset, isNetworkTimeout, statusOf } from "@informer-ts/apimachinery";
import type { Clock } from "@informer-ts/clock";
import {
  defaultSubscriberErrorReporter,
  EventStream,
  type SubscriberErrorReporter,
  safeObservable,
} from "@informer-ts/instrumentation";
import { Observable, Subject } from "rxjs";
import type { ListerWatcherTarget } from "../listwatch.js";

/**
 * What a reflector is doing right now.
 * - `idle`: constructed, never run;
 * - `listing`: a LIST (possibly paginated) is in flight;
 * - `watch-listing`: a watch-list (`sendInitialEvents`) is priming the cache;
 * - `watching`: a watch is being opened or is streaming events;
 * - `backing-off`: waiting before the next attempt;
 * - `stopped`: its run was stopped (it may be run again).
 */
export type ReflectorPhase = "idle" | "listing" | "watch-listing" | "watching" | "backing-off" | "stopped";

/** Why the reflector had to list (or watch-list) again. */
export type RelistCause =
  /** The watch ended with HTTP 410 (Expired/Gone). */
  | "expired"
  /** A watch request was refused with "too large resource version". */
  | "too-large"
  /** The watch ended with a 500 that `maxInternalErrorRetryDuration` did not allow to retry in place. */
  | "internal-error"
  /** The watch closed within 1 s without any event. */
  | "very-short"
  /** The store's `resync()` threw. */
  | "resync-error"
  /** A watch request failed, or the watch ended, with any other error (403, 401, transport…). */
  | "watch-error"
  /** The previous LIST (or its store replace) failed. */
  | "list-error";

/** Why a watch was re-opened without a relist. */
export type RewatchCause =
  /** The server ended the stream cleanly after ≥ 1 s or ≥ 1 event (timeout). */
  | "closed"
  /** 429 TooManyRequests, after a backoff. */
  | "too-many-requests"
  /** Connection refused, after a backoff. */
  | "connection-refused"
  /** 500 within `maxInternalErrorRetryDuration`. */
  | "internal-error"
  /** Nothing arrived for the liveness deadline (`watchLiveness`; not in client-go). */
  | "inactive";

/** Counters since the reflector was created. */
export interface ReflectorCounts {
  /** LIST operations started (a paginated LIST counts once; the in-call retry with RV "" counts again). */
  readonly lists: number;
  /** Watch-list requests (`sendInitialEvents=true`). */
  readonly watchLists: number;
  /** Plain watch requests (continuing after a list or watch-list). */
  readonly watches: number;
  /** Watch-list attempts that ended in the LIST fallback. */
  readonly watchListFallbacks: number;
  readonly relists: Readonly<Record<RelistCause, number>>;
  readonly rewatches: Readonly<Record<RewatchCause, number>>;
  /** Backoff waits (between ListAndWatch runs and before retriable re-watches). */
  readonly backoffs: number;
  /** Watch events applied to a store (temporary watch-list store included). */
  readonly events: number;
  readonly bookmarks: number;
  /** Watch events skipped: wrong type or GVK, Table, missing metadata, unknown event type. */
  readonly skippedObjects: number;
  /** Store resyncs performed. */
  readonly resyncs: number;
  /** Errors recorded (each also in `lastError` and on the event stream). */
  readonly errors: number;
}

/** Machine-readable summary of an error, as kept in the reflector status and events. */
export interface ReflectorErrorInfo {
  /** The error message. */
  readonly message: string;
  /** HTTP status code when the server answered (403, 410, 429, 500…). */
  readonly code?: number;
  /** `metav1.StatusReason` when the server answered (`Forbidden`, `Expired`, `TooManyRequests`…). */
  readonly reason?: string;
  /** Node/transport error code (`ECONNREFUSED`…) when there was no HTTP answer. */
  readonly errno?: string;
  /** Seconds the server asked the client to wait, when it did. */
  readonly retryAfterSeconds?: number;
  /** Error class name (`StatusError`, `VeryShortWatchError`, `TypeError`…). */
  readonly name: string;
}

/** Builds a {@link ReflectorErrorInfo} from any thrown value (never throws). */
export function errorInfo(err: unknown): ReflectorErrorInfo {
  const status = statusOf(err);
  const name = err instanceof Error ? err.name : typeof err;
  let message: string;
  if (err instanceof Error) message = err.message;
  else if (typeof err === "string") message = err;
  else {
    try {
      message = JSON.stringify(err) ?? String(err);
    } catch {
      message = String(err);
    }
  }
  const info: { -readonly [K in keyof ReflectorErrorInfo]: ReflectorErrorInfo[K] } = { message, name };
  if (status !== undefined) {
    if (status.code !== undefined) info.code = status.code;
    if (status.reason !== undefined && status.reason !== "") info.reason = status.reason;
    const ra = status.details?.retryAfterSeconds;
    if (ra !== undefined && ra > 0) info.retryAfterSeconds = ra;
  } else {
    const errno = errnoOf(err);
    if (errno !== undefined) info.errno = errno;
  }
  return info;
}

/**
 * What kind of failure a list or watch request met, as far as a person fixing it cares:
 * - `unreachable`: no answer from the server (connection refused or reset, DNS failure, network timeout);
 * - `unauthorized`: 401, the credentials were rejected;
 * - `forbidden`: 403, the user may not list or watch the resource;
 * - `not-found`: 404, the server does not serve the resource (a custom resource whose CRD is missing);
 * - `too-many-requests`: 429, the server sheds load;
 * - `server-error`: any other 5xx;
 * - `other`: anything else (a 4xx, a decode error, a store that throws).
 */
export type FailureKind =
  | "unreachable"
  | "unauthorized"
  | "forbidden"
  | "not-found"
  | "too-many-requests"
  | "server-error"
  | "other";

/**
 * A run of failed list/watch attempts with no success between them (`ReflectorStatus.failure`). It starts at the
 * first failure, counts every further one and ends when a list succeeds (for a list streak) or a watch delivers
 * an event or ends cleanly (for a watch streak).
 */
export interface ReflectorFailure {
  /** The kind of the latest failure. */
  readonly kind: FailureKind;
  /** Where the latest failure happened. */
  readonly during: ReflectorErrorPhase;
  /** Failed attempts in this streak (1 on the first). */
  readonly tries: number;
  /** Clock time (ms) of the streak's first failure. */
  readonly since: number;
  /** The latest error. */
  readonly error: ReflectorErrorInfo;
  /** What to check, in words (names the URL, user or group/version/resource when known). */
  readonly hint: string;
}

/** Classifies an error for {@link ReflectorFailure.kind}. */
export function failureKindOf(err: unknown): FailureKind {
  const info = errorInfo(err);
  const code = info.code;
  if (code === 401) return "unauthorized";
  if (code === 403) return "forbidden";
  if (code === 404) return "not-found";
  if (code === 429) return "too-many-requests";
  if (code !== undefined && code >= 500) return "server-error";
  if (code === undefined && (isConnectionRefused(err) || isConnectionReset(err) || isNetworkTimeout(err))) {
    return "unreachable";
  }
  if (
    code === undefined &&
    info.errno !== undefined &&
    /^(ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN)$/.test(info.errno)
  ) {
    return "unreachable";
  }
  return "other";
}

/** The resource as the hint names it: `group/version/resource` when the ListerWatcher says, else the type. */
function resourceOf(target: ListerWatcherTarget | undefined, typeDescription: string): string {
  if (target?.resource !== undefined) {
    const gv = target.group ? `${target.group}/${target.version ?? "?"}` : (target.version ?? "v1");
    const ns = target.namespace ? ` in namespace ${target.namespace}` : "";
    return `${gv}/${target.resource}${ns}`;
  }
  return typeDescription;
}

/** The hint logged with a failure of `kind`. */
export function failureHint(
  kind: FailureKind,
  during: ReflectorErrorPhase,
  target: ListerWatcherTarget | undefined,
  typeDescription: string,
): string {
  const resource = resourceOf(target, typeDescription);
  const verb = during === "list" ? "list" : "watch";
  switch (kind) {
    case "unreachable":
      return target?.url !== undefined
        ? `the server at ${target.url} does not answer: is it running, and is that the right address?`
        : "the server does not answer: is it running, and is the server address in the kubeconfig right?";
    case "unauthorized":
      return `the server rejected the credentials${target?.user ? ` of user "${target.user}"` : ""}: check the token or client certificate in the kubeconfig`;
    case "forbidden":
      return `${target?.user ? `user "${target.user}"` : "the user"} may not ${verb} ${resource}: check its RBAC (kubectl auth can-i ${verb} ${target?.resource ?? "<resource>"})`;
    case "not-found":
      return `the server does not serve ${resource}: check the group/version/resource; for a custom resource, is the CRD installed?`;
    case "too-many-requests":
      return "the server is shedding load (API priority and fairness): the reflector backs off and retries";
    case "server-error":
      return "the server failed internally: check the apiserver's logs; the reflector retries";
    default:
      return "see the error message; the reflector retries";
  }
}

/** Where an error happened. */
export type ReflectorErrorPhase = "list" | "watch" | "watch-list" | "store" | "resync" | "handler" | "consistency";

/** The last error, with when and where it happened. */
export interface ReflectorErrorRecord extends ReflectorErrorInfo {
  readonly during: ReflectorErrorPhase;
  /** Clock time (ms). */
  readonly time: number;
}

/**
 * A snapshot of a reflector's state: "why isn't it synced?" answered by data. A 403 shows as
 * `lastError: { code: 403, reason: "Forbidden", during: "list" }`, not as a sync timeout.
 */
export interface ReflectorStatus {
  readonly name: string;
  readonly typeDescription: string;
  readonly phase: ReflectorPhase;
  /** True once a LIST or watch-list has replaced the store's contents at least once. */
  readonly hasSynced: boolean;
  readonly lastSyncResourceVersion: string;
  /** True after an Expired / too-large answer: the next list or watch-list uses RV "" (consistent read). */
  readonly resourceVersionUnavailable: boolean;
  readonly lastError?: ReflectorErrorRecord;
  /** Clock time (ms) of the last watch event (any type). */
  readonly lastEventTime?: number;
  /** Clock time (ms) of the last successful store replace. */
  readonly lastSyncTime?: number;
  /** While `phase === "backing-off"`: when the wait ends (clock ms). */
  readonly backoffUntil?: number;
  /** Set while list/watch attempts keep failing with no success between them (kind, tries, since, hint). */
  readonly failure?: ReflectorFailure;
  readonly counts: ReflectorCounts;
}

/** Reason a watch stream ended. */
export type WatchEndReason =
  | "closed"
  | "error"
  | "very-short"
  | "stopped"
  | "resync-error"
  | "inactive"
  | "initial-events-timeout";

/** Why a watch event was skipped. */
export type SkipReason = "unexpected-type" | "unexpected-gvk" | "table" | "no-metadata" | "unknown-event-type";

/** Events a reflector publishes about its list/watch cycle; every event carries `reflector` and `time`. */
export type ReflectorEvent = (
  | { readonly type: "started" }
  | { readonly type: "stopped" }
  | { readonly type: "list-start"; readonly resourceVersion: string }
  | {
      readonly type: "list-done";
      readonly resourceVersion: string;
      readonly items: number;
      readonly paginated: boolean;
      readonly durationMs: number;
    }
  | { readonly type: "watch-list-start"; readonly resourceVersion: string; readonly timeoutSeconds: number }
  | {
      readonly type: "watch-list-done";
      readonly resourceVersion: string;
      readonly items: number;
      readonly durationMs: number;
    }
  | { readonly type: "watch-list-fallback"; readonly error: ReflectorErrorInfo }
  | { readonly type: "watch-start"; readonly resourceVersion: string; readonly timeoutSeconds: number }
  | {
      readonly type: "watch-end";
      readonly reason: WatchEndReason;
      readonly events: number;
      readonly durationMs: number;
      readonly error?: ReflectorErrorInfo;
    }
  | { readonly type: "rewatch"; readonly cause: RewatchCause }
  | { readonly type: "relist"; readonly cause: RelistCause }
  | { readonly type: "backoff"; readonly delayMs: number; readonly reason: string }
  | { readonly type: "error"; readonly during: ReflectorErrorPhase; readonly error: ReflectorErrorInfo }
  /** A list/watch attempt failed (not a routine relist): the streak so far. */
  | { readonly type: "failure"; readonly failure: ReflectorFailure }
  /** The failure streak ended with a successful list or watch. */
  | { readonly type: "recovered"; readonly tries: number; readonly since: number }
  | { readonly type: "resync" }
  | { readonly type: "bookmark"; readonly resourceVersion: string; readonly initialEventsEnd: boolean }
  | { readonly type: "skipped-object"; readonly reason: SkipReason; readonly eventType: string }
  | { readonly type: "initial-events-end-warning"; readonly message: string }
  | { readonly type: "consistency-mismatch"; readonly resourceVersion: string; readonly detail: string }
) & { readonly reflector: string; readonly time: number };

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Distributes `Omit` over the event union. */
type EventBody<E> = E extends unknown ? Omit<E, "reflector" | "time"> : never;

const RELIST_CAUSES: readonly RelistCause[] = [
  "expired",
  "too-large",
  "internal-error",
  "very-short",
  "resync-error",
  "watch-error",
  "list-error",
];
const REWATCH_CAUSES: readonly RewatchCause[] = [
  "closed",
  "too-many-requests",
  "connection-refused",
  "internal-error",
  "inactive",
];

function zeroRecord<K extends string>(keys: readonly K[]): Record<K, number> {
  const r = {} as Record<K, number>;
  for (const k of keys) r[k] = 0;
  return r;
}

/**
 * Keeps a reflector's status and publishes it (internal to the reflector). Counters are plain fields updated on
 * the hot path; `status$` re-emits only on lifecycle changes (phase, sync, error, RV after a list), while
 * `snapshot()` is always current.
 */
export class ReflectorStatusTracker {
  readonly events: EventStream<ReflectorEvent>;
  phase: ReflectorPhase = "idle";
  hasSynced = false;
  lastError: ReflectorErrorRecord | undefined;
  lastEventTime: number | undefined;
  lastSyncTime: number | undefined;
  backoffUntil: number | undefined;
  failure: ReflectorFailure | undefined;
  readonly counts: Mutable<Omit<ReflectorCounts, "relists" | "rewatches">> = {
    lists: 0,
    watchLists: 0,
    watches: 0,
    watchListFallbacks: 0,
    backoffs: 0,
    events: 0,
    bookmarks: 0,
    skippedObjects: 0,
    resyncs: 0,
    errors: 0,
  };
  readonly relists: Record<RelistCause, number> = zeroRecord(RELIST_CAUSES);
  readonly rewatches: Record<RewatchCause, number> = zeroRecord(REWATCH_CAUSES);
  /** Changes of the current (or next) run; completed when that run stops, replaced when the next one starts. */
  private changes = new Subject<ReflectorStatus>();
  private runEnded = false;
  /**
   * The status: the current snapshot on subscribe, then every published change, completing when the run in
   * progress (or, before any run, the first run) stops. Subscribing to a stopped reflector gives its final status
   * and completes.
   */
  readonly status$: Observable<ReflectorStatus>;

  /**
   * @param reporter where an error thrown by a consumer of `status$` or `events$` goes (both streams are
   *   {@link safeObservable}s: a throwing subscriber is reported, never re-thrown into the host).
   */
  constructor(
    readonly name: string,
    readonly typeDescription: string,
    private readonly clock: Clock,
    private readonly rv: () => { lastSyncResourceVersion: string; unavailable: boolean },
    reporter: SubscriberErrorReporter = defaultSubscriberErrorReporter,
  ) {
    this.events = new EventStream<ReflectorEvent>({ name: `reflector ${name} events$`, reporter });
    this.status$ = safeObservable(
      new Observable<ReflectorStatus>((subscriber) => {
        subscriber.next(this.snapshot());
        if (this.runEnded) {
          subscriber.complete();
          return undefined;
        }
        return this.changes.subscribe(subscriber);
      }),
      `reflector ${name} status$`,
      reporter,
    );
  }

  snapshot(): ReflectorStatus {
    const { lastSyncResourceVersion, unavailable } = this.rv();
    const s: Mutable<ReflectorStatus> = {
      name: this.name,
      typeDescription: this.typeDescription,
      phase: this.phase,
      hasSynced: this.hasSynced,
      lastSyncResourceVersion,
      resourceVersionUnavailable: unavailable,
      counts: { ...this.counts, relists: { ...this.relists }, rewatches: { ...this.rewatches } },
    };
    if (this.lastError !== undefined) s.lastError = this.lastError;
    if (this.lastEventTime !== undefined) s.lastEventTime = this.lastEventTime;
    if (this.lastSyncTime !== undefined) s.lastSyncTime = this.lastSyncTime;
    if (this.backoffUntil !== undefined) s.backoffUntil = this.backoffUntil;
    if (this.failure !== undefined) s.failure = this.failure;
    return s;
  }

  /** Re-publishes the status (on lifecycle changes only). */
  publish(): void {
    if (this.changes.observed) this.changes.next(this.snapshot());
  }

  /** A run starts: status$ subscribers from now on follow it. */
  beginRun(): void {
    if (!this.runEnded) return;
    this.runEnded = false;
    this.changes = new Subject<ReflectorStatus>();
  }

  /** The run has stopped (phase already `stopped` and published): completes every status$ subscription. */
  endRun(): void {
    this.runEnded = true;
    this.changes.complete();
  }

  setPhase(phase: ReflectorPhase): void {
    if (phase !== "backing-off") this.backoffUntil = undefined;
    if (this.phase === phase) return;
    this.phase = phase;
    this.publish();
  }

  emit(event: EventBody<ReflectorEvent>): void {
    if (!this.events.observed) return;
    this.events.emit({ ...event, reflector: this.name, time: this.clock.now() } as ReflectorEvent);
  }

  recordError(during: ReflectorErrorPhase, info: ReflectorErrorInfo): void {
    this.counts.errors++;
    this.lastError = { ...info, during, time: this.clock.now() };
    this.emit({ type: "error", during, error: info });
    this.publish();
  }

  recordRelist(cause: RelistCause): void {
    this.relists[cause]++;
    this.emit({ type: "relist", cause });
  }

  recordRewatch(cause: RewatchCause): void {
    this.rewatches[cause]++;
    this.emit({ type: "rewatch", cause });
  }

  /** Completes the streams (the reflector is gone for good). */
  complete(): void {
    this.runEnded = true;
    this.changes.complete();
    this.events.complete();
  }
}
