import type { KubeObject } from "@informer-ts/apimachinery";
import {
  FakeControllerSource,
  type InformerResource,
  newSharedInformerFactoryWithOptions,
  silentLogger,
  syncResultAsError,
  withInformerOptions,
} from "@informer-ts/cache";
import { realClock, seededRand } from "@informer-ts/clock";
import { Controller, enqueueRequestForObject } from "@informer-ts/controller";
import { defaultControllerRateLimiter, RateLimitingQueue } from "@informer-ts/workqueue";
import type { BenchResult, BenchRow } from "./report.js";
import { envInt, smallConfigMap } from "./util.js";

const WORKER_COUNTS = [1, 4, 16] as const;

/** Seconds since `start` (monotonic). */
function secondsSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/**
 * No-op reconciles of `n` distinct keys, queued before the start, by a {@link Controller} with `workers` workers and no
 * watches: keys/s from `run()` to the last reconcile (queue, worker loop, reconcile contract, metrics hooks).
 */
async function controllerThroughput(n: number, workers: number): Promise<number> {
  let done = 0;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const controller = new Controller({
    name: `bench-${workers}`,
    watches: [],
    maxConcurrentReconciles: workers,
    reconciler: () => {
      if (++done === n) finish();
    },
  });
  for (let i = 0; i < n; i++) controller.enqueue({ namespace: `ns-${i % 100}`, name: `cm-${i}` });
  const stop = new AbortController();
  const start = process.hrtime.bigint();
  const run = controller.run(stop.signal);
  await finished;
  const s = secondsSince(start);
  stop.abort();
  await run;
  return n / s;
}

/**
 * The baseline: the same `n` keys in a bare {@link RateLimitingQueue} (the controller's default rate limiter) drained
 * by `workers` async loops doing get → no-op → forget → done, as a hand-written controller would.
 */
async function bareLoopThroughput(n: number, workers: number): Promise<number> {
  const queue = new RateLimitingQueue<string>(defaultControllerRateLimiter<string>(), { name: `bare-${workers}` });
  for (let i = 0; i < n; i++) queue.add(`ns-${i % 100}/cm-${i}`);
  let done = 0;
  const start = process.hrtime.bigint();
  const loop = async (): Promise<void> => {
    for (;;) {
      let key = queue.tryGet();
      if (key === undefined) {
        if (done === n) return;
        const [item, shutdown] = await queue.get();
        if (shutdown) return;
        key = item as string;
      }
      // The no-op reconcile, awaited like a real one.
      await undefined;
      done++;
      queue.forget(key);
      queue.done(key);
      if (done === n) queue.shutDown();
    }
  };
  await Promise.all(Array.from({ length: workers }, loop));
  const s = secondsSince(start);
  if (done !== n) throw new Error(`bare loop reconciled ${done} keys, expected ${n}`);
  return n / s;
}

/** The p-th percentile (0–100) of sorted `xs`. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

interface Latency {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly samples: number;
  readonly sent: number;
  readonly achievedRate: number;
}

const configmaps: InformerResource = { group: "", version: "v1", resource: "configmaps", kind: "ConfigMap" };

/**
 * Event-to-reconcile latency: a shared informer (real clock) on an in-process {@link FakeControllerSource} holding
 * `pool` ConfigMaps, a controller with one worker on it; a producer modifies them round-robin at `rate` events/s for
 * `seconds`. Latency is from the modification (just before the source emits the watch event) to the start of the
 * reconcile of that key; a key modified again before its reconcile keeps its first time (the queue merges them).
 */
