// Model-based test (edge cases 37, 39, 41): random interleavings of queue operations by several async workers
// under a FakeClock, checked after every step against a small reference model of W1–W8, Q1–Q3 and L1–L2.

import { fc, test } from "@fast-check/vitest";
import { FakeClock, settle } from "@informer-ts/clock";
import { InMemoryMetrics } from "@informer-ts/instrumentation";
import { describe, expect } from "vitest";
import { ItemExponentialFailureRateLimiter } from "./default-rate-limiters.js";
import type { DrainSemantics } from "./queue.js";
import { RateLimitingQueue } from "./rate-limiting-queue.js";

const ITEMS = ["a", "b", "c", "d"] as const;
const WORKERS = 3;
const BASE_DELAY = 10;
const MAX_DELAY = 160;

type Cmd =
  | { readonly kind: "add"; readonly item: string }
  | { readonly kind: "get"; readonly worker: number }
  | { readonly kind: "done"; readonly worker: number }
  | { readonly kind: "spuriousDone"; readonly item: string }
  | { readonly kind: "addAfter"; readonly item: string; readonly delay: number }
  | { readonly kind: "addRateLimited"; readonly item: string }
  | { readonly kind: "forget"; readonly item: string }
  | { readonly kind: "step"; readonly ms: number }
  | { readonly kind: "shutDown" }
  | { readonly kind: "drain" };

const item = fc.constantFrom(...ITEMS);
const worker = fc.integer({ min: 0, max: WORKERS - 1 });

function commands(withSpuriousDone: boolean): fc.Arbitrary<Cmd[]> {
  const cmds: fc.Arbitrary<Cmd>[] = [
    item.map((i) => ({ kind: "add", item: i }) as const),
    worker.map((w) => ({ kind: "get", worker: w }) as const),
    worker.map((w) => ({ kind: "done", worker: w }) as const),
    fc.record({ item, delay: fc.integer({ min: -5, max: 200 }) }).map((r) => ({ kind: "addAfter", ...r }) as const),
    item.map((i) => ({ kind: "addRateLimited", item: i }) as const),
    item.map((i) => ({ kind: "forget", item: i }) as const),
    fc.integer({ min: 0, max: 120 }).map((ms) => ({ kind: "step", ms }) as const),
  ];
  if (withSpuriousDone) cmds.push(item.map((i) => ({ kind: "spuriousDone", item: i }) as const));
  const rare: fc.Arbitrary<Cmd>[] = [
    fc.constant({ kind: "shutDown" } as const),
    fc.constant({ kind: "drain" } as const),
  ];
  return fc.array(
    fc.oneof(
      ...cmds.map((arbitrary) => ({ arbitrary, weight: 6 })),
      ...rare.map((arbitrary) => ({ arbitrary, weight: 1 })),
    ),
    { maxLength: 60 },
  );
}

type WorkerState =
  | { status: "idle" }
  | { status: "waiting" }
  | { status: "holding"; item: string }
  | { status: "exited" };

/** The reference model: plain arrays and sets, no heap, no timers. */
class Model {
  queue: string[] = [];
  dirty = new Set<string>();
  processing = new Set<string>();
  waiting: number[] = [];
  workers: WorkerState[] = Array.from({ length: WORKERS }, () => ({ status: "idle" }) as WorkerState);
  shuttingDown = false;
  drain = false;
  stopped = false; // the delaying queue's stopOnce
  delayed = new Map<string, { readyAt: number; seq: number }>();
  seq = 0;
  failures = new Map<string, number>();
  now = 0;
  adds = 0;
  depth = 0;
  retries = 0;
  drains: boolean[] = []; // resolved flags of each shutDownWithDrain call
  /** Items whose latest add landed after their latest hand-out: each owes exactly one more hand-out. */
  owed = new Set<string>();

  constructor(readonly mode: DrainSemantics) {}

  add(x: string): void {
    if (this.shuttingDown) return;
    this.owed.add(x);
    if (this.dirty.has(x)) return;
    this.adds++;
    this.depth++;
    this.dirty.add(x);
    if (this.processing.has(x)) return;
    this.queue.push(x);
    this.serve();
  }

  private handOut(w: number): void {
    const x = this.queue.shift()!;
    this.depth--;
    this.processing.add(x);
    this.dirty.delete(x);
    this.workers[w] = { status: "holding", item: x };
  }

  private serve(): void {
    while (this.waiting.length > 0 && this.queue.length > 0) this.handOut(this.waiting.shift()!);
  }

