import type { KubeObject } from "@informer-ts/apimachinery";
import { runUntilSettled } from "@informer-ts/cache/testing";
import { FakeClock, settle } from "@informer-ts/clock";
import { silentLogger } from "@informer-ts/instrumentation";
import { afterEach, describe, expect, it } from "vitest";
import { newControllerManagedBy } from "./builder.js";
import { Controller, type ControllerEvent } from "./controller.js";
import { children, namespaces, obj, parents, type TestEnv, testEnv, turns } from "./controller.test-util.js";
import { generationChangedPredicate } from "./predicate.js";
import {
  InvalidResultError,
  NonErrorThrownError,
  type ReconcileContext,
  ReconcileTimeoutError,
  type Result,
  TerminalError,
} from "./reconciler.js";
import type { Request } from "./request.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Builds a `for(parents)` controller with `reconcile`, starts informers and the controller. */
async function started(
  reconcile: (req: Request, ctx: ReconcileContext) => unknown,
  configure: (b: ReturnType<typeof newControllerManagedBy>) => void = () => {},
  env: TestEnv = testEnv(),
): Promise<{ env: TestEnv; c: Controller; events: ControllerEvent[]; stop: () => Promise<void>; run: Promise<void> }> {
  const b = newControllerManagedBy(env.context).for(parents);
  configure(b);
  const c = b.complete(reconcile as never);
  const events: ControllerEvent[] = [];
  c.events$.subscribe((e) => events.push(e));
  await env.start();
  const ac = new AbortController();
  const run = c.run(ac.signal);
  await turns();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    ac.abort();
    await runUntilSettled(env.clock, run);
    await env.stop();
  };
  cleanups.push(stop);
  return { env, c, events, stop, run };
}

