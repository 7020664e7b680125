import { getEventListeners } from "node:events";
import type { KubeObject, WatchEvent } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import { emptyWatch, StreamWatcher, type StreamWatcherResult, type WatchBody } from "./stream-watcher.js";
import { WatchDecodeError } from "./watch-decoder.js";

/** A body fed by the test; destroy() makes a pending read fail like an aborted socket. */
function controllableBody() {
  const queue: (string | Error | null)[] = [];
  let wake: (() => void) | undefined;
  let destroyed = 0;
  let released = 0;
  const body: WatchBody = {
    destroy() {
      destroyed++;
      queue.push(Object.assign(new Error("Request aborted"), { code: "UND_ERR_ABORTED" }));
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      try {
        for (;;) {
          while (queue.length === 0) await new Promise<void>((r) => (wake = r));
          const item = queue.shift()!;
          if (item === null) return;
          if (item instanceof Error) throw item;
          yield item;
        }
      } finally {
        released++;
      }
    },
  };
  const push = (x: string | Error | null) => {
    queue.push(x);
    wake?.();
  };
  return { body, push, destroyed: () => destroyed, released: () => released };
}

const line = (type: string, name: string) => `${JSON.stringify({ type, object: { metadata: { name } } })}\n`;

describe("StreamWatcher (watch.StreamWatcher)", () => {
  it("delivers events, ends when the server ends, and reports the result once", async () => {
    const b = controllableBody();
    const results: StreamWatcherResult[] = [];
    const w = new StreamWatcher(b.body, { onDone: (r) => results.push(r) });
    b.push(line("ADDED", "a") + line("DELETED", "a"));
    b.push(null);
    const got: WatchEvent[] = [];
    for await (const e of w) got.push(e);
    expect(got.map((e) => e.type)).toEqual(["ADDED", "DELETED"]);
    expect(results).toEqual([{ events: 2, stopped: false }]);
    expect(w.done).toBe(true);
  });

  it("stop() resolves a pending next() as done, swallows the abort error, and is idempotent", async () => {
    const b = controllableBody();
    const results: StreamWatcherResult[] = [];
    const w = new StreamWatcher(b.body, { onDone: (r) => results.push(r) });
    const it = w[Symbol.asyncIterator]();
    const pending = it.next();
    await new Promise((r) => setImmediate(r));
    w.stop();
    w.stop();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(b.destroyed()).toBe(1);
    expect(results).toEqual([{ events: 0, stopped: true }]);
    expect((await it.next()).done).toBe(true);
  });

  it("stop() between events (no next() pending) finishes at once: onDone once, body released, listener removed", async () => {
    const b = controllableBody();
    const ac = new AbortController();
    const results: StreamWatcherResult[] = [];
    const w = new StreamWatcher(b.body, { signal: ac.signal, onDone: (r) => results.push(r) });
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(1);
    b.push(line("ERROR", "a") + line("ADDED", "b"));
    const it = w[Symbol.asyncIterator]();
    expect((await it.next()).done).toBe(false);
    // The consumer stops after an event without calling return(), as the reflector does after an ERROR event.
    w.stop();
    expect(results).toEqual([{ events: 1, stopped: true }]);
    expect(b.destroyed()).toBe(1);
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(0);
    // The decoder's cleanup (it returns the body's iterator) runs on a later turn.
    await new Promise((r) => setImmediate(r));
    expect(b.released()).toBe(1);
    expect(await it.next()).toEqual({ done: true, value: undefined });
    w.stop();
    expect(results).toHaveLength(1);
    expect(b.released()).toBe(1);
  });

  it("an event that wins the race with stop() during a pending next() is dropped and the body is released", async () => {
    const b = controllableBody();
    const ac = new AbortController();
    const results: StreamWatcherResult[] = [];
    const w = new StreamWatcher(b.body, { signal: ac.signal, onDone: (r) => results.push(r) });
    const it = w[Symbol.asyncIterator]();
    const pending = it.next();
    await new Promise((r) => setImmediate(r));
    // Data arrives just before the abort: the pending read sees the event, not the abort error.
    b.push(line("ADDED", "a"));
    ac.abort();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(results).toEqual([{ events: 0, stopped: true }]);
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(0);
    await new Promise((r) => setImmediate(r));
    expect(b.released()).toBe(1);
  });

  it("stop() before iterating releases the body and finishes; iteration then yields nothing", async () => {
    const b = controllableBody();
    const results: StreamWatcherResult[] = [];
    const w = new StreamWatcher(b.body, { onDone: (r) => results.push(r) });
    w.stop();
    expect(b.destroyed()).toBe(1);
    expect(results).toHaveLength(1);
    const got: unknown[] = [];
    for await (const e of w) got.push(e);
    expect(got).toEqual([]);
  });

  it("an aborted signal stops it; an already-aborted one stops it at once", async () => {
    const b = controllableBody();
    const ac = new AbortController();
    const w = new StreamWatcher(b.body, { signal: ac.signal });
    const next = w[Symbol.asyncIterator]().next();
    ac.abort();
    expect((await next).done).toBe(true);
    const b2 = controllableBody();
    const w2 = new StreamWatcher(b2.body, { signal: AbortSignal.abort() });
    expect(w2.done).toBe(true);
    expect(b2.destroyed()).toBe(1);
  });

  it("a decode error is thrown from iteration, releases the body and is reported", async () => {
    const b = controllableBody();
    const results: StreamWatcherResult[] = [];
    const w = new StreamWatcher(b.body, { onDone: (r) => results.push(r) });
    b.push(`${line("ADDED", "a")}not json\n`);
    const got: WatchEvent[] = [];
    const err = await (async () => {
      for await (const e of w) got.push(e);
    })().catch((e: unknown) => e);
    expect(got).toHaveLength(1);
    expect(err).toBeInstanceOf(WatchDecodeError);
    expect(b.destroyed()).toBe(1);
    expect(results).toHaveLength(1);
    expect(results[0]!.error).toBe(err);
  });

  it("a transport error mid-stream is thrown unchanged", async () => {
    const b = controllableBody();
    const w = new StreamWatcher(b.body);
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    b.push(line("ADDED", "a"));
    b.push(reset);
    const err = await (async () => {
      for await (const _ of w) {
        // consume
      }
    })().catch((e: unknown) => e);
    expect(err).toBe(reset);
  });

  it("breaking out of for-await releases the body", async () => {
    const b = controllableBody();
    const w = new StreamWatcher(b.body);
    b.push(line("ADDED", "a") + line("ADDED", "b"));
    for await (const _ of w) break;
    expect(b.destroyed()).toBe(1);
    expect(w.done).toBe(true);
  });

  it("nextBatch() hands over a chunk's events at once, shares the buffer with next(), and ends like it", async () => {
    const b = controllableBody();
    const results: StreamWatcherResult[] = [];
    const w = new StreamWatcher(b.body, { onDone: (r) => results.push(r) });
    b.push(line("ADDED", "a") + line("ADDED", "b") + line("ADDED", "c"));
    const it = w[Symbol.asyncIterator]();
    const one = await it.next();
    expect(one.value?.object.metadata?.name).toBe("a");
    const rest = await w.nextBatch();
    expect(rest.done).toBe(false);
    expect((rest.value as WatchEvent[]).map((e) => (e.object as KubeObject).metadata?.name)).toEqual(["b", "c"]);
    b.push(line("DELETED", "a"));
    const next = await w.nextBatch();
    expect((next.value as WatchEvent[]).map((e) => e.type)).toEqual(["DELETED"]);
    b.push(null);
    expect((await w.nextBatch()).done).toBe(true);
    expect(results).toEqual([{ events: 4, stopped: false }]);
  });

  it("nextBatch(): stop() with events still buffered ends it and drops them; a decode error is thrown", async () => {
    const b = controllableBody();
    const w = new StreamWatcher(b.body);
    b.push(line("ADDED", "a") + line("ADDED", "b"));
    expect((await w[Symbol.asyncIterator]().next()).value?.object.metadata?.name).toBe("a");
    w.stop();
    expect((await w.nextBatch()).done).toBe(true);
    await new Promise((r) => setImmediate(r));
    expect(b.released()).toBe(1);

    const bad = controllableBody();
    const w2 = new StreamWatcher(bad.body);
    bad.push(`${line("ADDED", "a")}not json\n`);
    expect(((await w2.nextBatch()).value as WatchEvent[]).length).toBe(1);
    await expect(w2.nextBatch()).rejects.toBeInstanceOf(WatchDecodeError);
    expect(bad.destroyed()).toBe(1);
  });

  it("a second iterator is the same single-consumer iterator", () => {
    const w = new StreamWatcher(controllableBody().body);
    expect(w[Symbol.asyncIterator]()).toBe(w[Symbol.asyncIterator]());
    w.stop();
  });

  it("emptyWatch yields nothing", async () => {
    const got: unknown[] = [];
    for await (const e of emptyWatch()) got.push(e);
    expect(got).toEqual([]);
  });
});
