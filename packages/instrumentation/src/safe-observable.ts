import { Observable, type Observer, type Operator, type OperatorFunction, Subscriber, type Subscription } from "rxjs";
import { type Logger, newConsoleLogger, safeLog } from "./logger.js";
import { type Counter, type MetricsProvider, noopMetrics } from "./metrics.js";

/** Which consumer callback failed. `unhandledError`: the stream errored and the subscriber had no `error` callback. */
export type SubscriberCallback = "next" | "error" | "complete" | "unhandledError";

/** What {@link SubscriberErrorReporter} is told when a consumer of a public stream throws. */
export interface SubscriberErrorReport {
  /** The stream, e.g. `informer pods status$`. */
  readonly stream: string;
  readonly callback: SubscriberCallback;
  /** What the consumer threw (or, for `unhandledError`, the stream's own error). */
  readonly error: unknown;
}

/** Options of {@link SubscriberErrorReporter}. */
export interface SubscriberErrorReporterOptions {
  /** Where `stream_subscriber_errors_total{stream,callback}` is counted. Default {@link noopMetrics}. */
  readonly metrics?: MetricsProvider;
  /** Where a report nobody received is logged (level `error`). Default: a console logger. */
  readonly logger?: Logger;
  /**
   * Publishes a report, typically as a `subscriberError` event on the component's event stream; returns whether
   * anyone received it (when not, the report is logged). Not called again while it is running: a report raised
   * by a subscriber of that very event stream is counted and logged only, so a consumer that throws on every
   * event cannot loop.
   */
  readonly publish?: (report: SubscriberErrorReport) => boolean;
}

/** Name of the counter of consumer errors on public streams. */
export const subscriberErrorsMetricName = "stream_subscriber_errors_total";

/**
 * Receives every error a consumer of a public stream throws (see {@link safeObservable}): counts it, publishes it
 * (an event) and, when nobody received the event, logs it. Never throws.
 */
export class SubscriberErrorReporter {
  private readonly counter: Counter;
  private readonly logger: Logger;
  private readonly publish: ((report: SubscriberErrorReport) => boolean) | undefined;
  private publishing = false;
  private total = 0;

  constructor(options: SubscriberErrorReporterOptions = {}) {
    this.counter = (options.metrics ?? noopMetrics).counter({
      name: subscriberErrorsMetricName,
      help: "Errors thrown by consumers (subscribers) of a public stream, caught and reported",
      labelNames: ["stream", "callback"],
    });
    this.logger = options.logger ?? defaultLogger;
    this.publish = options.publish;
  }

  /** How many reports so far. */
  get count(): number {
    return this.total;
  }

  report(report: SubscriberErrorReport): void {
    this.total++;
    try {
      this.counter.inc({ stream: report.stream, callback: report.callback });
    } catch {
      // a broken metrics provider must not turn a report into a crash
    }
    let delivered = false;
    if (this.publish !== undefined && !this.publishing) {
      this.publishing = true;
      try {
        delivered = this.publish(report);
      } catch {
        delivered = false;
      } finally {
        this.publishing = false;
      }
    }
    if (!delivered) {
      safeLog(this.logger, "error", `a subscriber of ${report.stream} threw in ${report.callback}`, {
        stream: report.stream,
        callback: report.callback,
        err: describeError(report.error),
      });
    }
  }
}

const defaultLogger = newConsoleLogger("informer-ts");

/** The reporter used when a component is given none: counts nothing, logs to the console. */
export const defaultSubscriberErrorReporter = new SubscriberErrorReporter();

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

function isRxSubscriber(value: unknown): value is Subscriber<unknown> {
  if (value instanceof Subscriber) return true;
  // rxjs's own test: an observer that is also a subscription (an operator's inner subscriber from another copy).
  const v = value as Partial<Subscriber<unknown>> | null | undefined;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.next === "function" &&
    typeof v.error === "function" &&
    typeof v.complete === "function" &&
    typeof v.unsubscribe === "function" &&
    typeof v.add === "function"
  );
}

