// The controller runtime against the simulated apiserver under virtual time: a ConfigMap → Secret mirror controller
// run by a Manager. The example test runs it on the in-process engine (informers list/watch the engine, writes go
// straight to it). The property runs it on @informer-ts/testing's checkController: a third party creates, updates and
// deletes parents and deletes or tampers with children while the server injects faults (the kit's: dropped watches,
// compaction → 410, cache re-initialization, 429/500/504s, stalled watchers, bookmarks; and 429/500 on writes) and
// reconciles fail or run slowly; once the faults stop, every parent's child matches it, no child is left without a
// parent, no key was ever reconciled concurrently, every failed reconcile was counted and retried, and shutdown leaves
// nothing running.
import { isAlreadyExists, isNotFound, type KubeObject } from "@informer-ts/apimachinery";
import { silentLogger } from "@informer-ts/cache";
import { builtinResources } from "@informer-ts/client";
import { type Clock, FakeClock, seededRand, settle } from "@informer-ts/clock";
import {
  type ControllerEvent,
  getControllerOf,
  Manager,
  newControllerManagedBy,
  type ObjectClient,
  type Reconciler,
  setControllerReference,
} from "@informer-ts/controller";
import { InMemoryMetrics } from "@informer-ts/instrumentation";
import { SimApiServer } from "@informer-ts/sim-apiserver";
import { type CustomStep, checkController, type ServerState, type SimCluster } from "@informer-ts/testing";
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
  w: { readonly manager: Manager; readonly client: ObjectClient; readonly clock: Clock },
  chaos: { readonly failEvery: number; readonly slowMs: number },
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
    // Objects from a LIST carry no apiVersion/kind (as with client-go), and an owner reference needs them.
    const parent: KubeObject = { ...cm, apiVersion: "v1", kind: "ConfigMap" };
    if (existing === undefined) {
      // The cache may be behind (a watch gap): a parent the server no longer has would get a child that the garbage
      // collector deletes at once, whose delete event brings the parent back here — a storm of writes until the
      // informer catches up (checkController's reconcileStorm found it). Confirm the parent with a live read first.
      const live = await w.client.get(configmaps, req.name, { namespace: req.namespace }).catch((e: unknown) => {
        if (isNotFound(e)) return undefined;
        throw e;
      });
      if (live === undefined || live.metadata?.uid !== cm.metadata?.uid) return;
      const secret: KubeObject = {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name, namespace: req.namespace },
        data,
      };
      setControllerReference(parent, secret);
      await w.client.create(secrets, secret).catch((e: unknown) => {
        if (!isAlreadyExists(e)) throw e;
        return undefined;
      });
      return { requeue: false };
    }
    const owner = getControllerOf(existing);
    if (JSON.stringify(existing.data ?? {}) !== JSON.stringify(data) || owner?.uid !== cm.metadata?.uid) {
      const next: KubeObject = { ...existing, data, metadata: { ...existing.metadata, ownerReferences: [] } };
      setControllerReference(parent, next);
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
    quiet: true, // no log assertions here
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
      e.faults.dropWatches();
      break;
    case "compact":
      e.faults.compact();
      break;
    case "writeFault":
      if (s.code === 429)
        e.faults.request({ type: "apf-429", verbs: ["create", "update", "delete"], count: 2, retryAfterSeconds: 1 });
      else e.faults.request({ type: "status", code: 500, verbs: ["create", "update", "delete"], count: 2 });
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
});

// The property runs on the project's own kit: checkController gives each generated case a fresh cluster reached
// through the real KubeClient, a Manager, the kit's histories (parent writes, dropped watches, compaction, cache
// re-initialization, 429/500/504s, stalled watchers, bookmarks, time) plus the third-party steps below, and checks
// after the faults stopped that the predicate holds on the server's storage, no key was reconciled concurrently,
// nothing stormed and nothing leaked; the chaos of the reconciler is the generated variant.

interface Chaos {
  readonly failEvery: number;
  readonly slowMs: number;
}

const custom = (description: string, apply: CustomStep["apply"]): CustomStep => ({
  kind: "custom",
  description,
  apply,
});
const child = (name: string) => `${name}-mirror`;
const currentSecret = (c: SimCluster, name: string) =>
  c.client.get(secrets, child(name), { namespace: NS }).then(
    (o) => o as KubeObject,
    () => undefined,
  );