describe("Controller: the reconcile contract", () => {
  it("reconciles each added object once and counts a success; the key's backoff is forgotten", async () => {
    const seen: string[] = [];
    const { env, c } = await started((req) => {
      seen.push(`${req.namespace}/${req.name}`);
    });
    env.source(parents).add(obj("a"));
    env.source(parents).add(obj("b"));
    await turns();
    expect(seen.sort()).toEqual(["default/a", "default/b"]);
    expect(env.metrics.value("controller_runtime_reconcile_total", { controller: "parent", result: "success" })).toBe(
      2,
    );
    expect(env.metrics.value("controller_runtime_reconcile_errors_total", { controller: "parent" })).toBe(0);
    expect(env.metrics.value("controller_runtime_max_concurrent_reconciles", { controller: "parent" })).toBe(1);
    expect(env.metrics.value("workqueue_adds_total", { name: "parent" })).toBe(2);
    expect(c.queue.numRequeues("default/a")).toBe(0);
    expect(c.status()).toMatchObject({ phase: "running", reconciles: 2, errors: 0, inFlight: [] });
  });

  it("a thrown error requeues with the default controller rate limiter: 5, 10, 20 ms…, then success forgets", async () => {
    const times: number[] = [];
    let failures = 4;
    const { env, c, events } = await started(() => {
      times.push(env.clock.now());
      if (failures-- > 0) throw new Error("boom");
    });
    env.source(parents).add(obj("a"));
    await turns();
    const t0 = times[0]!;
    await env.clock.step(5000);
    expect(times.map((t) => t - t0)).toEqual([0, 5, 15, 35, 75]);
    expect(c.queue.numRequeues("default/a")).toBe(0);
    expect(env.metrics.value("controller_runtime_reconcile_errors_total", { controller: "parent" })).toBe(4);
    expect(env.metrics.value("controller_runtime_reconcile_total", { controller: "parent", result: "error" })).toBe(4);
    expect(env.metrics.value("workqueue_retries_total", { name: "parent" })).toBe(4);
    const errs = events.filter((e) => e.type === "reconcileError");
    expect(errs).toHaveLength(4);
    expect(c.status().lastError).toMatchObject({ key: "default/a", message: "boom" });
  });

  it("a rejected promise and a thrown non-Error are errors too (wrapped, named); other keys are unaffected", async () => {
    let n = 0;
    const ok: string[] = [];
    const { env, events } = await started(async (req) => {
      if (req.name === "str") {
        n++;
        if (n === 1) throw "a string";
        if (n === 2) return Promise.reject(42);
        return;
      }
      ok.push(req.name);
    });
    env.source(parents).add(obj("str"));
    env.source(parents).add(obj("fine"));
    await turns();
    await env.clock.step(5000);
    expect(ok).toEqual(["fine"]);
    expect(n).toBe(3);
    const errs = events.flatMap((e) => (e.type === "reconcileError" ? [e.error] : []));
    expect(errs.map((e) => e instanceof NonErrorThrownError)).toEqual([true, true]);
    expect(errs.map((e) => e.message)).toEqual([
      'reconcile of default/str threw a non-Error value: "a string"',
      "reconcile of default/str threw a non-Error value: 42",
    ]);
    expect(env.metrics.value("controller_runtime_reconcile_panics_total", { controller: "parent" })).toBe(2);
  });

  it("a negative, NaN or infinite requeueAfter is a clear error with a rate-limited retry", async () => {
    const results: Result[] = [{ requeueAfter: -5 }, { requeueAfter: Number.NaN }, { requeueAfter: Infinity }, {}];
    const times: number[] = [];
    const { env, events } = await started(() => {
      times.push(env.clock.now());
      return results.shift();
    });
    env.source(parents).add(obj("a"));
    await turns();
    await env.clock.step(5000);
    expect(times.map((t) => t - times[0]!)).toEqual([0, 5, 15, 35]);
    const errs = events.flatMap((e) => (e.type === "reconcileError" ? [e.error] : []));
    expect(errs.every((e) => e instanceof InvalidResultError)).toBe(true);
    expect(errs[0]!.message).toBe(
      "reconcile of default/a returned requeueAfter -5: it must be a finite number of milliseconds ≥ 0",
    );
  });

  it("requeueAfter forgets the backoff and reconciles again after that delay; requeue: true is rate-limited", async () => {
    const results: Result[] = [{ requeue: true }, { requeue: true }, { requeueAfter: 1000 }, {}];
    const times: number[] = [];
    const { env, c } = await started(() => {
      times.push(env.clock.now());
      return results.shift();
    });
    env.source(parents).add(obj("a"));
    await turns();
    await env.clock.step(5000);
    expect(times.map((t) => t - times[0]!)).toEqual([0, 5, 15, 1015]);
    expect(env.metrics.value("controller_runtime_reconcile_total", { controller: "parent", result: "requeue" })).toBe(
      2,
    );
    expect(
      env.metrics.value("controller_runtime_reconcile_total", { controller: "parent", result: "requeue_after" }),
    ).toBe(1);
    expect(c.queue.numRequeues("default/a")).toBe(0);
  });

  it("a TerminalError is counted but not retried", async () => {
    let calls = 0;
    const { env } = await started(() => {
      calls++;
      throw new TerminalError("cannot fix this");
    });
    env.source(parents).add(obj("a"));
    await turns();
    await env.clock.step(5000);
    expect(calls).toBe(1);
    expect(env.metrics.value("controller_runtime_terminal_reconcile_errors_total", { controller: "parent" })).toBe(1);
    expect(env.metrics.value("controller_runtime_reconcile_errors_total", { controller: "parent" })).toBe(1);
  });

  it("a deleted object is reconciled by key (the reconcile finds it gone in the cache)", async () => {
    const env = testEnv();
    const found: (KubeObject | undefined)[] = [];
    const inf = env.factory.informerFor(parents);
    const { env: e } = await started(
      (req) => {
        found.push(inf.getIndexer().getByKey(`${req.namespace}/${req.name}`));
      },
      () => {},
      env,
    );
    const a = e.source(parents).add(obj("a"));
    await turns();
    e.source(parents).delete(a);
    await turns();
    expect(found.map((o) => o?.metadata?.name)).toEqual(["a", undefined]);
  });
});

describe("Controller: workers and concurrency", () => {
  it("runs up to maxConcurrentReconciles keys at once and never two reconciles of one key", async () => {
    const running = new Set<string>();
    let maxParallel = 0;
    let overlaps = 0;
    let count = 0;
    const { env } = await started(
      async (req, ctx) => {
        const key = req.name;
        if (running.has(key)) overlaps++;
        running.add(key);
        maxParallel = Math.max(maxParallel, running.size);
        count++;
        await env.clock.sleep(10 + (count % 7), ctx.signal);
        running.delete(key);
        if (count % 5 === 0) throw new Error("flaky");
      },
      (b) => b.withOptions({ maxConcurrentReconciles: 4 }),
    );
    const objs = Array.from({ length: 6 }, (_, i) => env.source(parents).add(obj(`p${i}`)));
    await turns();
    for (let round = 0; round < 10; round++) {
      for (const o of objs) env.source(parents).modify({ ...o, data: { round } });
      await turns(5);
      await env.clock.step(3);
    }
    await env.clock.step(5000);
    expect(overlaps).toBe(0);
    expect(maxParallel).toBe(4);
    expect(count).toBeGreaterThan(6);
    expect(env.metrics.value("controller_runtime_active_workers", { controller: "parent" })).toBe(0);
  });
});

