import type { KubeObject } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { defer, from, type Observable, of, Subject, throwError } from "rxjs";
import { describe, expect, it } from "vitest";
import { metaNamespaceKeyFunc } from "../keys.js";
import { newStore } from "../store-impl.js";
import { DeletedFinalStateUnknown } from "../tombstone.js";
import type { WatcherEvent } from "../watcher-event.js";
import { appliedObjects } from "./applied-objects.js";
import { backoff } from "./backoff.js";
import { keys } from "./keys.js";
import {
  annotationsChanged,
  generationChanged,
  labelsChanged,
  predicateFilter,
  resourceVersionChanged,
} from "./predicate-filter.js";
import { reflect } from "./reflect.js";
import { touchedObjects } from "./touched-objects.js";

const obj = (name: string, rv: string, meta: Partial<NonNullable<KubeObject["metadata"]>> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "ns", resourceVersion: rv, uid: `uid-${name}`, ...meta },
});

function collectSync<T>(o: Observable<T>): T[] {
  const out: T[] = [];
  o.subscribe((v) => out.push(v));
  return out;
}

describe("reflect(store)", () => {
  it("replaces the store atomically on initDone: readers never see a half-listed cache", () => {
    const store = newStore<KubeObject>(metaNamespaceKeyFunc);
    store.add(obj("old", "1"));
    const events = new Subject<WatcherEvent<KubeObject>>();
    const seen: string[][] = [];
    events.pipe(reflect(store)).subscribe(() => seen.push(store.listKeys().sort()));
    events.next({ type: "init" });
    events.next({ type: "initApply", object: obj("a", "5") });
    events.next({ type: "initApply", object: obj("b", "6") });
    events.next({ type: "initDone", resourceVersion: "7" });
    expect(seen).toEqual([["ns/old"], ["ns/old"], ["ns/old"], ["ns/a", "ns/b"]]);
    expect(store.lastStoreSyncResourceVersion()).toBe("7");
  });

  it("applies, deletes and bookmarks; the store is written before the event goes downstream", () => {
    const store = newStore<KubeObject>(metaNamespaceKeyFunc);
    const events = new Subject<WatcherEvent<KubeObject>>();
    const atEvent: (string | undefined)[] = [];
    events.pipe(reflect(store)).subscribe(() => atEvent.push(store.getByKey("ns/a")?.metadata?.resourceVersion));
    events.next({ type: "apply", object: obj("a", "1") });
    events.next({ type: "apply", object: obj("a", "2") });
    events.next({ type: "bookmark", resourceVersion: "3" });
    events.next({ type: "delete", object: obj("a", "4") });
    expect(atEvent).toEqual(["1", "2", "2", undefined]);
    expect(store.lastStoreSyncResourceVersion()).toBe("4");
  });

  it("apply is an upsert (update), and the stream keeps going when the store throws", () => {
    const calls: string[] = [];
    const lines: string[] = [];
    const target = {
      add: (o: KubeObject) => calls.push(`add ${o.metadata?.name}`),
      update: (o: KubeObject) => calls.push(`update ${o.metadata?.name}`),
      delete: () => {
        throw new Error("disk full");
      },
      replace: () => {},
      resync: () => {},
    };
    const out = collectSync(
      from<WatcherEvent<KubeObject>[]>([
        { type: "apply", object: obj("a", "1") },
        { type: "apply", object: obj("a", "2") },
        { type: "delete", object: obj("a", "3") },
        { type: "apply", object: obj("b", "4") },
        { type: "bookmark", resourceVersion: "5" }, // no bookmark capability: skipped
      ]).pipe(reflect(target, { logger: { log: (_l, m) => lines.push(m) } })),
    );
    expect(calls).toEqual(["update a", "update a", "update b"]);
    expect(out).toHaveLength(5);
    expect(lines).toEqual(["reflect: store delete failed"]);
  });
});

describe("appliedObjects() / touchedObjects() / keys()", () => {
  const stream: WatcherEvent<KubeObject>[] = [
    { type: "init" },
    { type: "initApply", object: obj("a", "1") },
    { type: "initDone", resourceVersion: "1" },
    { type: "apply", object: obj("b", "2") },
    { type: "delete", object: obj("a", "3") },
    { type: "bookmark", resourceVersion: "4" },
  ];

  it("appliedObjects keeps initApply and apply objects", () => {
    expect(collectSync(from(stream).pipe(appliedObjects())).map((o) => o.metadata?.name)).toEqual(["a", "b"]);
  });

  it("touchedObjects also keeps deleted objects", () => {
    expect(collectSync(from(stream).pipe(touchedObjects())).map((o) => o.metadata?.resourceVersion)).toEqual([
      "1",
      "2",
      "3",
    ]);
  });

  it("keys gives namespace/name, the key of a tombstone, name for cluster-scoped, and skips keyless objects", () => {
    const lines: string[] = [];
    const input: unknown[] = [
      obj("a", "1"),
      new DeletedFinalStateUnknown("ns/gone", obj("gone", "2")),
      { metadata: { name: "node-1" } },
      { metadata: {} },
    ];
    const out = collectSync(of(...input).pipe(keys({ logger: { log: (_l, m) => lines.push(m) } })));
    expect(out).toEqual(["ns/a", "ns/gone", "node-1"]);
    expect(lines).toEqual(["keys: object has no key; skipped"]);
  });
});

