// The engine's request API and its in-process face: errors are data (an unknown resource rejects with a 404 naming
// it, never a synchronous throw), typed results ({ object, servedFrom, deleted, created }), and the injected latency
// wait ends with the request's signal or the engine's stop, leaving no timer behind.
import { isNotFound, type StatusError } from "@informer-ts/apimachinery";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { COLLECTION_VERBS } from "../served-resource.js";
import { SimApiServer } from "../sim-apiserver.js";
import { UnknownResourceError } from "../unknown-resource-error.js";

function setup() {
  const clock = new FakeClock();
  const engine = new SimApiServer({ clock, rand: seededRand(3), controllers: false, compactionIntervalMs: 0 });
  return { clock, engine };
}

/** Calls `fn` and returns what it returned, failing the test if it threw synchronously. */
function noThrow<T>(fn: () => T): T {
  let out: T | undefined;
  expect(() => {
    out = fn();
  }).not.toThrow();
  return out as T;
}

async function rejection(p: Promise<unknown>): Promise<StatusError> {
  return p.then(
    () => expect.unreachable("resolved"),
    (err: unknown) => err as StatusError,
  );
}

describe("engine requests: an unknown resource is a rejected promise naming it", () => {
  const calls: Array<[string, (e: SimApiServer) => Promise<unknown>]> = [
    ["list", (e) => e.list("configmapz", "default")],
    ["get", (e) => e.get("configmapz", "default", "a")],
    ["create", (e) => e.create("configmapz", "default", { metadata: { name: "a" } })],
    ["update", (e) => e.update("configmapz", "default", "a", { metadata: { name: "a" } })],
    ["patch", (e) => e.patch("configmapz", "default", "a", "application/merge-patch+json", "{}")],
    ["delete", (e) => e.delete("configmapz", "default", "a")],
    ["deleteCollection", (e) => e.deleteCollection("configmapz", "default")],
    ["watch", (e) => e.watch("configmapz", "default")],
    ["requests.list", (e) => e.requests.list("configmapz", "default", {}, {})],
    ["requests.watch", (e) => e.requests.watch("configmapz", "default", {}, {})],
    ["listerWatcher.list", (e) => e.listerWatcher("configmapz").list({})],
    ["listerWatcher.watch", (e) => e.listerWatcher("configmapz").watch({})],
  ];
  for (const [name, call] of calls) {
    it(`${name}`, async () => {
      const { engine } = setup();
      const err = await rejection(noThrow(() => call(engine)));
      expect(isNotFound(err)).toBe(true);
      expect(err.message).toBe("the server could not find the requested resource (configmapz)");
      engine.stop();
    });
  }

  it("an in-process listerWatcher made before its custom resource is served works once it is", async () => {
    const { engine } = setup();
    const lw = engine.listerWatcher("gadgets.example.org", { namespace: "default" });
    expect(isNotFound(await rejection(lw.list({})))).toBe(true);
    engine.register({
      group: "example.org",
      version: "v1",
      resource: "gadgets",
      kind: "Gadget",
      singularName: "gadget",
      namespaced: true,
      verbs: COLLECTION_VERBS,
      custom: true,
    });
    await engine.create("gadgets.example.org", "default", { metadata: { name: "g" } });
    expect((await lw.list({})).items.map((o) => o.metadata?.name)).toEqual(["g"]);
    engine.stop();
  });
});

