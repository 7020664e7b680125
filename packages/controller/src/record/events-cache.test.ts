// client-go's events_cache_test.go, ported: aggregation keys and message, the correlator scenarios (count, aggregate,
// spam) under an interval clock, and the spam filter with a custom key.
import type { Clock, Ticker, Timer } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import {
  defaultAggregateIntervalInSeconds,
  defaultAggregateMaxEvents,
  defaultSpamBurst,
  EventCorrelator,
  eventAggregatorByReasonFunc,
  eventAggregatorByReasonMessageFunc,
  formatTime,
  type ObjectReference,
  type RecordedEvent,
} from "./events-cache.js";

/** `clock.IntervalClock`: every `now()` returns the current time and then advances it by `duration`. */
class IntervalClock implements Clock {
  constructor(
    private t: number,
    private readonly duration: number,
  ) {}
  now(): number {
    const t = this.t;
    this.t += this.duration;
    return t;
  }
  since(t: number): number {
    return this.now() - t;
  }
  afterFunc(): Timer {
    throw new Error("IntervalClock has no timers");
  }
  newTicker(): Ticker {
    throw new Error("IntervalClock has no tickers");
  }
  sleep(): Promise<void> {
    throw new Error("IntervalClock cannot sleep");
  }
}

const START = Date.UTC(2026, 0, 1);

function makeObjectReference(kind: string, name: string, namespace: string): ObjectReference {
  return {
    kind,
    name,
    namespace,
    uid: "C934D34AFB20242",
    apiVersion: "version",
    fieldPath: "spec.containers{mycontainer}",
  };
}

function makeEvent(reason: string, message: string, involvedObject: ObjectReference): RecordedEvent {
  const t = formatTime(START);
  return {
    metadata: { name: `${involvedObject.name}.1`, namespace: involvedObject.namespace ?? "" },
    reason,
    message,
    involvedObject,
    source: { component: "kubelet", host: "kublet.node1" },
    count: 1,
    firstTimestamp: t,
    lastTimestamp: t,
    type: "Normal",
  };
}

const makeEvents = (n: number, template: RecordedEvent): RecordedEvent[] =>
  Array.from({ length: n }, () => structuredClone(template));

function makeUniqueEvents(n: number): RecordedEvent[] {
  return Array.from({ length: n }, (_, i) =>
    makeEvent(`reason-${i}`, `message-${i}`, makeObjectReference("Pod", `pod-${i}`, `ns-${i}`)),
  );
}

function makeSimilarEvents(n: number, template: RecordedEvent, prefix: string): RecordedEvent[] {
  return makeEvents(n, template).map((e, i) => ({ ...e, message: [prefix, String(i), e.message].join("-") }));
}

const setCount = (e: RecordedEvent, count: number): RecordedEvent => ({ ...e, count });

describe("aggregation keys (TestEventAggregatorByReasonFunc, …MessageFunc)", () => {
  it("events differing only by message share the aggregate key, not the local key; another reason differs", () => {
    const e1 = makeEvent("end-of-world", "it was fun", makeObjectReference("Pod", "pod1", "other"));
    const e2 = makeEvent("end-of-world", "it was awful", makeObjectReference("Pod", "pod1", "other"));
    const e3 = makeEvent("nevermind", "it was a bug", makeObjectReference("Pod", "pod1", "other"));
    const [agg1, local1] = eventAggregatorByReasonFunc(e1);
    const [agg2, local2] = eventAggregatorByReasonFunc(e2);
    const [agg3] = eventAggregatorByReasonFunc(e3);
    expect(agg1).toBe(agg2);
    expect(local1).not.toBe(local2);
    expect(agg1).not.toBe(agg3);
  });

  it("the aggregate message has the combined prefix", () => {
    const e = makeEvent("end-of-world", "it was fun", makeObjectReference("Pod", "pod1", "other"));
    expect(eventAggregatorByReasonMessageFunc(e)).toBe("(combined from similar events): it was fun");
  });
});