async function eventToReconcileLatency(rate: number, seconds: number, pool: number): Promise<Latency> {
  const source = new FakeControllerSource<KubeObject>({
    clock: realClock,
    rand: seededRand(1),
    initialResourceVersion: 1,
    bookmarkKind: { apiVersion: "v1", kind: "ConfigMap" },
  });
  const objects: KubeObject[] = [];
  for (let i = 0; i < pool; i++) objects.push(source.add(smallConfigMap(`cm-${i}`, `ns-${i % 10}`, i)));
  const factory = newSharedInformerFactoryWithOptions<InformerResource, KubeObject>(
    () => source,
    0,
    withInformerOptions<KubeObject>({ clock: realClock, rand: seededRand(2), reflector: { logger: silentLogger } }),
  );
  const informer = factory.informerFor(configmaps);
  const pending = new Map<string, number>();
  const latencies: number[] = [];
  let measuring = false;
  const controller = new Controller({
    name: `latency-${rate}`,
    watches: [{ informer, handler: enqueueRequestForObject() }],
    reconciler: (req) => {
      const key = `${req.namespace}/${req.name}`;
      const t = pending.get(key);
      if (t !== undefined && measuring) {
        latencies.push(performance.now() - t);
        pending.delete(key);
      }
    },
  });
  const stop = new AbortController();
  factory.start(stop.signal);
  const err = syncResultAsError(await factory.waitForCacheSync(stop.signal));
  if (err !== undefined) throw err;
  const run = controller.run(stop.signal);
  // Let the initial ADDED reconciles drain before measuring.
  while (controller.status().reconciles < pool) await new Promise<void>((r) => setTimeout(r, 5));
  measuring = true;
  const total = Math.round(rate * seconds);
  let sent = 0;
  const start = performance.now();
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate));
    for (; sent < due; sent++) {
      const i = sent % pool;
      const o = objects[i]!;
      const key = `${o.metadata?.namespace}/${o.metadata?.name}`;
      if (!pending.has(key)) pending.set(key, performance.now());
      objects[i] = source.modify({ ...o, data: { ...(o.data as Record<string, string>), seq: String(sent) } });
    }
    await new Promise<void>((r) => setTimeout(r, 1));
  }
  const elapsed = (performance.now() - start) / 1000;
  // Wait (bounded) for the last reconciles.
  const deadline = performance.now() + 5000;
  while (pending.size > 0 && performance.now() < deadline) await new Promise<void>((r) => setTimeout(r, 5));
  measuring = false;
  stop.abort();
  await run;
  await factory.shutdown();
  latencies.sort((a, b) => a - b);
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.at(-1) ?? Number.NaN,
    samples: latencies.length,
    sent,
    achievedRate: sent / elapsed,
  };
}

/**
 * Controller benchmarks (issue 12), in-process, no HTTP. (1) No-op reconcile throughput with 1, 4 and 16 workers of
 * BENCH_CONTROLLER_N keys (default 200k) against a bare RateLimitingQueue loop with as many async workers, in the same
 * run (goal: controller ≥ 1/1.2 of the bare loop). (2) Event-to-reconcile latency p50/p99 at 1k and 10k events/s
 * for BENCH_CONTROLLER_LATENCY_SECONDS (default 3) through a shared informer on an in-process source, real clock
 * (goal: p99 < 10 ms at 1k events/s). Prints numbers; asserts nothing.
 */
export async function runController(): Promise<BenchResult> {
  const n = envInt("BENCH_CONTROLLER_N", 200_000, 1);
  const seconds = envInt("BENCH_CONTROLLER_LATENCY_SECONDS", 3, 1);
  const pool = envInt("BENCH_CONTROLLER_POOL", 5000, 1);
  const rows: BenchRow[] = [];
  // Warm-up (discarded) so that the first measured variant does not pay the JIT.
  await bareLoopThroughput(Math.min(n, 20_000), 1);
  await controllerThroughput(Math.min(n, 20_000), 1);
  for (const w of WORKER_COUNTS) {
    // Alternate the order, best of two rounds each.
    const bare = await bareLoopThroughput(n, w);
    const ours = await controllerThroughput(n, w);
    const bare2 = await bareLoopThroughput(n, w);
    const ours2 = Math.max(ours, await controllerThroughput(n, w));
    const base = Math.max(bare, bare2);
    const overhead = base / ours2;
    rows.push({
      case: `no-op reconcile throughput, ${w} worker${w === 1 ? "" : "s"} — ${n} keys`,
      value: ours2,
      unit: "keys/s",
      baseline: base,
      ratioLabel: "bare/controller (overhead)",
      ratio: overhead,
      goal: "≤ 1.2× bare loop",
      met: overhead <= 1.2,
    });
  }
  for (const rate of [1000, 10_000]) {
    const l = await eventToReconcileLatency(rate, seconds, pool);
    const note = `${l.samples} samples of ${l.sent} events; achieved ${Math.round(l.achievedRate)} events/s; max ${l.max.toFixed(1)} ms`;
    rows.push({ case: `event-to-reconcile latency p50 at ${rate} events/s`, value: l.p50, unit: "ms", note });
    rows.push({
      case: `event-to-reconcile latency p99 at ${rate} events/s`,
      value: l.p99,
      unit: "ms",
      ...(rate === 1000 && { goal: "< 10 ms", met: l.p99 < 10 }),
    });
  }
  return {
    name: "controller",
    rows,
    meta: {
      node: process.version,
      keys: n,
      latencySeconds: seconds,
      latencyPool: pool,
      throughput: "best of 2 rounds, order alternated; no watches, keys queued before run()",
      latency: "FakeControllerSource → shared informer → controller (1 worker), RealClock; shared 2-core machine",
    },
  };
}