describe("the synchronous admin API: an unknown resource throws UnknownResourceError naming it, changing nothing", () => {
  const calls: Array<[string, (e: SimApiServer) => unknown]> = [
    ["resource", (e) => e.resource("gizmos")],
    ["cacher", (e) => e.caches.cacher("gizmos")],
    ["watchers", (e) => e.caches.watchers("gizmos")],
    ["reinitializeCache", (e) => e.faults.reinitializeCache("gizmos", 1000)],
    ["dropWatches", (e) => e.faults.dropWatches("gizmos")],
    ["watcherInfo", (e) => e.caches.watcherInfo("gizmos")],
    ["stallWatchers", (e) => e.faults.stallWatchers({ resource: "gizmos" }, true)],
    ["resumeWatchers", (e) => e.faults.resumeWatchers({ resource: "gizmos" })],
  ];
  for (const [name, call] of calls) {
    it(name, async () => {
      const { engine } = setup();
      const w = await engine.watch("configmaps", "default", { resourceVersion: "0", timeoutSeconds: 60 });
      let thrown: unknown;
      try {
        call(engine);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(UnknownResourceError);
      const err = thrown as UnknownResourceError;
      expect([err.code, err.reason, err.resource, err.message]).toEqual([
        404,
        "NotFound",
        "gizmos",
        "the server could not find the requested resource (gizmos)",
      ]);
      // Nothing changed: the open watch is neither stalled nor closed, the caches are ready, no rule was added.
      expect(engine.caches.watcherInfo().map((i) => i.stalled)).toEqual([false]);
      expect(engine.caches.cacher("configmaps").isReady).toBe(true);
      const later = await engine.watch("configmaps", "default", { resourceVersion: "0", timeoutSeconds: 60 });
      expect(engine.caches.watcherInfo().map((i) => i.stalled)).toEqual([false, false]);
      w.stop();
      later.stop();
      engine.stop();
    });
  }

  it("bad values name themselves (RangeError) and change nothing: compact, reinitializeCache, setBookmarkMode", async () => {
    const { engine } = setup();
    const w = await engine.watch("configmaps", "default", { resourceVersion: "0", timeoutSeconds: 60 });
    const rv = engine.currentResourceVersion;
    for (const bad of [Number.NaN, -1, 1.5]) {
      expect(() => engine.faults.compact(bad)).toThrow(
        new RangeError(`compact: the revision must be an integer ≥ 0, got ${bad}`),
      );
    }
    expect([engine.currentResourceVersion, engine.storage.compactedRevision]).toEqual([rv, 0]);
    for (const bad of [Number.NaN, -5, Number.POSITIVE_INFINITY]) {
      expect(() => engine.faults.reinitializeCache("configmaps", bad)).toThrow(
        new RangeError(`reinitializeCache: downtimeMs must be a finite number ≥ 0, got ${bad}`),
      );
    }
    expect([engine.caches.cacher("configmaps").isReady, engine.caches.watcherInfo().length]).toEqual([true, 1]);
    expect(() => engine.faults.bookmarks("none" as never)).toThrow(
      new RangeError('bookmark mode must be one of on, no-periodic, off, got "none"'),
    );
    expect(engine.faults.bookmarkMode).toBe("on");
    w.stop();
    engine.stop();
  });

  it("a latency rule names its resource by plural or plural.group; one naming nothing served throws", async () => {
    const { clock, engine } = setup();
    expect(() => engine.faults.latency({ ms: 100, resource: "gizmos" })).toThrow(UnknownResourceError);
    engine.faults.latency({ ms: 100, resource: "leases.coordination.k8s.io" });
    engine.faults.latency({ ms: 10, resource: "leases" });
    const start = clock.now();
    const p = engine.list("leases.coordination.k8s.io", "default");
    await clock.step(109);
    await settle();
    let done = false;
    void p.then(() => {
      done = true;
    });
    await settle();
    expect(done).toBe(false);
    await clock.step(1);
    await p;
    expect(clock.now() - start).toBe(110);
    engine.stop();
  });

  it("the verbs reject with the same error type", async () => {
    const { engine } = setup();
    await expect(engine.list("gizmos", "default")).rejects.toBeInstanceOf(UnknownResourceError);
    engine.stop();
  });
});

describe("engine requests: typed results", () => {
  it("list and get answer where they were served from; delete whether it finished; apply whether it created", async () => {
    const { engine } = setup();
    const created = await engine.requests.create("configmaps", "default", { metadata: { name: "a" } }, {});
    expect(created).toMatchObject({ object: { metadata: { name: "a" } } });
    expect(created.servedFrom).toBeUndefined();
    expect((await engine.requests.list("configmaps", "default", { resourceVersion: "0" }, {})).servedFrom).toBe(
      "cache",
    );
    expect((await engine.requests.get("configmaps", "default", "a", {}, {})).servedFrom).toBe("storage");
    const apply = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n";
    const applied = await engine.requests.patch("configmaps", "default", "b", "application/apply-patch+yaml", apply, {
      fieldManager: "t",
    });
    expect(applied.created).toBe(true);
    const held = await engine.requests.create(
      "configmaps",
      "default",
      { metadata: { name: "f", finalizers: ["example.com/x"] } },
      {},
    );
    expect(held.object.metadata?.name).toBe("f");
    expect((await engine.requests.delete("configmaps", "default", "f", undefined, {})).deleted).toBe(false);
    expect((await engine.requests.delete("configmaps", "default", "a", undefined, {})).deleted).toBe(true);
    // The request API records nothing (the HTTP face records each request itself, with its bytes).
    expect(engine.accounting.count()).toBe(0);
    engine.stop();
  });
});

describe("engine requests: the latency wait is cancelled with the request and by stop", () => {
  it("an aborted in-process request rejects with the signal's reason, leaves no timer and is recorded as kube-apiserver records it", async () => {
    const { clock, engine } = setup();
    const audit: string[] = [];
    engine.accounting.auditLog = (l) => audit.push(l);
    const idle = clock.pendingTimers();
    engine.faults.latency({ ms: 10_000, verbs: ["list"] });
    const ac = new AbortController();
    const p = engine.list("configmaps", "default", {}, { signal: ac.signal, userAgent: "cancelled" });
    await settle();
    expect(clock.pendingTimers()).toBe(idle + 1);
    const reason = new Error("client went away");
    ac.abort(reason);
    expect(await p.catch((err: unknown) => err)).toBe(reason);
    expect(clock.pendingTimers()).toBe(idle);
    // The timeout filter's 504 (it answers a request whose context ended, the client's going away included), with
    // the URI the client asked for.
    expect(engine.accounting.count({ userAgent: "cancelled", code: 504 })).toBe(1);
    const line = JSON.parse(audit.at(-1)!);
    expect([line.verb, line.requestURI, line.responseStatus]).toEqual([
      "list",
      "/api/v1/namespaces/default/configmaps",
      {
        metadata: {},
        status: "Failure",
        message: "Timeout: request did not complete within the allotted timeout",
        reason: "Timeout",
        code: 504,
      },
    ]);
    engine.stop();
  });

  it("a watch aborted before it started is recorded as audit's 'Connection closed early' (200), with its URI", async () => {
    const { engine } = setup();
    const audit: string[] = [];
    engine.accounting.auditLog = (l) => audit.push(l);
    engine.faults.latency({ ms: 10_000, verbs: ["watch"] });
    const ac = new AbortController();
    const p = engine.watch("configmaps", "default", { resourceVersion: "7" }, { signal: ac.signal, userAgent: "w" });
    await settle();
    ac.abort(new Error("client went away"));
    await expect(p).rejects.toThrow("client went away");
    const line = JSON.parse(audit.at(-1)!);
    expect([line.verb, line.requestURI, line.responseStatus]).toEqual([
      "watch",
      "/api/v1/namespaces/default/configmaps?resourceVersion=7&watch=true",
      { metadata: {}, status: "Success", message: "Connection closed early", code: 200 },
    ]);
    engine.stop();
  });

  it("a dropped-connection fault in-process is recorded as unanswered (504, with its URI); an API error keeps its code", async () => {
    const { engine } = setup();
    const audit: string[] = [];
    engine.accounting.auditLog = (l) => audit.push(l);
    engine.faults.request({ type: "drop-connection", verbs: ["get"], count: 1 });
    await expect(engine.get("configmaps", "default", "x", {}, { userAgent: "d" })).rejects.toThrow(/dropped/);
    await expect(engine.get("configmaps", "default", "x", {}, { userAgent: "d" })).rejects.toMatchObject({ code: 404 });
    expect(audit.map((l) => [JSON.parse(l).requestURI, JSON.parse(l).responseStatus.code])).toEqual([
      ["/api/v1/namespaces/default/configmaps/x", 504],
      ["/api/v1/namespaces/default/configmaps/x", 404],
    ]);
    engine.stop();
  });

  it("an already-aborted signal rejects at once without arming a timer", async () => {
    const { clock, engine } = setup();
    const idle = clock.pendingTimers();
    engine.faults.latency({ ms: 500 });
    const ac = new AbortController();
    ac.abort(new Error("gone"));
    await expect(engine.requests.get("configmaps", "default", "x", {}, { signal: ac.signal })).rejects.toThrow("gone");
    expect(clock.pendingTimers()).toBe(idle);
    engine.stop();
  });

  it("stop() ends every waiting request with 503 and no timer survives it; later requests with latency get 503 at once", async () => {
    const { clock, engine } = setup();
    engine.faults.latency({ ms: 60_000 });
    const waiting = [
      engine.list("configmaps", "default"),
      engine.requests.watch("configmaps", "default", {}, {}),
      engine.create("configmaps", "default", { metadata: { name: "late" } }),
    ];
    await settle();
    expect(clock.pendingTimers()).toBeGreaterThanOrEqual(3);
    engine.stop();
    for (const p of waiting) {
      const err = await rejection(p);
      expect([err.code, err.message]).toEqual([503, "the apiserver is shutting down"]);
    }
    expect(clock.pendingTimers()).toBe(0);
    expect((await rejection(engine.list("configmaps", "default"))).code).toBe(503);
    expect(clock.pendingTimers()).toBe(0);
    // Nothing was written by the create that waited.
    expect(engine.storage.count(engine.resource("configmaps"))).toBe(0);
  });

  it("a request without latency never reads its signal (the HTTP face creates it lazily)", async () => {
    const { engine } = setup();
    engine.faults.latency({ ms: 100, verbs: ["watch"] });
    let reads = 0;
    const req = {
      get signal(): AbortSignal {
        reads++;
        return new AbortController().signal;
      },
    };
    await engine.requests.list("configmaps", "default", {}, req);
    expect(reads).toBe(0);
    engine.stop();
  });
});
