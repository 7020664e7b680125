import type { KubeObject } from "@informer-ts/apimachinery";
import {
  type InformerResource,
  newSharedInformerFactoryWithOptions,
  silentLogger,
  splitMetaNamespaceKey,
  syncResultAsError,
  withInformerOptions,
} from "@informer-ts/cache";
import { FakeControllerSource } from "@informer-ts/cache/testing";
import { realClock, seededRand } from "@informer-ts/clock";
import { Controller, enqueueRequestForObject } from "@informer-ts/controller";
import { type MetricsProvider, PromMetrics } from "@informer-ts/instrumentation";
import { defaultControllerRateLimiter, RateLimitingQueue } from "@informer-ts/workqueue";
import { controllerOverHttp } from "./controller-http.js";
import { type BenchResult, type BenchRow, forceGc } from "./report.js";
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
async function controllerThroughput(n: number, workers: number, metrics?: MetricsProvider): Promise<number> {
  let done = 0;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const controller = new Controller({
    name: `bench-${workers}`,
    watches: [],
    maxConcurrentReconciles: workers,
    ...(metrics !== undefined && { metrics }),
    reconciler: () => {
      if (++done === n) finish();
    },
  });
  for (let i = 0; i < n; i++) controller.enqueue({ namespace: `ns-${i % 100}`, name: `cm-${i}` });
  const stop = new AbortController();
  forceGc();
  const start = process.hrtime.bigint();
  const run = controller.run(stop.signal);
  await finished;
  const s = secondsSince(start);
  stop.abort();
  await run;
  return n / s;
}

/**
 * The bare baseline: the same `n` keys in a {@link RateLimitingQueue} (the controller's default rate limiter) drained
 * by `workers` async loops doing get → await a no-op → forget → done. It does less than any controller can: it never
 * turns the key into a request and handles no error.
 */