describe("predicateFilter()", () => {
  it("passes the first version and later ones only when the predicate value changes", () => {
    const input = [
      obj("a", "1", { generation: 1 }),
      obj("a", "2", { generation: 1 }), // status update
      obj("a", "3", { generation: 2 }),
      obj("b", "4", { generation: 1 }),
      obj("a", "5", { generation: 2, uid: "new-uid" }), // deleted and re-created
      obj("c", "6"), // no generation: always passes
      obj("c", "7"),
    ];
    const out = collectSync(from(input).pipe(predicateFilter(generationChanged)));
    expect(out.map((o) => o.metadata?.resourceVersion)).toEqual(["1", "3", "4", "5", "6", "7"]);
  });

  it("labels and annotations compare order-insensitively; resourceVersion drops exact repeats", () => {
    const l1 = obj("a", "1", { labels: { x: "1", y: "2" } });
    const l2 = obj("a", "2", { labels: { y: "2", x: "1" } });
    const l3 = obj("a", "3", { labels: { x: "1" } });
    expect(
      collectSync(from([l1, l2, l3]).pipe(predicateFilter(labelsChanged))).map((o) => o.metadata?.resourceVersion),
    ).toEqual(["1", "3"]);
    const a1 = obj("a", "1", { annotations: { k: "v" } });
    const a2 = obj("a", "2", { annotations: { k: "v" } });
    expect(collectSync(from([a1, a2]).pipe(predicateFilter(annotationsChanged)))).toHaveLength(1);
    expect(collectSync(from([l1, l1, l2]).pipe(predicateFilter(resourceVersionChanged)))).toEqual([l1, l2]);
  });

  it("a tombstone passes and makes the object new again", () => {
    const a = obj("a", "1", { generation: 1 });
    const out = collectSync(
      from<unknown[]>([a, new DeletedFinalStateUnknown("ns/a", a), a]).pipe(
        predicateFilter((o) => generationChanged(o)),
      ),
    );
    expect(out).toHaveLength(3);
  });

  it("a throwing predicate errors the stream", () => {
    let error: unknown;
    from([obj("a", "1")])
      .pipe(
        predicateFilter(() => {
          throw new Error("bad predicate");
        }),
      )
      .subscribe({ error: (e: unknown) => (error = e) });
    expect((error as Error).message).toBe("bad predicate");
  });
});

describe("backoff(policy)", () => {
  it("resubscribes after errors with 0.8 s ×2 full-jitter delays on the injected clock", async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    const attempts: number[] = [];
    const source = defer(() => {
      attempts.push(clock.now() - t0);
      return attempts.length < 4 ? throwError(() => new Error("down")) : of("up");
    });
    const values: string[] = [];
    const delays: number[] = [];
    source
      .pipe(backoff({ clock, rand: seededRand(5), onRetry: (_e, d) => delays.push(d) }))
      .subscribe((v) => values.push(v));
    await clock.runUntilIdle();
    expect(values).toEqual(["up"]);
    expect(attempts).toHaveLength(4);
    expect(delays[0]).toBeGreaterThanOrEqual(800);
    expect(delays[0]).toBeLessThan(1600);
    expect(delays[1]).toBeGreaterThanOrEqual(1600);
    expect(delays[1]).toBeLessThan(3200);
    expect(delays[2]).toBeGreaterThanOrEqual(3200);
    expect(attempts[1]! - attempts[0]!).toBeCloseTo(delays[0]!, 0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("gives up after maxRetries and on errors shouldRetry rejects", async () => {
    const clock = new FakeClock();
    let tries = 0;
    let error: unknown;
    defer(() => {
      tries++;
      return throwError(() => new Error(`fail ${tries}`));
    })
      .pipe(backoff({ clock, maxRetries: 2 }))
      .subscribe({ error: (e: unknown) => (error = e) });
    await clock.runUntilIdle();
    expect(tries).toBe(3);
    expect((error as Error).message).toBe("fail 3");

    let fatal: unknown;
    throwError(() => new Error("fatal"))
      .pipe(backoff({ clock, shouldRetry: (e) => (e as Error).message !== "fatal" }))
      .subscribe({ error: (e: unknown) => (fatal = e) });
    expect((fatal as Error).message).toBe("fatal");
    expect(clock.pendingTimers()).toBe(0);
  });

  it("unsubscribing during the wait clears the timer", async () => {
    const clock = new FakeClock();
    const sub = throwError(() => new Error("x"))
      .pipe(backoff({ clock }))
      .subscribe({ error: () => {} });
    expect(clock.pendingTimers()).toBe(1);
    sub.unsubscribe();
    expect(clock.pendingTimers()).toBe(0);
  });
});
