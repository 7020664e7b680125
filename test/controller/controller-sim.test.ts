// The controller runtime against the in-process simulated apiserver under virtual time: a ConfigMap → Secret mirror
// controller run by a Manager whose informers list/watch the engine and whose writes go straight to it. A fast-check
// property lets a third party create/update/delete parents and children while the server injects faults (dropped
// watches, compaction → 410, 429/500 on writes) and reconciles fail or run slowly; once the faults stop, every parent's
// child matches it, no child is left without a parent, no key was ever reconciled concurrently, every failed reconcile
// was retried, and shutdown leaves nothing running.
import { isAlreadyExists, isNotFound, type KubeObject } from "@informer-ts/apimachinery";
import { silentLogger } from "@informer-ts/cache";
import { builtinResources } from "@informer-ts/client";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import {
  type ControllerEvent,
  getControllerOf,
  Manager,
  newControllerManagedBy,
  type Reconciler,
  setControllerReference,
} from "@informer-ts/controller";
import { InMemoryMetrics } from "@informer-ts/instrumentation";
import { SimApiServer } from "@informer-ts/sim-apiserver";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EngineClient, ref } from "./engine-client.js";

const { configmaps, secrets } = builtinResources;
const NS = "default";
const NAMES = ["a", "b", "c", "d"];

async function flush(n = 30): Promise<void> {
  for (let i = 0; i < n; i++) await settle();
}

interface World {
  clock: FakeClock;
  engine: SimApiServer;
  client: EngineClient;
  manager: Manager;
  events: ControllerEvent[];
  overlaps: number;
  ac: AbortController;
  run: Promise<void>;
}

/** The mirror: Secret `<cm>-mirror` with the ConfigMap's data, controlled by it; gone when the ConfigMap is gone. */
function mirrorReconciler(
  w: Pick<World, "manager" | "client" | "clock">,
  chaos: { failEvery: number; slowMs: number },
): Reconciler {
  let n = 0;
  const cms = w.manager.informerFor(configmaps);
  const secs = w.manager.informerFor(secrets);
  return async (req, ctx) => {
    const k = ++n; // reconciles of different keys run concurrently: keep this one's number
    if (chaos.slowMs > 0 && k % 3 === 0) await w.clock.sleep(chaos.slowMs, ctx.signal);
    if (chaos.failEvery > 0 && k % chaos.failEvery === 0) throw new Error(`chaos: reconcile ${k} fails`);
    const name = `${req.name}-mirror`;
    const cm = cms.getIndexer().getByKey(`${req.namespace}/${req.name}`);
    const existing = secs.getIndexer().getByKey(`${req.namespace}/${name}`);
    if (cm === undefined || cm.metadata?.deletionTimestamp !== undefined) {
      if (existing !== undefined) {
        await w.client.delete(secrets, name, { namespace: req.namespace }).catch((e: unknown) => {
          if (!isNotFound(e)) throw e;
        });
      }
      return;
    }
    const data = (cm.data ?? {}) as Record<string, string>;
    if (existing === undefined) {
      const secret: KubeObject = {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name, namespace: req.namespace },
        data,
      };
      setControllerReference(cm, secret);
      await w.client.create(secrets, secret).catch((e: unknown) => {
        if (!isAlreadyExists(e)) throw e;
        return undefined;
      });
      return { requeue: false };
    }
    const owner = getControllerOf(existing);
    if (JSON.stringify(existing.data ?? {}) !== JSON.stringify(data) || owner?.uid !== cm.metadata?.uid) {
      const next: KubeObject = { ...existing, data, metadata: { ...existing.metadata, ownerReferences: [] } };
      setControllerReference(cm, next);
      await w.client.update(secrets, next);
    }
    return undefined;
  };
}