async function bareLoopThroughput(n: number, workers: number): Promise<number> {
  const queue = new RateLimitingQueue<string>(defaultControllerRateLimiter<string>(), { name: `bare-${workers}` });
  for (let i = 0; i < n; i++) queue.add(`ns-${i % 100}/cm-${i}`);
  let done = 0;
  forceGc();
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

/**
 * The hand-written baseline: what a client-go user writes on the same queue (sample-controller's `processNextWorkItem`)
 * — get → split the key into namespace and name → await the reconcile function in a try/catch → forget on success or
 * addRateLimited on error → done, with `workers` async loops. The reconcile is the same no-op function the controller
 * runs.
 */
async function handWrittenLoopThroughput(n: number, workers: number): Promise<number> {
  const queue = new RateLimitingQueue<string>(defaultControllerRateLimiter<string>(), { name: `hand-${workers}` });
  for (let i = 0; i < n; i++) queue.add(`ns-${i % 100}/cm-${i}`);
  let done = 0;
  const reconcile = (_namespace: string, _name: string): void => {
    if (++done === n) queue.shutDown();
  };
  forceGc();
  const start = process.hrtime.bigint();
  const loop = async (): Promise<void> => {
    for (;;) {
      let key = queue.tryGet();
      if (key === undefined) {
        const [item, shutdown] = await queue.get();
        if (shutdown) return;
        key = item as string;
      }
      try {
        const [namespace, name] = splitMetaNamespaceKey(key);
        await reconcile(namespace, name);
        queue.forget(key);
      } catch {
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, loop));
  const s = secondsSince(start);
  if (done !== n) throw new Error(`hand-written loop reconciled ${done} keys, expected ${n}`);
  return n / s;
}

/** The median of `xs` (not sorted in place). */
function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

interface ThroughputRounds {
  readonly bare: number[];
  readonly hand: number[];
  readonly controller: number[];
  /** The controller recording into a fresh PromMetrics registry (the Manager's default), when asked for. */
  readonly prom: number[];
}

/**
 * `rounds` rounds of the three loops with `workers` workers, the order rotated each round, a full GC before each timed
 * run: each round's three figures are taken within a second of each other, so their ratios see the same machine load.
 */
async function throughputRounds(
  n: number,
  workers: number,
  rounds: number,
  withProm = false,
): Promise<ThroughputRounds> {
  const r: ThroughputRounds = { bare: [], hand: [], controller: [], prom: [] };
  const runs = [
    async () => r.bare.push(await bareLoopThroughput(n, workers)),
    async () => r.hand.push(await handWrittenLoopThroughput(n, workers)),
    async () => r.controller.push(await controllerThroughput(n, workers)),
  ];
  if (withProm) runs.push(async () => r.prom.push(await controllerThroughput(n, workers, new PromMetrics())));
  for (let i = 0; i < rounds; i++) for (let j = 0; j < runs.length; j++) await runs[(i + j) % runs.length]!();
  return r;
}

/** The median over rounds of `base[i] / ours[i]` (the per-round overhead). */
function medianRatio(base: readonly number[], ours: readonly number[]): number {
  return median(base.map((b, i) => b / ours[i]!));
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
  /** p99 of the informer's part: modification → a plain handler on the same informer sees it. */
  readonly informerP99: number;
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
  const informerLatencies: number[] = [];
  let measuring = false;
  // A plain handler beside the controller's: when the informer delivered the modification (its own listener).
  informer.addEventHandler({
    onUpdate: (_old, obj) => {
      const t = pending.get(`${obj.metadata?.namespace}/${obj.metadata?.name}`);
      if (t !== undefined && measuring) informerLatencies.push(performance.now() - t);
    },
  });
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
  informerLatencies.sort((a, b) => a - b);
  return {
    informerP99: percentile(informerLatencies, 99),
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
 * BENCH_CONTROLLER_N keys (default 100k) against a hand-written RateLimitingQueue loop with as many async workers (and a bare no-op loop), in the same
 * run (goal: controller ≥ 1/1.2 of the bare loop), and the same controller recording into a fresh {@link PromMetrics} in the
 * same rounds (its ratios to the hand-written loop and to the metrics-off controller). (2) Event-to-reconcile latency p50/p99 at 1k and 10k events/s
 * for BENCH_CONTROLLER_LATENCY_SECONDS (default 3) through a shared informer on an in-process source, real clock
 * (goal: p99 < 10 ms at 1k events/s). Prints numbers; asserts nothing.
 */
export async function runController(): Promise<BenchResult> {
  const n = envInt("BENCH_CONTROLLER_N", 100_000, 1);
  const seconds = envInt("BENCH_CONTROLLER_LATENCY_SECONDS", 3, 1);
  const pool = envInt("BENCH_CONTROLLER_POOL", 5000, 1);
  const rounds = envInt("BENCH_CONTROLLER_ROUNDS", 7, 1);
  const rows: BenchRow[] = [];
  // Warm-up (discarded) so that no measured variant pays the JIT.
  await throughputRounds(Math.min(n, 20_000), 1, 2, true);
  await throughputRounds(Math.min(n, 20_000), 4, 1, true);
  for (const w of WORKER_COUNTS) {
    const r = await throughputRounds(n, w, rounds, true);
    const ours = median(r.controller);
    const hand = medianRatio(r.hand, r.controller);
    const bare = medianRatio(r.bare, r.controller);
    rows.push({
      case: `no-op reconcile throughput, ${w} worker${w === 1 ? "" : "s"} — ${n} keys`,
      value: ours,
      unit: "keys/s",
      baseline: median(r.hand),
      ratioLabel: "hand-written loop/controller (overhead)",
      ratio: hand,
      goal: "≤ 1.2× hand-written loop",
      met: hand <= 1.2,
      note: `bare no-op loop ${Math.round(median(r.bare)).toLocaleString("en-US")} keys/s, bare/controller ${bare.toFixed(2)}×`,
    });
    if (r.prom.length > 0) {
      const prom = medianRatio(r.hand, r.prom);
      const promVsOff = medianRatio(r.controller, r.prom);
      rows.push({
        case: `no-op reconcile throughput with PromMetrics (the Manager's default), ${w} worker${w === 1 ? "" : "s"}`,
        value: median(r.prom),
        unit: "keys/s",
        baseline: median(r.hand),
        ratioLabel: "hand-written loop (no metrics)/controller with PromMetrics",
        ratio: prom,
        note:
          `controller_runtime_* and workqueue_* recorded through prom-client on every key; metrics off ` +
          `${Math.round(median(r.controller)).toLocaleString("en-US")} keys/s, metrics-off/PromMetrics ` +
          `${promVsOff.toFixed(2)}× (same rounds)`,
      });
    }
  }
  for (const rate of [1000, 10_000]) {
    const l = await eventToReconcileLatency(rate, seconds, pool);
    const note = `${l.samples} samples of ${l.sent} events; achieved ${Math.round(l.achievedRate)} events/s; max ${l.max.toFixed(1)} ms`;
    rows.push({ case: `event-to-reconcile latency p50 at ${rate} events/s`, value: l.p50, unit: "ms", note });
    rows.push({
      case: `event-to-reconcile latency p99 at ${rate} events/s`,
      value: l.p99,
      unit: "ms",
      note: `of which the informer (modification → a plain handler): p99 ${l.informerP99.toFixed(1)} ms`,
      ...(rate === 1000 && { goal: "< 10 ms", met: l.p99 < 10 }),
    });
  }
  const http =
    process.env.BENCH_CONTROLLER_HTTP === "0"
      ? undefined
      : await controllerOverHttp(pool, [1000, 10_000], seconds, envInt("BENCH_CONTROLLER_HTTP_ROUNDS", 3, 1));
  if (http !== undefined) rows.push(...http.rows);
  return {
    name: "controller",
    rows,
    meta: {
      ...http?.meta,
      node: process.version,
      keys: n,
      latencySeconds: seconds,
      latencyPool: pool,
      throughput:
        `median of ${rounds} rounds (order rotated, full GC before each run); ratios are medians of per-round ratios; ` +
        "no watches, keys queued before run(); the goal is against the hand-written loop (a controller must split the " +
        "key and handle errors), the bare no-op loop is shown for reference",
      latency: "FakeControllerSource → shared informer → controller (1 worker), RealClock; shared 2-core machine",
    },
  };
}