/** A third party deletes or tampers with a child, or the server refuses the next writes (429 or 500). */
const thirdParty: fc.Arbitrary<CustomStep> = fc.oneof(
  fc
    .constantFrom(...NAMES)
    .map((name) =>
      custom(`a third party deletes ${NS}/${child(name)}`, async (c) =>
        (await currentSecret(c, name)) === undefined
          ? "absent"
          : c.client.delete(secrets, child(name), { namespace: NS }).then(() => "ok"),
      ),
    ),
  fc.record({ name: fc.constantFrom(...NAMES), v: fc.nat(5) }).map(({ name, v }) =>
    custom(`a third party tampers with ${NS}/${child(name)} (v=tampered-${v})`, async (c) => {
      const cur = await currentSecret(c, name);
      if (cur === undefined) return "absent";
      await c.client.update(secrets, { ...cur, data: { v: `tampered-${v}` } });
      return "ok";
    }),
  ),
  fc.constantFrom(429 as const, 500 as const).map((code) =>
    custom(`the next 2 creates/updates/deletes answer ${code}`, (c) => {
      const verbs = ["create", "update", "delete"];
      if (code === 429) c.faults.request({ type: "apf-429", verbs, count: 2, retryAfterSeconds: 1 });
      else c.faults.request({ type: "status", code: 500, verbs, count: 2 });
      return "armed";
    }),
  ),
);

/** Every parent with its child, so that updates, tampering and child deletions bite from the first step. */
async function parentsWithChildren(c: SimCluster): Promise<void> {
  for (const name of NAMES) {
    const cm = await c.engine.create("configmaps", NS, { metadata: { name, namespace: NS }, data: { v: "9" } });
    const secret: KubeObject = { metadata: { name: child(name), namespace: NS }, data: { v: "9" } };
    setControllerReference({ ...cm, apiVersion: "v1", kind: "ConfigMap" }, secret);
    await c.engine.create("secrets", NS, secret);
  }
}

/** Secrets as they should be (one per ConfigMap, with its data, controlled by it) against what the server stores. */
function mirrored(state: ServerState): string[] {
  const cms = state.list(configmaps, NS);
  const want = cms.map((cm) => `${child(cm.metadata!.name!)}=${JSON.stringify(cm.data ?? {})}@${cm.metadata?.uid}`);
  const got = state
    .list(secrets, NS)
    .map((s) => `${s.metadata?.name}=${JSON.stringify(s.data ?? {})}@${getControllerOf(s)?.uid}`);
  return [
    ...want.filter((w) => !got.includes(w)).map((w) => `missing or stale: ${w}`),
    ...got.filter((g) => !want.includes(g)).map((g) => `unwanted: ${g}`),
  ];
}

describe("controller property on @informer-ts/testing", () => {
  it("third-party writes, server faults and failing or slow reconciles converge to the desired children: 60 generated cases in-process", async () => {
    const r = await checkController<Chaos>({
      numRuns: 60,
      seed: 301,
      timeLimitMs: 240_000, // below the test's timeout: a failure's story prints instead of vitest's timeout
      variant: fc.record({ failEvery: fc.constantFrom(0, 3, 5), slowMs: fc.constantFrom(0, 50, 2000) }),
      describeVariant: (v) =>
        `${v.failEvery === 0 ? "no reconcile fails" : `every ${v.failEvery}th reconcile fails`}, every 3rd sleeps ${v.slowMs} ms`,
      history: { namespaces: [NS], names: NAMES, custom: { arbitrary: thirdParty, weight: 5 } },
      prepare: parentsWithChildren,
      convergeWithinMs: 30 * 60_000,
      metrics: () => new InMemoryMetrics(),
      converges: mirrored,
      setup: ({ manager, cluster, builder, variant }) => {
        const reconcile = mirrorReconciler({ manager, clock: cluster.clock, client: cluster.client }, variant);
        builder().for(configmaps).owns(secrets).withOptions({ maxConcurrentReconciles: 3 }).complete(reconcile);
      },
      invariants: ({ manager, variant }, reconciles) => {
        // Every failed reconcile was counted and requeued through the rate limiter (one retry per failure at least).
        const errors = reconciles.filter((x) => x.outcome?.startsWith("error:")).length;
        const metrics = manager.metrics as InMemoryMetrics;
        const counted = metrics.value("controller_runtime_reconcile_errors_total", { controller: "configmap" });
        const retries = metrics.value("workqueue_retries_total", { name: "configmap" });
        const out: string[] = [];
        if (counted !== errors) out.push(`controller_runtime_reconcile_errors_total is ${counted}, ${errors} failed`);
        if (retries < errors) out.push(`workqueue_retries_total is ${retries} < ${errors} failed reconciles`);
        if (variant.failEvery > 0 && reconciles.length >= variant.failEvery && errors === 0) {
          out.push(`${reconciles.length} reconciles and none failed although every ${variant.failEvery}th should`);
        }
        if (manager.notReadyReason() !== undefined) out.push(`manager not ready: ${manager.notReadyReason()}`);
        return [{ name: "retriedAndCounted", ok: out.length === 0, violations: out }];
      },
    });
    expect(r.numRuns).toBe(60);
  }, 300_000);
});
