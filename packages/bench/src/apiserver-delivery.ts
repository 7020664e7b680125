import { SimApiServer, type SimWatch } from "@informer-ts/sim-apiserver";
import { Client, elapsedMs, fmtInt, mib, NS, startSim, tick, until, WATCH_PATH } from "./apiserver-harness.js";
import type { ApiserverSizes } from "./apiserver-sizes.js";
import { forceGc } from "./report.js";
import { smallConfigMap } from "./util.js";

export type Consumer = (w: SimWatch, count: () => void) => void;

/** The usual consumer: `for await` over the watch. */
export const forAwaitConsumer: Consumer = (w, count) => {
  void (async () => {
    for await (const _event of w) count();
  })();
};

/** The cheapest consumer the engine offers: `next()` with a `then` callback, no async frame per watcher. */
export const thenConsumer: Consumer = (w, count) => {
  const onResult = (r: IteratorResult<unknown>): void => {
    if (r.done === true) return;
    count();
    w.next().then(onResult, () => {});
  };
  w.next().then(onResult, () => {});
};

export async function inProcessThroughput(
  sizes: ApiserverSizes,
  consumer: Consumer,
  writes = sizes.writes,
): Promise<{ perSec: number; note: string }> {
  const engine = new SimApiServer({ compactionIntervalMs: 0 });
  await engine.create("configmaps", NS, smallConfigMap("hot", NS, 0));
  const rv = String(engine.currentResourceVersion);
  const watchers = sizes.watchers;
  const watches: SimWatch[] = [];
  let delivered = 0;
  const count = () => {
    delivered++;
  };
  for (let i = 0; i < watchers; i++) {
    const w = await engine.watch("configmaps", NS, { resourceVersion: rv });
    watches.push(w);
    consumer(w, count);
  }
  const objects = Array.from({ length: writes }, (_, i) => smallConfigMap("hot", NS, i + 1));
  forceGc();
  const expected = watchers * writes;
  const start = process.hrtime.bigint();
  for (let i = 0; i < writes; i++) {
    await engine.update("configmaps", NS, "hot", objects[i]!);
    // Let timers and I/O run now and then (the dispatcher's budget timer is a real timer).
    if (i % 100 === 99) await tick();
  }
  const complete = await until(() => delivered >= expected, 60_000, 0);
  const ms = elapsedMs(start);
  const terminated = engine.caches.cacher("configmaps").terminatedWatchers;
  for (const w of watches) w.stop();
  engine.stop();
  return {
    perSec: delivered / (ms / 1000),
    note:
      `${fmtInt(delivered)} of ${fmtInt(expected)} in ${(ms / 1000).toFixed(2)} s` +
      (complete ? "" : " (incomplete)") +
      (terminated > 0 ? `, ${terminated} watchers closed as unresponsive` : ""),
  };
}

export async function httpThroughput(sizes: ApiserverSizes): Promise<{ perSec: number; note: string }> {
  const sim = await startSim();
  const { engine, server } = sim;
  await engine.create("configmaps", NS, smallConfigMap("hot", NS, 0));
  const rv = engine.currentResourceVersion;
  const watchers = sizes.watchers;
  const writes = sizes.httpWrites;
  const client = new Client();
  await client.ready();
  await client.open(`${sim.url}${WATCH_PATH}?watch=true&resourceVersion=${rv}`, watchers);
  await until(() => server.stats.openWatches >= watchers, 60_000);
  const before = server.stats.watchEvents;
  const objects = Array.from({ length: writes }, (_, i) => smallConfigMap("hot", NS, i + 1));
  forceGc();
  const expected = watchers * writes;
  // Pace the writer on what the server has written: at most `window` writes ahead of the slowest part of the pipe,
  // so the engine's per-watcher buffers (10 events at this history size) do not overflow and close watchers.
  const window = 4;
  const start = process.hrtime.bigint();
  for (let i = 0; i < writes; i++) {
    if (server.stats.watchEvents - before < (i - window) * watchers) {
      await until(() => server.stats.watchEvents - before >= (i - window) * watchers, 30_000, 0);
    }
    await engine.update("configmaps", NS, "hot", objects[i]!);
  }
  let received = 0;
  const complete = await until(async () => {
    received = (await client.count()).events;
    return received >= expected;
  }, 60_000);
  const ms = elapsedMs(start);
  const terminated = engine.caches.cacher("configmaps").terminatedWatchers;
  const bytes = server.stats.watchBytes;
  await client.close();
  await until(() => server.stats.openWatches === 0, 30_000);
  client.exit();
  await sim.stop();
  return {
    perSec: received / (ms / 1000),
    note:
      `${fmtInt(received)} of ${fmtInt(expected)} lines in ${(ms / 1000).toFixed(2)} s, ${mib(bytes)} written` +
      (complete ? "" : " (incomplete)") +
      (terminated > 0 ? `, ${terminated} watchers closed as unresponsive` : ""),
  };
}