/**
 * An `Observable` whose consumers cannot crash the host. RxJS 7 reports an error thrown by a subscriber callback
 * through `config.onUnhandledError`, by default re-throwing it on a timer (an `uncaughtException`). This class
 * wraps each consumer's `next`, `error` and `complete` in try/catch before RxJS sees them and reports what they
 * throw to a {@link SubscriberErrorReporter}; a consumer that throws from `next` stays subscribed and keeps
 * receiving values, and the other consumers are served as usual. A stream error reaching a consumer without an
 * `error` callback is reported too instead of being re-thrown.
 *
 * The guard follows the stream through `pipe` and `lift`: `stream.pipe(map(f)).subscribe(g)` guards `g`, and an
 * error thrown by `f` reaches `g`'s `error` callback (or the reporter) as RxJS specifies. Operator-internal
 * subscriptions (`switchMap`, `merge`, `firstValueFrom`…) pass through untouched. Combining a safe stream with
 * a plain one through a creation function (`merge(a, b)`) yields a plain stream: wrap it again with
 * {@link safeObservable} if it is handed to others. RxJS's global `config` is never touched.
 */
export class SafeObservable<T> extends Observable<T> {
  constructor(
    inner: Observable<T>,
    private readonly streamName: string,
    private readonly reporter: SubscriberErrorReporter,
  ) {
    super((subscriber) => inner.subscribe(subscriber));
  }

  /** The stream's name in reports. */
  get name(): string {
    return this.streamName;
  }

  override subscribe(
    observerOrNext?: Partial<Observer<T>> | ((value: T) => void) | null,
    error?: ((error: unknown) => void) | null,
    complete?: (() => void) | null,
  ): Subscription {
    if (isRxSubscriber(observerOrNext)) return super.subscribe(observerOrNext as Subscriber<T>);
    let next: ((value: T) => void) | undefined;
    let onError: ((error: unknown) => void) | undefined;
    let onComplete: (() => void) | undefined;
    if (typeof observerOrNext === "function") {
      next = observerOrNext;
      onError = error ?? undefined;
      onComplete = complete ?? undefined;
    } else if (observerOrNext !== null && observerOrNext !== undefined) {
      const o = observerOrNext;
      next = o.next === undefined ? undefined : (v) => o.next?.(v);
      onError = o.error === undefined ? undefined : (e) => o.error?.(e);
      onComplete = o.complete === undefined ? undefined : () => o.complete?.();
    } else {
      onError = error ?? undefined;
      onComplete = complete ?? undefined;
    }
    const { streamName: stream, reporter } = this;
    return super.subscribe({
      next: (value) => {
        if (next === undefined) return;
        try {
          next(value);
        } catch (err) {
          reporter.report({ stream, callback: "next", error: err });
        }
      },
      error: (err: unknown) => {
        if (onError === undefined) {
          reporter.report({ stream, callback: "unhandledError", error: err });
          return;
        }
        try {
          onError(err);
        } catch (thrown) {
          reporter.report({ stream, callback: "error", error: thrown });
        }
      },
      complete: () => {
        if (onComplete === undefined) return;
        try {
          onComplete();
        } catch (err) {
          reporter.report({ stream, callback: "complete", error: err });
        }
      },
    });
  }

  override lift<R>(operator?: Operator<T, R>): Observable<R> {
    return new SafeObservable<R>(super.lift<R>(operator), this.streamName, this.reporter);
  }

  // The overloads of `Observable.pipe` are typed per arity; one variadic implementation needs `any` to match them.
  // biome-ignore lint/suspicious/noExplicitAny: see above
  override pipe(...operations: OperatorFunction<any, any>[]): Observable<any> {
    let out: unknown = this;
    for (const op of operations) out = op(out as Observable<unknown>);
    if (out instanceof SafeObservable || !(out instanceof Observable)) return out as Observable<unknown>;
    return new SafeObservable<unknown>(out, this.streamName, this.reporter);
  }
}

/**
 * Wraps `source` so that no consumer can crash the host (see {@link SafeObservable}); `name` names the stream in
 * reports. The result is read-only: it exposes nothing of the subject behind it.
 */
export function safeObservable<T>(
  source: Observable<T>,
  name: string,
  reporter: SubscriberErrorReporter = defaultSubscriberErrorReporter,
): Observable<T> {
  return new SafeObservable<T>(source, name, reporter);
}
