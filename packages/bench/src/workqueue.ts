import { FakeClock } from "@informer-ts/clock";
import { DelayingQueue, Queue } from "@informer-ts/workqueue";
import { type BenchResult, type BenchRow, forceGc, heapUsed } from "./report.js";
import { MiB } from "./util.js";

const N = 1_000_000;
const BATCH = 1000;
const DELAYED = 100_000;
const REPS = 3;

/**
 * The naive baseline: an array with a head index plus one `Set` for deduplication. No in-flight set (so no
 * "never two workers" guarantee and no re-queue on done), no metrics, no shutdown, no waiting callers. Popped
 * slots stay in the array until it is empty (`shift()` would be O(n) per pop on a large array).
 */
class NaiveQueue<T> {
  private items: T[] = [];
  private head = 0;
  private readonly dirty = new Set<T>();

  add(item: T): void {
    if (this.dirty.has(item)) return;
    this.dirty.add(item);
    this.items.push(item);
  }

  tryGet(): T | undefined {
    if (this.head === this.items.length) return undefined;
    const item = this.items[this.head++] as T;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    }
    this.dirty.delete(item);
    return item;
  }

  get(): Promise<readonly [T, false]> {
    return Promise.resolve([this.tryGet() as T, false] as const);
  }

  done(_item: T): void {}

  len(): number {
    return this.items.length - this.head;
  }
}

/** The naive delaying baseline: an unsorted array of (item, readyAt), sorted once when it is drained. */
class NaiveDelaying<T> {
  private waiting: { item: T; readyAt: number }[] = [];
  constructor(
    private readonly clock: FakeClock,
    readonly queue: NaiveQueue<T>,
  ) {}
  addAfter(item: T, ms: number): void {
    this.waiting.push({ item, readyAt: this.clock.now() + ms });
  }
  flushDue(): void {
    const now = this.clock.now();
    this.waiting.sort((a, b) => a.readyAt - b.readyAt);
    let i = 0;
    while (i < this.waiting.length && this.waiting[i]!.readyAt <= now) this.queue.add(this.waiting[i++]!.item);
    this.waiting = this.waiting.slice(i);
  }
}

interface CycleQueue {
  add(item: string): void;
  tryGet(): string | undefined;
  get(): Promise<readonly [string | undefined, boolean]>;
  done(item: string): void;
}