function makeWorld(chaos: { failEvery: number; slowMs: number }, seed: number): World {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const engine = new SimApiServer({ clock, rand: seededRand(seed) });
  const client = new EngineClient(engine);
  const manager = new Manager({
    listerWatcherFor: (r, { namespace }) => engine.listerWatcher(ref(r), { namespace }) as never,
    client,
    clock,
    rand: seededRand(seed + 1),
    metrics: new InMemoryMetrics(),
    informerOptions: { reflector: { logger: silentLogger } },
  });
  const w = { clock, engine, client, manager, events: [], overlaps: 0 } as unknown as World;
  const inner = mirrorReconciler(w, chaos);
  const running = new Set<string>();
  const controller = newControllerManagedBy(manager)
    .for(configmaps)
    .owns(secrets)
    .withOptions({ maxConcurrentReconciles: 3 })
    .complete(async (req, ctx) => {
      const key = `${req.namespace}/${req.name}`;
      if (running.has(key)) w.overlaps++;
      running.add(key);
      try {
        return await inner(req, ctx);
      } finally {
        running.delete(key);
      }
    });
  controller.events$.subscribe((e) => {
    w.events.push(e);
  });
  w.ac = new AbortController();
  w.run = manager.run(w.ac.signal);
  return w;
}

/** The storage's current objects of a resource in NS (the truth, not the watch cache). */
function listAll(engine: SimApiServer, resource: string): KubeObject[] {
  return engine.storage.list(engine.resource(resource), { prefix: `${NS}/`, rev: 0, limit: 0, predicate: () => true })
    .items;
}

/** Secrets as they should be: one per ConfigMap, with its data. */
function desired(engine: SimApiServer): string[] {
  const cms = listAll(engine, "configmaps");
  return cms.map((cm) => `${cm.metadata?.name}-mirror=${JSON.stringify(cm.data ?? {})}@${cm.metadata?.uid}`).sort();
}

function actual(engine: SimApiServer): string[] {
  const ss = listAll(engine, "secrets");
  return ss.map((s) => `${s.metadata?.name}=${JSON.stringify(s.data ?? {})}@${getControllerOf(s)?.uid}`).sort();
}

async function untilConverged(w: World, maxMs: number): Promise<void> {
  for (let t = 0; t < maxMs; t += 5000) {
    if (
      JSON.stringify(desired(w.engine)) === JSON.stringify(actual(w.engine)) &&
      w.manager.notReadyReason() === undefined
    ) {
      return;
    }
    await w.clock.step(5000);
    await flush();
  }
}

async function stop(w: World): Promise<void> {
  w.ac.abort();
  for (let i = 0; i < 100; i++) {
    let done = false;
    void w.run.then(() => {
      done = true;
    });
    await flush(5);
    if (done) break;
    await w.clock.step(1000);
  }
  await w.run;
  w.engine.stop();
}

type Step =
  | { op: "putParent"; name: string; v: number }
  | { op: "deleteParent"; name: string }
  | { op: "deleteChild"; name: string }
  | { op: "tamperChild"; name: string; v: number }
  | { op: "dropWatches" }
  | { op: "compact" }
  | { op: "writeFault"; code: 429 | 500 }
  | { op: "step"; ms: number };

const nameArb = fc.constantFrom(...NAMES);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant("putParent" as const), name: nameArb, v: fc.nat(5) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("deleteParent" as const), name: nameArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("deleteChild" as const), name: nameArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("tamperChild" as const), name: nameArb, v: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("dropWatches" as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("compact" as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant("writeFault" as const), code: fc.constantFrom(429 as const, 500 as const) }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("step" as const), ms: fc.constantFrom(0, 10, 300, 3000) }) },
);

async function apply(w: World, s: Step): Promise<void> {
  const e = w.engine;
  const get = (res: string, name: string) => e.storage.get(e.resource(res), NS, name) as KubeObject | undefined;
  switch (s.op) {
    case "putParent": {
      const cur = get("configmaps", s.name);
      if (cur === undefined)
        await e.requests.create(
          "configmaps",
          NS,
          { metadata: { name: s.name, namespace: NS }, data: { v: String(s.v) } },
          {},
        );
      else await e.requests.update("configmaps", NS, s.name, { ...cur, data: { v: String(s.v) } }, {});
      break;
    }
    case "deleteParent":
      if (get("configmaps", s.name) !== undefined) await e.requests.delete("configmaps", NS, s.name, undefined, {});
      break;
    case "deleteChild":
      if (get("secrets", `${s.name}-mirror`) !== undefined) {
        await e.requests.delete("secrets", NS, `${s.name}-mirror`, undefined, {});
      }
      break;
    case "tamperChild": {
      const cur = get("secrets", `${s.name}-mirror`);
      if (cur !== undefined)
        await e.requests.update("secrets", NS, `${s.name}-mirror`, { ...cur, data: { v: `tampered-${s.v}` } }, {});
      break;
    }
    case "dropWatches":
      e.dropWatches();
      break;
    case "compact":
      e.compact();
      break;
    case "writeFault":
      if (s.code === 429)
        e.faults.add({ type: "apf-429", verbs: ["create", "update", "delete"], count: 2, retryAfterSeconds: 1 });
      else e.faults.add({ type: "status", code: 500, verbs: ["create", "update", "delete"], count: 2 });
      break;
    case "step":
      await w.clock.step(s.ms);
      break;
  }
  await flush();
}

