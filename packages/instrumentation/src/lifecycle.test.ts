import { getEventListeners } from "node:events";
import { Subject, takeUntil } from "rxjs";
import { describe, expect, it } from "vitest";
import { runAsObservable, SignalLink } from "./lifecycle.js";

describe("SignalLink", () => {
  it("50 links share one listener on the parent, abort with its reason, and the last release removes it", () => {
    const parent = new AbortController();
    const links = Array.from({ length: 50 }, () => new SignalLink(parent.signal));
    expect(getEventListeners(parent.signal, "abort")).toHaveLength(1);
    links[0]?.release();
    links[0]?.release();
    expect(getEventListeners(parent.signal, "abort")).toHaveLength(1);
    parent.abort("bye");
    expect(links.slice(1).every((l) => l.signal.aborted && l.signal.reason === "bye")).toBe(true);
    expect(links[0]?.signal.aborted).toBe(false); // released before: no longer linked
    for (const l of links) l.release();
    expect(getEventListeners(parent.signal, "abort")).toHaveLength(0);
  });

  it("releasing every link before the abort leaves the parent without listeners; new links re-attach", () => {
    const parent = new AbortController();
    const a = new SignalLink(parent.signal);
    const b = new SignalLink(parent.signal);
    a.release();
    b.release();
    expect(getEventListeners(parent.signal, "abort")).toHaveLength(0);
    const c = new SignalLink(parent.signal);
    expect(getEventListeners(parent.signal, "abort")).toHaveLength(1);
    parent.abort();
    expect([a.signal.aborted, b.signal.aborted, c.signal.aborted]).toEqual([false, false, true]);
    expect(getEventListeners(parent.signal, "abort")).toHaveLength(0);
  });

  it("starts aborted under an aborted parent; aborting the link leaves the parent alone", () => {
    const parent = new AbortController();
    parent.abort("early");
    expect(new SignalLink(parent.signal).signal.reason).toBe("early");
    const other = new AbortController();
    const link = new SignalLink(other.signal);
    link.abort("mine");
    expect(link.signal.aborted).toBe(true);
    expect(other.signal.aborted).toBe(false);
    link.release();
    expect(getEventListeners(other.signal, "abort")).toHaveLength(0);
    expect(new SignalLink().signal.aborted).toBe(false);
  });
});

describe("runAsObservable", () => {
  it("the subscription is the run: unsubscribing aborts it, its end completes the Observable", async () => {
    let signal: AbortSignal | undefined;
    let release: () => void = () => {};
    const run = (s: AbortSignal) => {
      signal = s;
      return new Promise<void>((resolve) => {
        release = resolve;
        s.addEventListener("abort", () => resolve(), { once: true });
      });
    };
    const stop$ = new Subject<void>();
    let completed = false;
    runAsObservable(run)
      .pipe(takeUntil(stop$))
      .subscribe({ complete: () => (completed = true) });
    expect(signal?.aborted).toBe(false);
    stop$.next();
    expect(signal?.aborted).toBe(true);
    expect(completed).toBe(true);

    const done = new Promise<void>((resolve) => runAsObservable(run).subscribe({ complete: resolve }));
    release();
    await done;
  });

  it("errors with the run's rejection or synchronous throw", async () => {
    const rejected = new Promise<unknown>((resolve) =>
      runAsObservable(() => Promise.reject(new Error("failed"))).subscribe({ error: resolve }),
    );
    expect(((await rejected) as Error).message).toBe("failed");
    let thrown: unknown;
    runAsObservable(() => {
      throw new Error("sync");
    }).subscribe({ error: (e) => (thrown = e) });
    expect((thrown as Error).message).toBe("sync");
  });
});