describe("Controller: per-reconcile timeout", () => {
  it("a reconcile that never settles is abandoned with an error, its worker freed, its key not rerun until it settles", async () => {
    let release!: () => void;
    const hung = new Promise<void>((r) => {
      release = r;
    });
    const calls: string[] = [];
    const signals: AbortSignal[] = [];
    const { env, c, events } = await started(
      async (req, ctx) => {
        calls.push(req.name);
        signals.push(ctx.signal);
        if (req.name === "hang" && calls.filter((n) => n === "hang").length === 1) await hung; // ignores its signal
      },
      (b) => b.withOptions({ reconcileTimeout: 1000 }),
    );
    env.source(parents).add(obj("hang"));
    await turns();
    env.source(parents).add(obj("other"));
    await turns();
    expect(calls).toEqual(["hang"]); // one worker, busy
    await env.clock.step(1000);
    await turns();
    expect(signals[0]!.aborted).toBe(true);
    expect(signals[0]!.reason).toBeInstanceOf(ReconcileTimeoutError);
    expect(calls).toEqual(["hang", "other"]); // worker released
    expect(c.status().abandoned).toBe(1);
    const err = events.find((e) => e.type === "reconcileError");
    expect(err).toMatchObject({ key: "default/hang" });
    expect((err as { error: Error }).error.message).toBe("reconcile of default/hang did not finish within 1000 ms");
    // The retry is due after 5 ms, but the abandoned reconcile still holds the key.
    await env.clock.step(100);
    await turns();
    expect(calls).toEqual(["hang", "other"]);
    release();
    await turns();
    await env.clock.step(5000);
    expect(calls).toEqual(["hang", "other", "hang"]);
    expect(c.status().abandoned).toBe(0);
    expect(env.metrics.value("controller_runtime_reconcile_timeouts_total", { controller: "parent" })).toBe(1);
    expect(events.some((e) => e.type === "abandonedSettled")).toBe(true);
  });
});

