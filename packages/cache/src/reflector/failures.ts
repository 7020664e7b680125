import { isConnectionRefused, isConnectionReset, isNetworkTimeout } from "@informer-ts/apimachinery";
import type { Clock } from "@informer-ts/clock";
import type { ListerWatcherTarget } from "../listwatch.js";
import {
  errorInfo,
  InitialEventsEndTimeoutError,
  isExpiredError,
  isTooLargeResourceVersionError,
  type ReflectorErrorInfo,
  VeryShortWatchError,
} from "./errors.js";
import { type ReflectorLogger, safeLog } from "./logger.js";
import type { ReflectorErrorPhase } from "./status.js";

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

/** A summary line is logged after this many tries, then after twice as many, and so on. */
const FIRST_SUMMARY_TRIES = 5;
/** …and at least this often while the failure lasts. */
const SUMMARY_INTERVAL_MS = 5 * 60_000;

/**
 * The level of a first failure (or change to) `kind`: `info` for 429, which a server shedding load answers routinely
 * and the reflector absorbs with its backoff; `warn` for everything else. Summaries are always `warn`.
 */
function levelOf(kind: FailureKind): "info" | "warn" {
  return kind === "too-many-requests" ? "info" : "warn";
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

/**
 * Errors that are part of normal operation, not failures: an expired or too-new resource version (the reflector
 * relists at once), a very short watch, a watch-list that gave up waiting for its end bookmark (LIST follows).
 */
function isRoutine(err: unknown): boolean {
  return (
    isExpiredError(err) ||
    isTooLargeResourceVersionError(err) ||
    err instanceof VeryShortWatchError ||
    err instanceof InitialEventsEndTimeoutError
  );
}

function formatSpan(ms: number): string {
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 2 * 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

function verbOf(during: ReflectorErrorPhase): string {
  return during === "watch-list" ? "watch-list" : during === "watch" ? "watch" : "list";
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

/**
 * Turns a reflector's failures into log lines a person can act on: the first failure and every change of kind at
 * warning level with a hint (a 429 at info level: shedding load is routine unless it lasts), repeated identical failures summarised (`still failing after 5 tries over 31 s`,
 * then after 10, 20… tries and at least every 5 minutes), and the recovery at info level. Routine errors
 * (expired resource versions, very short watches) are not failures. All times come from the injected clock.
 *
 * Internal to the reflector; the current streak is published as `ReflectorStatus.failure`.
 */
export class FailureReporter {
  private streak:
    | {
        kind: FailureKind;
        during: ReflectorErrorPhase;
        tries: number;
        since: number;
        error: ReflectorErrorInfo;
        hint: string;
        nextSummaryTries: number;
        lastLogAt: number;
      }
    | undefined;

  constructor(
    private readonly name: string,
    private readonly typeDescription: string,
    private readonly target: ListerWatcherTarget | undefined,
    private readonly clock: Clock,
    private readonly logger: ReflectorLogger,
  ) {}

  /** The current streak, if failing. */
  get current(): ReflectorFailure | undefined {
    const s = this.streak;
    if (s === undefined) return undefined;
    return { kind: s.kind, during: s.during, tries: s.tries, since: s.since, error: s.error, hint: s.hint };
  }

  /** True while a streak is open (cheap check for the hot path). */
  get failing(): boolean {
    return this.streak !== undefined;
  }

  /**
   * Records a failed attempt; returns the streak it belongs to, or undefined for a routine error. Errors of a
   * watch-list that falls back to LIST are not counted (the LIST's own outcome is), except the retried ones
   * (unreachable, 429) that keep the watch-list looping.
   */
  failed(during: ReflectorErrorPhase, err: unknown): ReflectorFailure | undefined {
    if (during !== "list" && during !== "watch" && during !== "watch-list") return undefined;
    if (isRoutine(err)) return undefined;
    const kind = failureKindOf(err);
    if (during === "watch-list" && kind !== "unreachable" && kind !== "too-many-requests") return undefined;
    const now = this.clock.now();
    const error = errorInfo(err);
    const hint = failureHint(kind, during, this.target, this.typeDescription);
    const s = this.streak;
    const fields = (tries: number) => ({
      reflector: this.name,
      type: this.typeDescription,
      during,
      ...(error.code === undefined ? {} : { code: error.code }),
      ...(error.errno === undefined ? {} : { errno: error.errno }),
      err: error.message,
      hint,
      tries,
    });
    if (s === undefined) {
      this.streak = {
        kind,
        during,
        tries: 1,
        since: now,
        error,
        hint,
        nextSummaryTries: FIRST_SUMMARY_TRIES,
        lastLogAt: now,
      };
      safeLog(this.logger, levelOf(kind), `${verbOf(during)} of ${this.typeDescription} failed (${kind})`, fields(1));
      return this.current;
    }
    s.tries++;
    s.error = error;
    if (s.kind !== kind || s.during !== during) {
      const previous = `${s.kind} during ${verbOf(s.during)}`;
      s.kind = kind;
      s.during = during;
      s.hint = hint;
      s.lastLogAt = now;
      safeLog(
        this.logger,
        levelOf(kind),
        `${verbOf(during)} of ${this.typeDescription} now fails differently (${kind}, was ${previous})`,
        fields(s.tries),
      );
      return this.current;
    }
    if (s.tries >= s.nextSummaryTries || now - s.lastLogAt >= SUMMARY_INTERVAL_MS) {
      while (s.nextSummaryTries <= s.tries) s.nextSummaryTries *= 2;
      s.lastLogAt = now;
      safeLog(
        this.logger,
        "warn",
        `${verbOf(during)} of ${this.typeDescription} still failing after ${s.tries} tries over ${formatSpan(now - s.since)} (${kind})`,
        fields(s.tries),
      );
    }
    return this.current;
  }

  /**
   * Records a success: a completed list or watch-list (`phase` "list") or a watch that delivered an event or
   * ended cleanly (`phase` "watch"). Ends a streak of the same phase (a watch-list streak ends with either) and
   * logs the recovery; returns true if a streak ended.
   */
  succeeded(phase: "list" | "watch"): boolean {
    const s = this.streak;
    if (s === undefined) return false;
    const matches = s.during === "watch-list" || (phase === "list" ? s.during === "list" : s.during === "watch");
    if (!matches) return false;
    this.streak = undefined;
    const now = this.clock.now();
    safeLog(
      this.logger,
      "info",
      `${verbOf(s.during)} of ${this.typeDescription} recovered after ${s.tries} failed ${s.tries === 1 ? "try" : "tries"} over ${formatSpan(now - s.since)}`,
      { reflector: this.name, type: this.typeDescription, tries: s.tries },
    );
    return true;
  }
}