describe("controller against the in-process simulated apiserver", () => {
  it("mirrors ConfigMaps into owned Secrets, restores tampered or deleted children, removes orphans", async () => {
    const w = makeWorld({ failEvery: 0, slowMs: 0 }, 1);
    try {
      for (const n of ["a", "b"]) {
        await w.engine.requests.create("configmaps", NS, { metadata: { name: n, namespace: NS }, data: { v: n } }, {});
      }
      await flush();
      await untilConverged(w, 60_000);
      expect(actual(w.engine)).toEqual(desired(w.engine));
      expect(actual(w.engine)).toHaveLength(2);
      const secret = w.engine.storage.get(w.engine.resource("secrets"), NS, "a-mirror") as KubeObject;
      expect(secret.metadata?.ownerReferences).toEqual([
        expect.objectContaining({ kind: "ConfigMap", name: "a", controller: true, blockOwnerDeletion: true }),
      ]);
      // A third party tampers with one child and deletes the other: both are restored.
      await apply(w, { op: "tamperChild", name: "b", v: 1 });
      await apply(w, { op: "deleteChild", name: "a" });
      await untilConverged(w, 60_000);
      expect(actual(w.engine)).toEqual(desired(w.engine));
      expect(actual(w.engine).map((x) => x.split("@")[0])).toEqual(['a-mirror={"v":"a"}', 'b-mirror={"v":"b"}']);
      // The parent goes: so does its child (the simulator has no garbage collector yet; the controller deletes it).
      await apply(w, { op: "deleteParent", name: "a" });
      await untilConverged(w, 60_000);
      expect(actual(w.engine).map((x) => x.split("@")[0])).toEqual(['b-mirror={"v":"b"}']);
      expect(w.overlaps).toBe(0);
    } finally {
      await stop(w);
    }
  });

  it("property: third-party writes, server faults and failing or slow reconciles converge to the desired children", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { minLength: 1, maxLength: 30 }),
        fc.constantFrom(0, 3, 5),
        fc.constantFrom(0, 50, 2000),
        fc.nat(1000),
        async (steps, failEvery, slowMs, seed) => {
          const w = makeWorld({ failEvery, slowMs }, seed);
          try {
            // Start from every parent with its child, so that updates, tampering and child deletions bite.
            for (const name of NAMES) await apply(w, { op: "putParent", name, v: 9 });
            await untilConverged(w, 60_000);
            for (const s of steps) await apply(w, s);
            w.engine.faults.clear();
            await untilConverged(w, 30 * 60_000);
            expect(actual(w.engine)).toEqual(desired(w.engine));
            expect(w.overlaps).toBe(0);
            // Every failed reconcile was requeued through the rate limiter (one retry counted per failure).
            const errors = w.events.filter((e) => e.type === "reconcileError").length;
            const metrics = w.manager.metrics as InMemoryMetrics;
            expect(metrics.value("controller_runtime_reconcile_errors_total", { controller: "configmap" })).toBe(
              errors,
            );
            expect(metrics.value("workqueue_retries_total", { name: "configmap" })).toBeGreaterThanOrEqual(errors);
            if (failEvery > 0) expect(errors).toBeGreaterThan(0);
            expect(w.manager.notReadyReason()).toBeUndefined();
          } finally {
            await stop(w);
          }
          expect(w.clock.pendingTimers()).toBe(0);
        },
      ),
      { numRuns: 60 },
    );
  });
});
