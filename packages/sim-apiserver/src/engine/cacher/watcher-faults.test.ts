// Watcher faults of the engine, in virtual time: "a watcher that stops reading" (stallWatchers) is closed by the
// dispatcher's budget while its neighbours keep every event; dropWatches; future stall rules by user agent.
import type { KubeObject, WatchEvent } from "@informer-ts/apimachinery";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { SimApiServer, type SimWatch } from "../sim-apiserver.js";
import { UnknownResourceError } from "../unknown-resource-error.js";

function cm(name: string): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { k: name } };
}

/** Drains a watch in the background; `done` settles when the watch ends. */
function consume(w: SimWatch) {
  const events: WatchEvent[] = [];
  const done = (async () => {
    for await (const e of w) events.push(e);
  })();
  return { events, done };
}

async function setup() {
  const clock = new FakeClock();
  const engine = new SimApiServer({ clock, rand: seededRand(7), compactionIntervalMs: 0 });
  const rv = (await engine.list("configmaps", "default")).metadata?.resourceVersion ?? "";
  const opts = { resourceVersion: rv, timeoutSeconds: 3600 };
  const slow = await engine.watch("configmaps", "default", opts, { userAgent: "slow-client/1.0" });
  const fast = await engine.watch("configmaps", "default", opts, { userAgent: "fast-client/1.0" });
  return { clock, engine, slow: consume(slow), fast: consume(fast) };
}

/** Writes n objects, letting consumers run between writes, then lets the dispatcher's budget timer fire. */
async function churn(engine: SimApiServer, clock: FakeClock, n: number) {
  for (let i = 0; i < n; i++) {
    await engine.create("configmaps", "default", cm(`c-${i}`));
    await settle();
  }
  await clock.step(1000);
  await settle();
}

describe("engine watcher faults", () => {
  it("stallWatchers: the stalled watcher is closed by the dispatch budget; the other gets every event", async () => {
    const { clock, engine, slow, fast } = await setup();
    expect(engine.faults.stallWatchers({ userAgent: "slow-client" })).toBe(1);
    expect(engine.caches.watcherInfo("configmaps").map((w) => [w.userAgent, w.stalled])).toEqual([
      ["slow-client/1.0", true],
      ["fast-client/1.0", false],
    ]);
    await churn(engine, clock, 50);
    await slow.done;
    expect(slow.events).toEqual([]);
    expect(engine.caches.cacher("configmaps").terminatedWatchers).toBe(1);
    expect(engine.caches.watcherInfo().map((w) => w.userAgent)).toEqual(["fast-client/1.0"]);
    expect(fast.events.map((e) => (e.object as KubeObject).metadata?.name)).toEqual(
      Array.from({ length: 50 }, (_, i) => `c-${i}`),
    );
    engine.stop();
    await fast.done;
  });

  it("control: without the fault the same churn closes nobody", async () => {
    const { clock, engine, slow, fast } = await setup();
    await churn(engine, clock, 50);
    expect(engine.caches.cacher("configmaps").terminatedWatchers).toBe(0);
    expect(slow.events).toHaveLength(50);
    expect(fast.events).toHaveLength(50);
    engine.stop();
    await Promise.all([slow.done, fast.done]);
  });

  it("resumeWatchers before the buffers overflow delivers what was buffered, in order", async () => {
    const { clock, engine, slow, fast } = await setup();
    engine.faults.stallWatchers({ ids: [engine.caches.watcherInfo("configmaps")[0]!.id], resource: "configmaps" });
    await churn(engine, clock, 5);
    expect(slow.events).toEqual([]);
    expect(engine.caches.watcherInfo()[0]).toMatchObject({ stalled: true, resultLength: 5 });
    expect(engine.faults.resumeWatchers()).toBe(1);
    await settle();
    expect(slow.events.map((e) => (e.object as KubeObject).metadata?.name)).toEqual([
      "c-0",
      "c-1",
      "c-2",
      "c-3",
      "c-4",
    ]);
    expect(fast.events).toHaveLength(5);
    engine.stop();
    await Promise.all([slow.done, fast.done]);
  });

  it("a future stall rule stalls watchers opened later by that user agent", async () => {
    const clock = new FakeClock();
    const engine = new SimApiServer({ clock, rand: seededRand(7), compactionIntervalMs: 0 });
    expect(engine.faults.stallWatchers({ userAgent: "late" }, true)).toBe(0);
    const w = await engine.watch("configmaps", "", { timeoutSeconds: 3600 }, { userAgent: "late-joiner" });
    const other = await engine.watch("configmaps", "", { timeoutSeconds: 3600 }, { userAgent: "other" });
    expect(engine.caches.watcherInfo().map((i) => i.stalled)).toEqual([true, false]);
    expect(() => engine.faults.stallWatchers({ resource: "gizmos" })).toThrow(UnknownResourceError);
    w.stop();
    other.stop();
    engine.stop();
  });

  it("dropWatches closes the selected resource's watches; asError makes in-process iteration throw", async () => {
    const { engine, slow, fast } = await setup();
    const extra = await engine.watch("secrets", "", { timeoutSeconds: 3600 });
    expect(engine.faults.dropWatches("configmaps", true)).toBe(2);
    await expect(slow.done).rejects.toThrow("watch connection dropped (fault)");
    await expect(fast.done).rejects.toMatchObject({ code: "ECONNRESET" });
    expect(engine.caches.watcherInfo().map((w) => w.resource)).toEqual(["secrets"]);
    expect(engine.faults.dropWatches()).toBe(1);
    expect(await extra.next()).toEqual({ done: true, value: undefined });
    engine.stop();
  });
});