describe("Controller: lifecycle", () => {
  it("shutdown waits for in-flight reconciles and takes no new keys", async () => {
    const env = testEnv();
    const calls: string[] = [];
    let finished = 0;
    const c = newControllerManagedBy(env.context)
      .for(parents)
      .withOptions({ maxConcurrentReconciles: 2 })
      .complete(async (req) => {
        calls.push(req.name);
        await env.clock.sleep(500);
        finished++;
      });
    await env.start();
    const ac = new AbortController();
    const run = c.run(ac.signal);
    await turns();
    for (const n of ["a", "b", "c", "d"]) env.source(parents).add(obj(n));
    await turns();
    expect(calls).toEqual(["a", "b"]);
    let resolved = false;
    void run.then(() => {
      resolved = true;
    });
    ac.abort();
    await turns();
    expect(resolved).toBe(false);
    expect(c.status().phase).toBe("stopping");
    await env.clock.step(499);
    await turns();
    expect(resolved).toBe(false);
    await env.clock.step(1);
    await turns();
    expect(resolved).toBe(true);
    expect(finished).toBe(2);
    expect(calls).toEqual(["a", "b"]);
    expect(c.status().phase).toBe("stopped");
    await env.stop();
    expect(env.clock.pendingTimers()).toBe(0);
  });

  it("after the drain deadline, in-flight reconciles are aborted through ctx.signal and run resolves", async () => {
    let signal!: AbortSignal;
    const env = testEnv();
    const b = newControllerManagedBy(env.context).for(parents).withOptions({ gracefulShutdownTimeout: 2000 });
    const c = b.complete(async (_req, ctx) => {
      signal = ctx.signal;
      await new Promise(() => {}); // never settles, ignores the signal
    });
    const events: ControllerEvent[] = [];
    c.events$.subscribe((e) => events.push(e));
    await env.start();
    const ac = new AbortController();
    const run = c.run(ac.signal);
    await turns();
    env.source(parents).add(obj("a"));
    await turns();
    ac.abort();
    await turns();
    expect(signal.aborted).toBe(false);
    await env.clock.step(2000);
    await run;
    expect(signal.aborted).toBe(true);
    expect(events.find((e) => e.type === "shutdownAborted")).toEqual({ type: "shutdownAborted", keys: ["default/a"] });
    expect(c.status().abandoned).toBe(1); // it ignored its signal: abandoned, not awaited
    expect(events.at(-1)).toEqual({ type: "stopped" });
    await env.stop();
    expect(env.clock.pendingTimers()).toBe(0);
  });

  it("after the drain deadline a reconcile that honours ctx.signal stops, and its error is not retried after shutdown", async () => {
    const env = testEnv();
    const seen: unknown[] = [];
    const c = newControllerManagedBy(env.context)
      .for(parents)
      .withOptions({ gracefulShutdownTimeout: 1000, maxConcurrentReconciles: 2 })
      .complete(async (_req, ctx) => {
        try {
          await env.clock.sleep(60_000, ctx.signal);
        } catch (err) {
          seen.push(err);
          throw err;
        }
      });
    await env.start();
    const ac = new AbortController();
    const run = c.run(ac.signal);
    await turns();
    env.source(parents).add(obj("a"));
    env.source(parents).add(obj("b"));
    await turns();
    ac.abort();
    await env.clock.step(1000);
    await run;
    expect(seen.map((e) => (e as Error).message)).toEqual([
      "controller parent is shutting down: graceful shutdown deadline passed",
      "controller parent is shutting down: graceful shutdown deadline passed",
    ]);
    expect(c.status()).toMatchObject({ phase: "stopped", abandoned: 0, inFlight: [] });
    await env.stop();
    expect(env.clock.pendingTimers()).toBe(0);
  });

  it("run twice rejects; a cache that never syncs fails run with a clear error after cacheSyncTimeout", async () => {
    const env = testEnv();
    const c = newControllerManagedBy(env.context)
      .for(parents)
      .withOptions({ cacheSyncTimeout: 5000 })
      .complete(() => {});
    // Informers never started: they cannot sync.
    const ac = new AbortController();
    const run = c.run(ac.signal);
    await expect(c.run(ac.signal)).rejects.toThrow("controller parent was started more than once");
    const failed = expect(run).rejects.toThrow("controller parent: failed to wait for caches to sync within 5000 ms");
    await env.clock.step(5000);
    await failed;
    expect(c.status().phase).toBe("stopped");
  });

  it("validates its options with clear errors", () => {
    const env = testEnv();
    expect(() => new Controller({ name: "", reconciler: () => {}, watches: [] })).toThrow("name must be a non-empty");
    expect(() => new Controller({ name: "x", reconciler: () => {}, watches: [], maxConcurrentReconciles: 0 })).toThrow(
      "maxConcurrentReconciles must be an integer ≥ 1, got 0",
    );
    expect(() => new Controller({ name: "x", reconciler: () => {}, watches: [], reconcileTimeout: -1 })).toThrow(
      "reconcileTimeout must be a finite number of milliseconds > 0, got -1",
    );
    expect(() => newControllerManagedBy(env.context).complete(() => {})).toThrow("call for() before complete()");
    expect(() => newControllerManagedBy(env.context).for(parents).for(parents)).toThrow("for() was already called");
  });
});

