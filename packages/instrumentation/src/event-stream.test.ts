import { filter } from "rxjs";
import { describe, expect, it } from "vitest";
import { EventStream } from "./event-stream.js";
import { SubscriberErrorReporter } from "./safe-observable.js";

type E = { type: "started" } | { type: "stopped"; reason: string };

describe("EventStream", () => {
  it("delivers events to current subscribers only, in order, narrowable by type", () => {
    const s = new EventStream<E>();
    s.emit({ type: "started" }); // nobody listens: dropped
    const all: E[] = [];
    const stops: string[] = [];
    const sub = s.events$.subscribe((e) => all.push(e));
    s.events$.pipe(filter((e): e is Extract<E, { type: "stopped" }> => e.type === "stopped")).subscribe((e) => {
      stops.push(e.reason);
    });
    s.emit({ type: "started" });
    s.emit({ type: "stopped", reason: "done" });
    expect(all).toEqual([{ type: "started" }, { type: "stopped", reason: "done" }]);
    expect(stops).toEqual(["done"]);
    sub.unsubscribe();
    s.emit({ type: "started" });
    expect(all.length).toBe(2);
  });

  it("observed tells whether anyone listens", () => {
    const s = new EventStream<E>();
    expect(s.observed).toBe(false);
    const sub = s.events$.subscribe();
    expect(s.observed).toBe(true);
    sub.unsubscribe();
    expect(s.observed).toBe(false);
  });

  it("complete ends the stream; later emits are ignored and never throw", () => {
    const s = new EventStream<E>();
    let completed = false;
    const seen: E[] = [];
    s.events$.subscribe({ next: (e) => seen.push(e), complete: () => (completed = true) });
    s.complete();
    expect(completed).toBe(true);
    expect(() => s.emit({ type: "started" })).not.toThrow();
    expect(seen).toEqual([]);
  });
});

describe("EventStream safety", () => {
  it("hands out a read-only stream: no emit/complete on it, and a throwing subscriber is reported", async () => {
    const reports: unknown[] = [];
    const s = new EventStream<E>({
      name: "x events$",
      reporter: new SubscriberErrorReporter({ publish: (r) => reports.push(r) > 0 }),
    });
    expect("emit" in s.events$).toBe(false);
    expect("next" in s.events$).toBe(false);
    const seen: E[] = [];
    s.events$.subscribe(() => {
      throw new Error("consumer bug");
    });
    s.events$.subscribe((e) => seen.push(e));
    s.emit({ type: "started" });
    s.emit({ type: "started" });
    expect(seen).toHaveLength(2);
    expect(reports).toHaveLength(2);
    expect(reports[0]).toMatchObject({ stream: "x events$", callback: "next" });
  });
});