  get(w: number): void {
    if (this.workers[w]!.status !== "idle") return;
    if (this.queue.length > 0) this.handOut(w);
    else if (this.shuttingDown) this.workers[w] = { status: "exited" };
    else {
      this.workers[w] = { status: "waiting" };
      this.waiting.push(w);
    }
  }

  done(x: string): void {
    if (this.mode === "pr141079" && !this.processing.has(x)) return;
    this.processing.delete(x);
    if (this.dirty.has(x)) {
      this.queue.push(x);
      this.serve();
    }
    this.checkDrain();
  }

  addAfter(x: string, d: number): void {
    if (this.shuttingDown) return;
    this.retries++;
    if (d <= 0) {
      this.add(x);
      return;
    }
    const readyAt = this.now + d;
    const existing = this.delayed.get(x);
    if (existing === undefined) this.delayed.set(x, { readyAt, seq: this.seq++ });
    else if (readyAt < existing.readyAt) existing.readyAt = readyAt;
  }

  when(x: string): number {
    const n = this.failures.get(x) ?? 0;
    this.failures.set(x, n + 1);
    return Math.min(BASE_DELAY * 2 ** n, MAX_DELAY);
  }

  step(ms: number): void {
    const target = this.now + ms;
    for (;;) {
      let next: [string, { readyAt: number; seq: number }] | undefined;
      for (const e of this.delayed) {
        if (e[1].readyAt > target) continue;
        if (
          next === undefined ||
          e[1].readyAt < next[1].readyAt ||
          (e[1].readyAt === next[1].readyAt && e[1].seq < next[1].seq)
        ) {
          next = e;
        }
      }
      if (next === undefined) break;
      this.now = next[1].readyAt;
      this.delayed.delete(next[0]);
      this.add(next[0]);
    }
    this.now = target;
  }

  private releaseWaiting(): void {
    for (const w of this.waiting) this.workers[w] = { status: "exited" };
    this.waiting = [];
  }

  shutDown(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.drain = false;
    this.shuttingDown = true;
    this.releaseWaiting();
    this.delayed.clear();
    this.checkDrain();
  }

  startDrain(): void {
    this.delayed.clear();
    this.drain = true;
    this.shuttingDown = true;
    this.releaseWaiting();
    this.drains.push(false);
    this.checkDrain();
  }

  private checkDrain(): void {
    const drained =
      !this.drain || (this.processing.size === 0 && (this.mode === "client-go" || this.queue.length === 0));
    if (drained) this.drains = this.drains.map(() => true);
  }
}

/** The system under test plus the observations made through its public API only. */
class Harness {
  readonly clock = new FakeClock(0);
  readonly metrics = new InMemoryMetrics();
  readonly queue: RateLimitingQueue<string>;
  readonly workers: WorkerState[] = Array.from({ length: WORKERS }, () => ({ status: "idle" }) as WorkerState);
  readonly drains: { resolved: boolean }[] = [];
  readonly handOuts: string[] = [];
  /** Set once a spurious done ran in client-go mode: the upstream quirk may then hand an item out twice. */
  quirk = false;

  constructor(mode: DrainSemantics) {
    this.queue = new RateLimitingQueue<string>(new ItemExponentialFailureRateLimiter(BASE_DELAY, MAX_DELAY), {
      name: "model",
      clock: this.clock,
      metricsProvider: this.metrics,
      drainSemantics: mode,
    });
  }

  get(w: number): void {
    if (this.workers[w]!.status !== "idle") return;
    this.workers[w] = { status: "waiting" };
    void this.queue.get().then(([x, shutdown]) => {
      if (shutdown) {
        this.workers[w] = { status: "exited" };
        return;
      }
      // W8: never handed to a worker while another worker holds it (unless the client-go quirk was triggered).
      if (!this.quirk) expect(this.workers.some((s) => s.status === "holding" && s.item === x)).toBe(false);
      this.workers[w] = { status: "holding", item: x };
      this.handOuts.push(x);
    });
  }

  done(w: number): string | undefined {
    const s = this.workers[w]!;
    if (s.status !== "holding") return undefined;
    this.workers[w] = { status: "idle" };
    this.queue.done(s.item);
    return s.item;
  }

  drain(): void {
    const d = { resolved: false };
    this.drains.push(d);
    void this.queue.shutDownWithDrain().then(() => {
      d.resolved = true;
    });
  }

  metric(name: string): number {
    return this.metrics.value(name, { name: "model" });
  }
}