describe("Controller: owns, watches and predicates", () => {
  it("owns enqueues the controlling owner of the for resource's group and kind only", async () => {
    const seen: string[] = [];
    const { env } = await started(
      (req) => {
        seen.push(req.name);
      },
      (b) => b.owns(children),
    );
    const ref = (name: string, controller: boolean, apiVersion = "example.com/v2", kind = "Parent") => ({
      apiVersion,
      kind,
      name,
      uid: `u-${name}`,
      controller,
    });
    env.source(children).add(obj("c1", { metadata: { ownerReferences: [ref("owner1", true)] } }));
    env.source(children).add(obj("c2", { metadata: { ownerReferences: [ref("owner2", false)] } }));
    env.source(children).add(obj("c3", { metadata: { ownerReferences: [ref("owner3", true, "other.io/v1")] } }));
    env
      .source(children)
      .add(obj("c4", { metadata: { ownerReferences: [ref("owner4", true, "example.com/v1", "Other")] } }));
    await turns();
    expect(seen).toEqual(["owner1"]);
  });

  it("watches maps objects through the map function (old and new on update); predicates filter", async () => {
    const seen: string[] = [];
    const { env } = await started(
      (req) => {
        seen.push(`${req.namespace}/${req.name}`);
      },
      (b) =>
        b.watches(namespaces, (ns) => [
          { namespace: ns.metadata!.name!, name: `for-${ns.metadata!.labels?.v ?? "x"}` },
        ]),
    );
    const ns = env.source(namespaces).add({ metadata: { name: "team", uid: "n1", labels: { v: "1" } } });
    await turns();
    env.source(namespaces).modify({ ...ns, metadata: { ...ns.metadata, labels: { v: "2" } } });
    await turns();
    expect(seen.sort()).toEqual(["team/for-1", "team/for-1", "team/for-2"].sort());
  });

  it("generationChangedPredicate on for drops status-only updates", async () => {
    const seen: number[] = [];
    const env = testEnv();
    const inf = env.factory.informerFor(parents);
    await started(
      (req) => {
        seen.push(inf.getIndexer().getByKey(`${req.namespace}/${req.name}`)?.metadata?.generation ?? -1);
      },
      (b) => b.withEventFilter(generationChangedPredicate),
      env,
    );
    const p = env.source(parents).add(obj("a", { metadata: { generation: 1 } }));
    await turns();
    env.source(parents).modify({ ...p, status: { ready: true } });
    await turns();
    env.source(parents).modify({ ...p, metadata: { ...p.metadata, generation: 2 } });
    await turns();
    expect(seen).toEqual([1, 2]);
  });

  it("a throwing map function is reported as a mapError and does not stop other notifications", async () => {
    const seen: string[] = [];
    const { env, events } = await started(
      (req) => {
        seen.push(req.name);
      },
      (b) =>
        b.watches(namespaces, (ns) => {
          if (ns.metadata?.name === "bad") throw new Error("map failed");
          return [{ namespace: "", name: "ok" }];
        }),
    );
    env.source(namespaces).add({ metadata: { name: "bad", uid: "1" } });
    env.source(namespaces).add({ metadata: { name: "good", uid: "2" } });
    await turns();
    expect(seen).toEqual(["ok"]);
    expect(events.filter((e) => e.type === "mapError")).toHaveLength(1);
    await settle();
  });
});

describe("Controller: enqueue by hand, no metrics provider", () => {
  it("status lists each worker's key in flight, ctx.retries is the key's own, a malformed key is a terminal error", async () => {
    const clock = new FakeClock(0);
    let releaseA!: () => void;
    const gateA = new Promise<void>((r) => {
      releaseA = r;
    });
    const seen: string[] = [];
    const c = new Controller({
      name: "plain",
      watches: [],
      clock,
      logger: silentLogger, // the failures here are asserted on events$
      maxConcurrentReconciles: 2,
      reconciler: async (req, ctx) => {
        seen.push(`${req.namespace}/${req.name}#${ctx.retries}`);
        if (req.name === "a") await gateA;
        if (req.name === "b" && ctx.retries < 2) throw new Error(`b fails (${ctx.retries})`);
      },
    });
    const events: ControllerEvent[] = [];
    c.events$.subscribe((e) => events.push(e));
    c.enqueue({ namespace: "ns", name: "a" });
    c.enqueue({ namespace: "ns", name: "b" });
    c.queue.add("x/y/z");
    c.enqueue({ namespace: "", name: "cluster-scoped" });
    const ac = new AbortController();
    const run = c.run(ac.signal);
    await turns();
    expect(c.status()).toMatchObject({ phase: "running", inFlight: ["ns/a"], activeWorkers: 1 });
    expect(seen).toEqual(["ns/a#0", "ns/b#0", "/cluster-scoped#0"]);
    const bad = events.find((e) => e.type === "reconcileError" && e.key === "x/y/z");
    expect(bad).toMatchObject({ terminal: true });
    expect((bad as { error: Error }).error.message).toBe('unexpected key format: "x/y/z"');
    await clock.step(5); // b's first retry (5 ms)
    await turns();
    await clock.step(10); // its second (10 ms)
    await turns();
    expect(seen.slice(3)).toEqual(["ns/b#1", "ns/b#2"]);
    expect(c.status()).toMatchObject({ inFlight: ["ns/a"], errors: 3, reconciles: 4 }); // finished ones; the malformed key is none
    releaseA();
    await turns();
    expect(c.status()).toMatchObject({ inFlight: [], activeWorkers: 0, reconciles: 5, abandoned: 0 });
    expect(c.queue.numRequeues("ns/b")).toBe(0); // success forgot b's backoff
    ac.abort();
    await runUntilSettled(clock, run);
    expect(c.status().phase).toBe("stopped");
  });
});
