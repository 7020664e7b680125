import type { Clock } from "@informer-ts/clock";
import type { ListerWatcherTarget } from "../listwatch.js";
import {
  InitialEventsEndTimeoutError,
  isExpiredError,
  isTooLargeResourceVersionError,
  VeryShortWatchError,
} from "./errors.js";
import { type ReflectorLogger, safeLog } from "./logger.js";
import {
  errorInfo,
  type FailureKind,
  failureHint,
  failureKindOf,
  type ReflectorErrorInfo,
  type ReflectorErrorPhase,
  type ReflectorFailure,
} from "./status.js";

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