async function run(mode: DrainSemantics, cmds: readonly Cmd[]): Promise<void> {
  const h = new Harness(mode);
  const m = new Model(mode);

  const compare = () => {
    expect(h.workers).toEqual(m.workers);
    expect(h.queue.len()).toBe(m.queue.length);
    expect(h.metric("workqueue_adds_total")).toBe(m.adds);
    expect(h.metric("workqueue_depth")).toBe(m.depth);
    expect(h.metric("workqueue_retries_total")).toBe(m.retries);
    expect(h.drains.map((d) => d.resolved)).toEqual(m.drains);
    expect(h.queue.shuttingDown()).toBe(m.shuttingDown);
    for (const x of ITEMS) expect(h.queue.numRequeues(x)).toBe(m.failures.get(x) ?? 0);
    // Exactly one hand-out per owed add (the quirk's duplicate entries are extra hand-outs by design).
    for (const x of h.handOuts.splice(0)) {
      if (!h.quirk) expect(m.owed.has(x)).toBe(true);
      m.owed.delete(x);
    }
  };

  for (const cmd of cmds) {
    switch (cmd.kind) {
      case "add":
        h.queue.add(cmd.item);
        m.add(cmd.item);
        break;
      case "get":
        h.get(cmd.worker);
        m.get(cmd.worker);
        break;
      case "done": {
        const x = h.done(cmd.worker);
        if (x !== undefined) {
          m.workers[cmd.worker] = { status: "idle" };
          m.done(x);
        }
        break;
      }
      case "spuriousDone":
        // Only a truly spurious done: the item is not held by any worker.
        if (!m.processing.has(cmd.item)) {
          if (mode === "client-go" && m.dirty.has(cmd.item)) h.quirk = true;
          h.queue.done(cmd.item);
          m.done(cmd.item);
        }
        break;
      case "addAfter":
        h.queue.addAfter(cmd.item, cmd.delay);
        m.addAfter(cmd.item, cmd.delay);
        break;
      case "addRateLimited":
        h.queue.addRateLimited(cmd.item);
        m.addAfter(cmd.item, m.when(cmd.item));
        break;
      case "forget":
        h.queue.forget(cmd.item);
        m.failures.delete(cmd.item);
        break;
      case "step":
        await h.clock.step(cmd.ms);
        m.step(cmd.ms);
        break;
      case "shutDown":
        h.queue.shutDown();
        m.shutDown();
        break;
      case "drain":
        h.drain();
        m.startDrain();
        break;
    }
    await settle();
    compare();
  }

  // Final phase: let every delayed item land, then let the workers finish all work.
  await h.clock.step(10 * MAX_DELAY);
  m.step(10 * MAX_DELAY);
  await settle();
  compare();
  for (let round = 0; round < 100; round++) {
    let acted = false;
    for (let w = 0; w < WORKERS; w++) {
      const x = h.done(w);
      if (x !== undefined) {
        m.workers[w] = { status: "idle" };
        m.done(x);
        acted = true;
      }
      if (h.workers[w]!.status === "idle" && (m.queue.length > 0 || m.shuttingDown)) {
        h.get(w);
        m.get(w);
        acted = true;
      }
    }
    await settle();
    compare();
    if (!acted) break;
  }
  expect(m.queue.length).toBe(0);
  expect(h.queue.len()).toBe(0);
  // A final drain must resolve exactly when the model says (it reads the in-flight count).
  h.drain();
  m.startDrain();
  await settle();
  compare();
  // Every add that landed after an item's last hand-out led to exactly one more hand-out.
  expect([...m.owed]).toEqual([]);
  if (m.shuttingDown) {
    h.queue.shutDown();
    expect(h.clock.pendingTimers()).toBe(0);
  }
}

describe("work queue model (edge cases 37, 39, 41)", () => {
  test.prop([commands(false)], { numRuns: 150 })(
    "W1 W2 W3 W4 W5 W6 W7 W8 Q1 Q2 Q3 L1 L2 client-go semantics match the model",
    async (cmds) => {
      await run("client-go", cmds);
    },
  );

  test.prop([commands(true)], { numRuns: 100 })(
    "W4 edge 38 client-go: a spurious done duplicates the queue entry exactly as the model's Go sets do",
    async (cmds) => {
      await run("client-go", cmds);
    },
  );

  test.prop([commands(true)], { numRuns: 150 })(
    "W4 W6 W8 pr141079 semantics match the model, spurious done included",
    async (cmds) => {
      await run("pr141079", cmds);
    },
  );
});