function elapsedSeconds(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** 1M add/get/done cycles in batches of 1000 keys, each key added twice (50% duplicate adds). */
function syncCycles(q: CycleQueue, keys: readonly string[]): number {
  const start = process.hrtime.bigint();
  for (let b = 0; b < keys.length; b += BATCH) {
    for (let i = b; i < b + BATCH; i++) q.add(keys[i]!);
    for (let i = b; i < b + BATCH; i++) q.add(keys[i]!);
    for (let i = 0; i < BATCH; i++) q.done(q.tryGet()!);
  }
  return keys.length / elapsedSeconds(start);
}

async function asyncCycles(q: CycleQueue, keys: readonly string[]): Promise<number> {
  const start = process.hrtime.bigint();
  for (let b = 0; b < keys.length; b += BATCH) {
    for (let i = b; i < b + BATCH; i++) q.add(keys[i]!);
    for (let i = b; i < b + BATCH; i++) q.add(keys[i]!);
    for (let i = 0; i < BATCH; i++) {
      const [item] = await q.get();
      q.done(item!);
    }
  }
  return keys.length / elapsedSeconds(start);
}

/** Best of `REPS` runs after one warm-up, alternating ours and the baseline so both see the same machine. */
async function bestPair(
  ours: () => Promise<number> | number,
  naive: () => Promise<number> | number,
): Promise<[number, number]> {
  let a = 0;
  let b = 0;
  for (let r = 0; r <= REPS; r++) {
    const x = await ours();
    const y = await naive();
    if (r > 0) {
      a = Math.max(a, x);
      b = Math.max(b, y);
    }
  }
  return [a, b];
}

/** addAfter of 100k items with spread delays, then the FakeClock runs until every item landed, then a drain. */
async function delayedRun(keys: readonly string[]): Promise<{ addPerSec: number; totalMs: number }> {
  const clock = new FakeClock(0);
  const q = new DelayingQueue<string>({ clock });
  const start = process.hrtime.bigint();
  for (let i = 0; i < DELAYED; i++) q.addAfter(keys[i]!, 1 + ((i * 7919) % 600_000));
  const addPerSec = DELAYED / elapsedSeconds(start);
  await clock.runUntilIdle(10 * DELAYED); // one timer per distinct due time, plus heartbeats
  let n = 0;
  for (let item = q.tryGet(); item !== undefined; item = q.tryGet()) {
    q.done(item);
    n++;
  }
  const totalMs = elapsedSeconds(start) * 1000;
  if (n !== DELAYED) throw new Error(`delaying queue lost items: ${n} of ${DELAYED}`);
  q.shutDown();
  return { addPerSec, totalMs };
}

async function naiveDelayedRun(keys: readonly string[]): Promise<{ addPerSec: number; totalMs: number }> {
  const clock = new FakeClock(0);
  const d = new NaiveDelaying(clock, new NaiveQueue<string>());
  const start = process.hrtime.bigint();
  for (let i = 0; i < DELAYED; i++) d.addAfter(keys[i]!, 1 + ((i * 7919) % 600_000));
  const addPerSec = DELAYED / elapsedSeconds(start);
  await clock.advanceTo(600_001);
  d.flushDue();
  let n = 0;
  for (let item = d.queue.tryGet(); item !== undefined; item = d.queue.tryGet()) n++;
  const totalMs = elapsedSeconds(start) * 1000;
  if (n !== DELAYED) throw new Error(`naive delaying queue lost items: ${n} of ${DELAYED}`);
  return { addPerSec, totalMs };
}

/** Heap of an empty queue vs. the same queue after 1M items went through it (all handed out and done). */
function heapAfterDrain(
  make: () => CycleQueue,
  keys: readonly string[],
): { before: number; peak: number; after: number } {
  const q = make();
  const before = heapUsed();
  for (const k of keys) q.add(k);
  const peak = heapUsed();
  for (let item = q.tryGet(); item !== undefined; item = q.tryGet()) q.done(item);
  const after = heapUsed();
  // Keep `q` reachable until the last measurement.
  if (q.tryGet() !== undefined) throw new Error("queue not drained");
  return { before, peak, after };
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

/**
 * Workqueue benchmark: add/get/done cycles (1M keys, 50% duplicate adds) through `await get()` and through
 * `tryGet()`, 100k delayed items under a FakeClock, and the heap after a 1M-item burst has drained, each
 * beside a naive array + Set queue measured in the same run.
 */
export async function runWorkqueue(): Promise<BenchResult> {
  const gcAvailable = forceGc();
  const keys = Array.from({ length: N }, (_, i) => `namespace-${i % 100}/object-${i}`);
  const rows: BenchRow[] = [];

  const [oursAsync, naiveAsync] = await bestPair(
    () => asyncCycles(new Queue<string>(), keys),
    () => asyncCycles(new NaiveQueue<string>(), keys),
  );
  rows.push({
    case: "add/get/done cycles, 1M keys, 50% duplicate adds (await get())",
    value: oursAsync,
    unit: "cycles/s",
    baseline: naiveAsync,
    ratioLabel: "naive/ours",
    ratio: naiveAsync / oursAsync,
    goal: "≥ 1M cycles/s, ≤ 1.5× naive",
    met: oursAsync >= 1_000_000 && naiveAsync / oursAsync <= 1.5,
  });

  const [oursSync, naiveSync] = await bestPair(
    () => syncCycles(new Queue<string>(), keys),
    () => syncCycles(new NaiveQueue<string>(), keys),
  );
  rows.push({
    case: "add/tryGet/done cycles, 1M keys, 50% duplicate adds (sync fast path)",
    value: oursSync,
    unit: "cycles/s",
    baseline: naiveSync,
    ratioLabel: "naive/ours",
    ratio: naiveSync / oursSync,
    goal: "≥ 1M cycles/s, ≤ 1.5× naive",
    met: oursSync >= 1_000_000 && naiveSync / oursSync <= 1.5,
  });

  let ours = { addPerSec: 0, totalMs: Number.POSITIVE_INFINITY };
  let naive = { addPerSec: 0, totalMs: Number.POSITIVE_INFINITY };
  for (let r = 0; r <= REPS; r++) {
    const a = await delayedRun(keys);
    const b = await naiveDelayedRun(keys);
    if (r > 0) {
      ours = { addPerSec: Math.max(ours.addPerSec, a.addPerSec), totalMs: Math.min(ours.totalMs, a.totalMs) };
      naive = { addPerSec: Math.max(naive.addPerSec, b.addPerSec), totalMs: Math.min(naive.totalMs, b.totalMs) };
    }
  }
  rows.push({
    case: "addAfter, 100k items, delays spread over 10 min (FakeClock)",
    value: ours.addPerSec,
    unit: "ops/s",
    baseline: naive.addPerSec,
    ratioLabel: "naive/ours",
    ratio: naive.addPerSec / ours.addPerSec,
    note: "baseline appends to an unsorted array",
  });
  rows.push({
    case: "addAfter 100k + run the FakeClock until all landed + drain",
    value: ours.totalMs,
    unit: "ms",
    baseline: naive.totalMs,
    ratioLabel: "ours/naive",
    ratio: ours.totalMs / naive.totalMs,
    note: "baseline sorts once at the end",
  });

  const heapOurs = heapAfterDrain(() => new Queue<string>(), keys);
  const heapNaive = heapAfterDrain(() => new NaiveQueue<string>(), keys);
  const growth = (h: { before: number; after: number }) => (h.after - h.before) / h.before;
  rows.push({
    case: "heap after a 1M-key burst drained vs. before (popped slots released)",
    value: heapOurs.after / MiB,
    unit: "MiB",
    baseline: heapNaive.after / MiB,
    ratioLabel: "ours after/ours before",
    ratio: heapOurs.after / heapOurs.before,
    goal: "within 5% of before",
    met: Math.abs(growth(heapOurs)) <= 0.05,
    note:
      `retained ${kib(heapOurs.after - heapOurs.before)} of a ${kib(heapOurs.peak - heapOurs.before)} peak ` +
      `(naive: ${kib(heapNaive.after - heapNaive.before)} of ${kib(heapNaive.peak - heapNaive.before)}); ` +
      `"before" includes the 1M key strings`,
  });

  // The delaying queue's heap and map after 100k delayed items landed and drained.
  const clock = new FakeClock(0);
  const dq = new DelayingQueue<string>({ clock });
  const dBefore = heapUsed();
  for (let i = 0; i < DELAYED; i++) dq.addAfter(keys[i]!, 1 + ((i * 7919) % 600_000));
  const dPeak = heapUsed();
  await clock.runUntilIdle(10 * DELAYED); // one timer per distinct due time, plus heartbeats
  for (let item = dq.tryGet(); item !== undefined; item = dq.tryGet()) dq.done(item);
  const dAfter = heapUsed();
  rows.push({
    case: "heap after 100k delayed items landed and drained vs. before",
    value: dAfter / MiB,
    unit: "MiB",
    ratioLabel: "after/before",
    ratio: dAfter / dBefore,
    goal: "within 5% of before",
    met: Math.abs((dAfter - dBefore) / dBefore) <= 0.05,
    note: `retained ${kib(dAfter - dBefore)} of a ${kib(dPeak - dBefore)} peak`,
  });
  dq.shutDown();

  return {
    name: "workqueue",
    rows,
    meta: {
      node: process.version,
      keys: N,
      batch: BATCH,
      delayed: DELAYED,
      gcExposed: gcAvailable,
    },
  };
}
