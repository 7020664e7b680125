import { BehaviorSubject, filter, firstValueFrom, map, Subject, switchMap, throwError } from "rxjs";
import { describe, expect, it } from "vitest";
import { takeEscapedRxjsErrors } from "../../../test/setup/rxjs-unhandled.js";
import { InMemoryMetrics } from "./in-memory-metrics.js";
import type { LogLevel } from "./logger.js";
import {
  SafeObservable,
  type SubscriberErrorReport,
  SubscriberErrorReporter,
  safeObservable,
  subscriberErrorsMetricName,
} from "./safe-observable.js";

function collectingReporter() {
  const reports: SubscriberErrorReport[] = [];
  const logged: Array<{ level: LogLevel; message: string }> = [];
  const metrics = new InMemoryMetrics();
  const reporter = new SubscriberErrorReporter({
    metrics,
    logger: { log: (level, message) => logged.push({ level, message }) },
    publish: (r) => {
      reports.push(r);
      return true;
    },
  });
  return { reporter, reports, logged, metrics };
}

describe("SafeObservable", () => {
  it("reports a throwing next, keeps the thrower subscribed and serves the others; nothing reaches the host", async () => {
    const { reporter, reports, metrics } = collectingReporter();
    const subject = new Subject<number>();
    const stream = safeObservable(subject, "test$", reporter);
    const seenByThrower: number[] = [];
    const seenByOther: number[] = [];
    stream.subscribe((v) => {
      seenByThrower.push(v);
      throw new Error(`boom ${v}`);
    });
    stream.subscribe((v) => seenByOther.push(v));
    subject.next(1);
    subject.next(2);
    expect(seenByThrower).toEqual([1, 2]);
    expect(seenByOther).toEqual([1, 2]);
    expect(reports.map((r) => [r.stream, r.callback, (r.error as Error).message])).toEqual([
      ["test$", "next", "boom 1"],
      ["test$", "next", "boom 2"],
    ]);
    expect(metrics.value(subscriberErrorsMetricName, { stream: "test$", callback: "next" })).toBe(2);
    expect(reporter.count).toBe(2);
    expect(takeEscapedRxjsErrors()).toEqual([]);
  });

  it("guards observers, complete callbacks and error callbacks; an unhandled stream error is reported", async () => {
    const { reporter, reports } = collectingReporter();
    const s1 = new Subject<number>();
    safeObservable(s1, "a$", reporter).subscribe({
      complete: () => {
        throw new Error("in complete");
      },
    });
    s1.complete();
    safeObservable(
      throwError(() => new Error("stream failed")),
      "b$",
      reporter,
    ).subscribe({
      error: () => {
        throw new Error("in error");
      },
    });
    safeObservable(
      throwError(() => new Error("nobody handles me")),
      "c$",
      reporter,
    ).subscribe(() => {});
    expect(reports.map((r) => [r.stream, r.callback, (r.error as Error).message])).toEqual([
      ["a$", "complete", "in complete"],
      ["b$", "error", "in error"],
      ["c$", "unhandledError", "nobody handles me"],
    ]);
    expect(takeEscapedRxjsErrors()).toEqual([]);
  });

  it("stays safe through pipe: the final consumer is guarded, an operator's throw reaches it as an error", async () => {
    const { reporter, reports } = collectingReporter();
    const subject = new BehaviorSubject(1);
    const stream = safeObservable(subject, "piped$", reporter);
    const piped = stream.pipe(
      map((v) => v * 10),
      filter((v) => v > 0),
    );
    expect(piped).toBeInstanceOf(SafeObservable);
    const seen: number[] = [];
    piped.subscribe((v) => {
      seen.push(v);
      throw new Error("consumer");
    });
    const errors: unknown[] = [];
    stream
      .pipe(
        map(() => {
          throw new Error("operator");
        }),
      )
      .subscribe({ error: (e) => errors.push(e) });
    subject.next(2);
    expect(seen).toEqual([10, 20]);
    expect(reports.filter((r) => r.callback === "next")).toHaveLength(2);
    expect((errors[0] as Error).message).toBe("operator");
    expect(takeEscapedRxjsErrors()).toEqual([]);
  });

  it("lets operator-internal subscribers through: switchMap and firstValueFrom work unchanged", async () => {
    const outer = new Subject<number>();
    const inner = new BehaviorSubject("x");
    const stream = safeObservable(inner, "inner$");
    const seen: string[] = [];
    const sub = outer.pipe(switchMap(() => stream)).subscribe((v) => seen.push(v));
    outer.next(1);
    inner.next("y");
    sub.unsubscribe();
    expect(seen).toEqual(["x", "y"]);
    expect(inner.observed).toBe(false);
    await expect(firstValueFrom(stream)).resolves.toBe("y");
  });

  it("unsubscribing a guarded consumer detaches it from the source", () => {
    const subject = new Subject<number>();
    const sub = safeObservable(subject, "s$").subscribe(() => {});
    expect(subject.observed).toBe(true);
    sub.unsubscribe();
    expect(subject.observed).toBe(false);
  });
});

describe("SubscriberErrorReporter", () => {
  it("logs a report nobody received, and never re-enters publish from a report raised while publishing", () => {
    const logged: string[] = [];
    let publishCalls = 0;
    const events = new Subject<SubscriberErrorReport>();
    const reporter = new SubscriberErrorReporter({
      logger: { log: (_level, message) => logged.push(message) },
      publish: (r) => {
        publishCalls++;
        events.next(r);
        return events.observed;
      },
    });
    // A subscriber of the report stream that itself throws: its own report is counted and logged, not re-published.
    safeObservable(events, "events$", reporter).subscribe(() => {
      throw new Error("throws on every event");
    });
    reporter.report({ stream: "status$", callback: "next", error: new Error("first") });
    expect(publishCalls).toBe(1);
    expect(reporter.count).toBe(2);
    expect(logged).toEqual(["a subscriber of events$ threw in next"]);
    const quiet = new SubscriberErrorReporter({ logger: { log: (_l, m) => logged.push(m) } });
    quiet.report({ stream: "x$", callback: "complete", error: "e" });
    expect(logged.at(-1)).toBe("a subscriber of x$ threw in complete");
  });

  it("survives a throwing logger, metrics provider and publisher", () => {
    const reporter = new SubscriberErrorReporter({
      logger: {
        log() {
          throw new Error("logger");
        },
      },
      metrics: {
        counter: () => ({
          inc() {
            throw new Error("metrics");
          },
        }),
        gauge: () => ({ set() {}, inc() {}, dec() {} }),
        histogram: () => ({ observe() {} }),
      },
      publish: () => {
        throw new Error("publish");
      },
    });
    expect(() => reporter.report({ stream: "s$", callback: "next", error: 1 })).not.toThrow();
    expect(reporter.count).toBe(1);
  });
});

describe("the test setup's RxJS unhandled-error check (test/setup/rxjs-unhandled.ts)", () => {
  it("sees an error a plain Subject's throwing subscriber sends to RxJS's unhandled-error path, at once", () => {
    const subject = new Subject<number>();
    subject.subscribe(() => {
      throw new Error("unguarded");
    });
    subject.next(1);
    const escaped = takeEscapedRxjsErrors();
    expect(escaped.map((e) => (e as Error).message)).toEqual(["unguarded"]);
  });
});