describe("TestEventCorrelator", () => {
  const ref = makeObjectReference("Pod", "my-pod", "my-ns");
  const firstEvent = makeEvent("first", "i am first", ref);
  const duplicateEvent = makeEvent("duplicate", "me again", ref);
  const uniqueEvent = makeEvent("unique", "snowflake", ref);
  const similarEvent = makeEvent("similar", "similar message", { ...ref, fieldPath: "spec.containers{container1}" });
  const aggregateEvent = makeEvent(
    similarEvent.reason,
    eventAggregatorByReasonMessageFunc(similarEvent),
    similarEvent.involvedObject,
  );
  const similarButDifferentContainerEvent: RecordedEvent = {
    ...similarEvent,
    involvedObject: { ...similarEvent.involvedObject, fieldPath: "spec.containers{container2}" },
  };

  const scenarios: Record<
    string,
    {
      previous: RecordedEvent[];
      next: RecordedEvent;
      expected?: RecordedEvent;
      intervalSeconds: number;
      skip?: boolean;
    }
  > = {
    "create-a-single-event": { previous: [], next: firstEvent, expected: setCount(firstEvent, 1), intervalSeconds: 5 },
    "the-same-event-should-just-count": {
      previous: makeEvents(1, duplicateEvent),
      next: duplicateEvent,
      expected: setCount(duplicateEvent, 2),
      intervalSeconds: 5,
    },
    "the-same-event-should-just-count-even-if-more-than-aggregate": {
      previous: makeEvents(defaultAggregateMaxEvents, duplicateEvent),
      next: duplicateEvent,
      expected: setCount(duplicateEvent, defaultAggregateMaxEvents + 1),
      intervalSeconds: 30,
    },
    "the-same-event-is-spam-if-happens-too-frequently": {
      previous: makeEvents(defaultSpamBurst + 1, duplicateEvent),
      next: duplicateEvent,
      skip: true,
      intervalSeconds: 1,
    },
    "create-many-unique-events": {
      previous: makeUniqueEvents(30),
      next: uniqueEvent,
      expected: setCount(uniqueEvent, 1),
      intervalSeconds: 5,
    },
    "similar-events-should-aggregate-event": {
      previous: makeSimilarEvents(defaultAggregateMaxEvents - 1, similarEvent, similarEvent.message),
      next: similarEvent,
      expected: setCount(aggregateEvent, 1),
      intervalSeconds: 5,
    },
    "similar-events-many-times-should-count-the-aggregate": {
      previous: makeSimilarEvents(defaultAggregateMaxEvents, similarEvent, similarEvent.message),
      next: similarEvent,
      expected: setCount(aggregateEvent, 2),
      intervalSeconds: 5,
    },
    "events-from-different-containers-do-not-aggregate": {
      previous: makeEvents(1, similarButDifferentContainerEvent),
      next: similarEvent,
      expected: setCount(similarEvent, 1),
      intervalSeconds: 5,
    },
    "similar-events-whose-interval-is-greater-than-aggregate-interval-do-not-aggregate": {
      previous: makeSimilarEvents(defaultAggregateMaxEvents - 1, similarEvent, similarEvent.message),
      next: similarEvent,
      expected: setCount(similarEvent, 1),
      intervalSeconds: defaultAggregateIntervalInSeconds,
    },
  };

  for (const [name, sc] of Object.entries(scenarios)) {
    it(name, () => {
      const clock = new IntervalClock(START, sc.intervalSeconds * 1000);
      const correlator = new EventCorrelator({ clock });
      for (const prev of sc.previous) {
        const t = formatTime(clock.now());
        const result = correlator.eventCorrelate({ ...prev, firstTimestamp: t, lastTimestamp: t });
        if (!result.skip) correlator.updateState(result.event!);
      }
      const t = formatTime(clock.now());
      const result = correlator.eventCorrelate({ ...sc.next, firstTimestamp: t, lastTimestamp: t });
      expect(result.skip).toBe(sc.skip ?? false);
      if (sc.skip === true) return;
      const got = result.event!;
      const expected = sc.expected!;
      // validateEvent: timestamps set; first == last exactly when the count is 1.
      expect(got.firstTimestamp).not.toBe("");
      expect(got.firstTimestamp === got.lastTimestamp).toBe(expected.count === 1);
      expect(got.metadata.name?.startsWith(`${expected.involvedObject.name}.`)).toBe(true);
      const strip = (e: RecordedEvent) => ({
        ...e,
        metadata: undefined,
        firstTimestamp: undefined,
        lastTimestamp: undefined,
      });
      expect(strip(got)).toEqual(strip(expected));
      if (expected.count > 1) {
        expect(result.patch).toEqual({
          count: expected.count,
          lastTimestamp: got.lastTimestamp,
          message: expected.message,
        });
      } else {
        expect(result.patch).toBeUndefined();
      }
    });
  }
});

describe("TestEventSpamFilter", () => {
  const spamKeyFuncBasedOnObjectsAndReason = (e: RecordedEvent) =>
    [
      e.source.component,
      e.source.host,
      e.involvedObject.kind,
      e.involvedObject.namespace,
      e.involvedObject.name,
      e.involvedObject.uid,
      e.involvedObject.apiVersion,
      e.reason,
    ].join("");
  const ref = makeObjectReference("Pod", "my-pod", "my-ns");
  const original = makeEvent("original", "i am first", ref);
  const differentReason = makeEvent("duplicate", "me again", ref);
  const spam = makeEvent("original", "me again", ref);
  const cases: Record<string, { next: RecordedEvent; skip: boolean; spamKeyFunc?: (e: RecordedEvent) => string }> = {
    "event should be reported as spam if object reference is the same for default spam filter": {
      next: differentReason,
      skip: true,
    },
    "event should not be reported as spam if object reference is the same, but reason is different for custom spam filter":
      {
        next: differentReason,
        skip: false,
        spamKeyFunc: spamKeyFuncBasedOnObjectsAndReason,
      },
    "event should be reported as spam if object reference and reason is the same, but message is different for custom spam filter":
      {
        next: spam,
        skip: true,
        spamKeyFunc: spamKeyFuncBasedOnObjectsAndReason,
      },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => {
      const correlator = new EventCorrelator({
        clock: new IntervalClock(START, 1000),
        burstSize: 1,
        ...(c.spamKeyFunc !== undefined && { spamKeyFunc: c.spamKeyFunc }),
      });
      const r1 = correlator.eventCorrelate(original);
      if (!r1.skip) correlator.updateState(r1.event!);
      const r2 = correlator.eventCorrelate(c.next);
      expect(r2.skip).toBe(c.skip);
      if (!c.skip) expect(r2.event).toMatchObject({ reason: c.next.reason, message: c.next.message, count: 1 });
    });
  }

  it("the default bucket allows a burst of 25 and refills one event per 5 minutes", () => {
    let t = START;
    const clock: Clock = {
      now: () => t,
      since: (x) => t - x,
      afterFunc: () => ({ stop: () => false, reset: () => false }),
      newTicker: () => ({ stop() {} }),
      sleep: async () => {},
    };
    const correlator = new EventCorrelator({ clock });
    const results = Array.from({ length: 26 }, (_, i) => correlator.eventCorrelate(makeEvent(`r${i}`, "m", ref)).skip);
    expect(results.filter((s) => !s)).toHaveLength(25);
    expect(results[25]).toBe(true);
    t += 299_000;
    expect(correlator.eventCorrelate(makeEvent("late", "m", ref)).skip).toBe(true);
    t += 1_000;
    expect(correlator.eventCorrelate(makeEvent("later", "m", ref)).skip).toBe(false);
  });
});
