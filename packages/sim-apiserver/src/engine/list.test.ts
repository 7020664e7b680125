// LIST and GET through the engine, row by row of reference/apiserver.md §3.2 (L1–L9), with paging and continue tokens
// (§3.2 paging details, §6, §7.3), readiness (§5.7) and the validation matrix of §2. Everything runs in virtual time:
// `cacheLagMs` makes the watch cache trail storage so that freshness waits, the 3 s block timeout and the storage
// fallback can be observed. Each request is also checked in the request accounting: served from cache or storage, and
// for errors where they were answered ("cache" for the 504 after the freshness wait, "storage" for storage's 410/504,
// "" for validation errors and 429s).
import {
  type KubeList,
  type KubeObject,
  type ListOptions,
  type Status,
  StatusError,
  failureStatus as status,
} from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { orderedStatus } from "../http/responsewriters.js";
import { CACHE_MS_PER_OBJECT } from "./filters/model-calibration.js";
import {
  INCONSISTENT_CONTINUE_MESSAGE,
  LIST_TOO_OLD,
  tooLargeStatus as tooLarge,
  VALIDATION_CASES,
} from "./list-cases.test-util.js";
import { WIDGETS } from "./resources.test-util.js";
import { SimApiServer, type SimApiServerOptions } from "./sim-apiserver.js";
import { decodeContinue, encodeContinue, encodeContinueFrom } from "./storage/continue-token.js";

const NS = "ns";
const SEED = ["a", "b", "c", "d", "e"];

/**
 * An engine on a FakeClock with no background timers, seeded with configmaps a–e in "ns" (RVs 2–6) and x in
 * "other" (RV 7).
 */
async function setup(opts: Partial<SimApiServerOptions> = {}) {
  const clock = new FakeClock();
  const sim = new SimApiServer({
    clock,
    rand: seededRand(1),
    progressNotifyIntervalMs: 0,
    compactionIntervalMs: 0,
    // "ns" and "other" have no Namespace objects: these tests are about list semantics, not the lifecycle.
    namespaceLifecycle: false,
    ...opts,
  });
  for (const name of SEED) await sim.create("configmaps", NS, cm(name, "v1"));
  await sim.create("configmaps", "other", cm("x", "v1"));
  await clock.step(opts.cacheLagMs ?? 0); // let a lagging cache catch up with the seed
  return { clock, sim };
}

const cm = (name: string, v: string, labels: Record<string, string> = {}): KubeObject => ({
  metadata: { name, labels },
  data: { v },
});

interface Served<T> {
  readonly value?: T;
  readonly status?: Status;
  /** From the request accounting: exactly one record per request. */
  readonly servedFrom: string;
  readonly code: number;
}

/** Runs one request and reads back its single accounting record; a StatusError becomes `status` (wire form). */
async function served<T>(sim: SimApiServer, request: () => Promise<T>): Promise<Served<T>> {
  sim.accounting.reset();
  let value: T | undefined;
  let status: Status | undefined;
  try {
    value = await request();
  } catch (err) {
    if (!(err instanceof StatusError)) throw err;
    status = orderedStatus(err.status);
  }
  const rows = sim.accounting.rows();
  expect(rows).toHaveLength(1);
  const { servedFrom, code } = rows[0]!;
  return { ...(value !== undefined && { value }), ...(status !== undefined && { status }), servedFrom, code };
}

const list = (sim: SimApiServer, opts: ListOptions, ns = NS) => served(sim, () => sim.list("configmaps", ns, opts));
const get = (sim: SimApiServer, name: string, resourceVersion?: string) =>
  served(sim, () => sim.get("configmaps", NS, name, resourceVersion === undefined ? {} : { resourceVersion }));

/** A request left running while virtual time moves. */
function pending<T>(p: Promise<T>) {
  const state: { done: boolean; value?: T } = { done: false };
  void p.then((v) => {
    state.done = true;
    state.value = v;
  });
  return state;
}

/** `name@rv=v` of each item, for compact assertions on contents and versions. */
const items = (l: KubeList | undefined) =>
  (l?.items ?? []).map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}=${(o.data as { v: string }).v}`);
const namesOf = (l: KubeList | undefined) => (l?.items ?? []).map((o) => o.metadata?.name);

describe("L1: RV unset, no limit (consistent read)", () => {
  it("L1: cache in sync → from the cache at the current global RV", async () => {
    const { sim } = await setup();
    const r = await list(sim, {});
    expect(r).toMatchObject({ servedFrom: "cache", code: 200 });
    expect(r.value?.metadata).toEqual({ resourceVersion: "7" });
    expect(items(r.value)).toEqual(["a@2=v1", "b@3=v1", "c@4=v1", "d@5=v1", "e@6=v1"]);
  });

  it("L1: cache behind → waits until it caught up, then serves from it (newest write included)", async () => {
    const { sim, clock } = await setup({ cacheLagMs: 1000 });
    await sim.create("configmaps", NS, cm("f", "v1")); // RV 8, the cache sees it 1 s later
    const p = pending(list(sim, {}));
    await clock.step(999);
    expect(p.done).toBe(false);
    await clock.step(1);
    expect(p.value).toMatchObject({ servedFrom: "cache", code: 200 });
    expect(p.value?.value?.metadata.resourceVersion).toBe("8");
    expect(namesOf(p.value?.value)).toEqual([...SEED, "f"]);
  });

  it("L1: cache behind by more than the 3 s block timeout → falls back to storage after 3 s", async () => {
    const { sim, clock } = await setup({ cacheLagMs: 5000 });
    await sim.create("configmaps", NS, cm("f", "v1"));
    const p = pending(list(sim, {}));
    await clock.step(2999);
    expect(p.done).toBe(false);
    await clock.step(1);
    expect(p.value).toMatchObject({ servedFrom: "storage", code: 200 });
    expect(p.value?.value?.metadata).toEqual({ resourceVersion: "8" });
    expect(namesOf(p.value?.value)).toEqual([...SEED, "f"]);
  });

  it("L1: an idle cache behind the global RV (another resource changed) is brought forward by a progress request", async () => {
    const { sim } = await setup();
    await sim.create("namespaces", "", { metadata: { name: "team" } }); // RV 8: nothing for configmaps
    expect(sim.caches.cacher("configmaps").resourceVersion).toBe(7);
    const r = await list(sim, {});
    expect([r.servedFrom, r.value?.metadata.resourceVersion]).toEqual(["cache", "8"]);
  });
});

describe("list items", () => {
  it("are frozen, without kind/apiVersion, the same copy in every list while their object is unchanged", async () => {
    const { sim } = await setup();
    const first = (await list(sim, {})).value!;
    await sim.update("configmaps", NS, "b", cm("b", "v2")); // RV 8
    const second = (await list(sim, {})).value!;
    expect(first.items.every((o) => Object.isFrozen(o) && o.kind === undefined && o.apiVersion === undefined)).toBe(
      true,
    );
    expect(items(second)).toEqual(["a@2=v1", "b@8=v2", "c@4=v1", "d@5=v1", "e@6=v1"]);
    expect(second.items.map((o, i) => o === first.items[i])).toEqual([true, false, true, true, true]);
  });
});

describe("L2: RV unset, limit=n (consistent, paged)", () => {
  it("L2: pages from the cache with a continue token at the cache RV and remainingItemCount; the last page has neither", async () => {
    const { sim } = await setup();
    const p1 = await list(sim, { limit: 2 });
    expect(p1.servedFrom).toBe("cache");
    expect(namesOf(p1.value)).toEqual(["a", "b"]);
    expect(p1.value?.metadata).toEqual({
      resourceVersion: "7",
      continue: encodeContinue("ns/b", "ns/", 7),
      remainingItemCount: 3,
    });
    const p2 = await list(sim, { limit: 2, continue: p1.value?.metadata.continue });
    expect([namesOf(p2.value), p2.value?.metadata.remainingItemCount, p2.servedFrom]).toEqual([["c", "d"], 1, "cache"]);
    const p3 = await list(sim, { limit: 2, continue: p2.value?.metadata.continue });
    expect(namesOf(p3.value)).toEqual(["e"]);
    expect(p3.value?.metadata).toEqual({ resourceVersion: "7" });
  });

  it("L2: with a selector pages carry continue but no remainingItemCount, and may come back short (even empty)", async () => {
    const { sim } = await setup();
    await sim.update("configmaps", NS, "a", cm("a", "v2", { pick: "yes" })); // RV 8
    await sim.update("configmaps", NS, "d", cm("d", "v2", { pick: "yes" })); // RV 9
    const p1 = await list(sim, { limit: 2, labelSelector: "pick=yes" });
    expect(namesOf(p1.value)).toEqual(["a", "d"]);
    expect(p1.value?.metadata.remainingItemCount).toBeUndefined();
    expect(decodeContinue(p1.value?.metadata.continue ?? "", "ns/")).toEqual({ fromKey: "ns/d\u0000", rv: 9 });
    const p2 = await list(sim, { limit: 2, labelSelector: "pick=yes", continue: p1.value?.metadata.continue });
    expect(p2.value?.items).toEqual([]);
    expect(p2.value?.metadata).toEqual({ resourceVersion: "9" });
  });

  it("L2: all namespaces: keys sort by namespace, then name", async () => {
    const { sim } = await setup();
    const r = await list(sim, { limit: 5 }, "");
    expect(r.value?.items.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`)).toEqual([
      "ns/a",
      "ns/b",
      "ns/c",
      "ns/d",
      "ns/e",
    ]);
    expect(r.value?.metadata.remainingItemCount).toBe(1);
  });
});

describe("L3: RV=0 (any, from the cache, no wait)", () => {
  it.each([{ resourceVersion: "0" }, { resourceVersion: "0", resourceVersionMatch: "NotOlderThan" as const }])(
    "L3: %o ignores limit: full list, no continue, no remainingItemCount",
    async (opts) => {
      const { sim } = await setup();
      const r = await list(sim, { ...opts, limit: 2 });
      expect(r.servedFrom).toBe("cache");
      expect(namesOf(r.value)).toEqual(SEED);
      expect(r.value?.metadata).toEqual({ resourceVersion: "7" });
    },
  );

  it("L3: does not wait for a lagging cache: the answer may be older than the last write", async () => {
    const { sim, clock } = await setup({ cacheLagMs: 1000 });
    await sim.create("configmaps", NS, cm("f", "v1")); // RV 8
    const r = await list(sim, { resourceVersion: "0" });
    expect([r.servedFrom, r.value?.metadata.resourceVersion, namesOf(r.value)]).toEqual(["cache", "7", SEED]);
    await clock.step(1000);
    expect(namesOf((await list(sim, { resourceVersion: "0" })).value)).toEqual([...SEED, "f"]);
  });
});

describe("L4: RV=N without limit, or NotOlderThan", () => {
  it("L4: N the cache already has → from the cache at the cache RV (≥ N)", async () => {
    const { sim } = await setup();
    const r = await list(sim, { resourceVersion: "3" });
    expect([r.servedFrom, r.value?.metadata.resourceVersion, namesOf(r.value)]).toEqual(["cache", "7", SEED]);
  });

  it("L4: NotOlderThan honours limit (continue token at the cache RV)", async () => {
    const { sim } = await setup();
    const r = await list(sim, { resourceVersion: "3", resourceVersionMatch: "NotOlderThan", limit: 4 });
    expect(namesOf(r.value)).toEqual(["a", "b", "c", "d"]);
    expect(r.value?.metadata).toEqual({
      resourceVersion: "7",
      continue: encodeContinue("ns/d", "ns/", 7),
      remainingItemCount: 1,
    });
  });

  it("L4: N committed but not yet in the cache → waits for the cache", async () => {
    const { sim, clock } = await setup({ cacheLagMs: 2000 });
    await sim.create("configmaps", NS, cm("f", "v1")); // RV 8
    const p = pending(list(sim, { resourceVersion: "8" }));
    await clock.step(1999);
    expect(p.done).toBe(false);
    await clock.step(1);
    expect(p.value).toMatchObject({ servedFrom: "cache", code: 200 });
    expect(namesOf(p.value?.value)).toEqual([...SEED, "f"]);
  });

  it("L4: N beyond anything committed → 3 s block, then 504 Too large resource version with Retry-After 1", async () => {
    const { sim, clock } = await setup();
    const p = pending(list(sim, { resourceVersion: "100" }));
    await clock.step(2999);
    expect(p.done).toBe(false);
    await clock.step(1);
    expect(p.value).toEqual({ status: tooLarge(100, 7, 1), servedFrom: "cache", code: 504 });
  });
});

/** ListFromCacheSnapshot on (v1.34, the default) serves exact reads from the cache; off (≤ v1.33) from storage. */
const GATES = [
  { gate: "ListFromCacheSnapshot on", listFromCacheSnapshot: true, from: "cache" },
  { gate: "ListFromCacheSnapshot off", listFromCacheSnapshot: false, from: "storage" },
];
/** A watch-cache history of 4 events: older revisions fall out of the cache's reach quickly. */
const SHORT_HISTORY = { historyLowerBound: 4, historyUpperBound: 4 };

describe("L5: RV=N with limit (legacy exact) or resourceVersionMatch=Exact", () => {
  /** Seeded, then a modified (RV 8), b deleted (RV 9), f created (RV 10). */
  async function withHistory(opts: Partial<SimApiServerOptions> = {}) {
    const env = await setup(opts);
    await env.sim.update("configmaps", NS, "a", cm("a", "v2"));
    await env.sim.delete("configmaps", NS, "b");
    await env.sim.create("configmaps", NS, cm("f", "v1"));
    return env;
  }
  const AT_5 = ["a@2=v1", "b@3=v1", "c@4=v1", "d@5=v1"];

  it.each(
    GATES.flatMap((g) => [
      { ...g, what: "legacy exact (limit)", opts: { resourceVersion: "5", limit: 10 } },
      { ...g, what: "Exact without limit", opts: { resourceVersion: "5", resourceVersionMatch: "Exact" as const } },
    ]),
  )("L5: $what at an older revision, $gate → from the $from, the list exactly as it was at N", async (c) => {
    const { sim } = await withHistory({ listFromCacheSnapshot: c.listFromCacheSnapshot });
    const r = await list(sim, c.opts);
    expect(r.servedFrom).toBe(c.from);
    expect(r.value?.metadata).toEqual({ resourceVersion: "5" });
    expect(items(r.value)).toEqual(AT_5);
  });

  it.each(GATES)("L5: pages at N carry a continue token pinned to N ($gate)", async (c) => {
    const { sim } = await withHistory({ listFromCacheSnapshot: c.listFromCacheSnapshot });
    const r = await list(sim, { resourceVersion: "5", limit: 3 });
    expect([r.servedFrom, r.value?.metadata]).toEqual([
      c.from,
      { resourceVersion: "5", continue: encodeContinue("ns/c", "ns/", 5), remainingItemCount: 1 },
    ]);
  });

  it.each(GATES)("L5: N equal to the cache RV, $gate → from the $from", async (c) => {
    const { sim } = await withHistory({ listFromCacheSnapshot: c.listFromCacheSnapshot });
    const r = await list(sim, { resourceVersion: "10", resourceVersionMatch: "Exact" });
    expect([r.servedFrom, r.value?.metadata.resourceVersion, namesOf(r.value)]).toEqual([
      c.from,
      "10",
      ["a", "c", "d", "e", "f"],
    ]);
  });

  it("L5: N older than the cache's history → storage at N; below the compaction point → 410", async () => {
    const { sim } = await withHistory(SHORT_HISTORY); // the cache keeps RVs 7–10
    const r = await list(sim, { resourceVersion: "5", limit: 10 });
    expect([r.servedFrom, items(r.value)]).toEqual(["storage", AT_5]);
    sim.faults.compact(8);
    expect(await list(sim, { resourceVersion: "5", limit: 10 })).toEqual({
      status: LIST_TOO_OLD,
      servedFrom: "storage",
      code: 410,
    });
    // Compaction does not touch the cache: RV 8 is still rebuilt from its history.
    const at8 = await list(sim, { resourceVersion: "8", resourceVersionMatch: "Exact" });
    expect([at8.servedFrom, items(at8.value)]).toEqual(["cache", ["a@8=v2", "b@3=v1", "c@4=v1", "d@5=v1", "e@6=v1"]]);
  });

  it("L5: N above the current revision → 3 s block, then 504 with Retry-After 1 (ListFromCacheSnapshot on)", async () => {
    const { sim, clock } = await withHistory();
    const p = pending(list(sim, { resourceVersion: "11", resourceVersionMatch: "Exact" }));
    await clock.step(2999);
    expect(p.done).toBe(false);
    await clock.step(1);
    expect(p.value).toEqual({ status: tooLarge(11, 10, 1), servedFrom: "cache", code: 504 });
  });

  it("L5: N above the current revision with ListFromCacheSnapshot off → storage's 504 at once, no Retry-After", async () => {
    const { sim } = await withHistory({ listFromCacheSnapshot: false });
    expect(await list(sim, { resourceVersion: "11", limit: 5 })).toEqual({
      status: tooLarge(11, 10),
      servedFrom: "storage",
      code: 504,
    });
  });
});

describe("L6: continue", () => {
  /** Page 1 (a, b) at RV 7, then c modified (8), d deleted (9), f created (10), g created (11). */
  async function firstPageThenWrites(opts: Partial<SimApiServerOptions> = {}) {
    const env = await setup(opts);
    const p1 = await list(env.sim, { limit: 2 });
    await env.sim.update("configmaps", NS, "c", cm("c", "v2"));
    await env.sim.delete("configmaps", NS, "d");
    await env.sim.create("configmaps", NS, cm("f", "v1"));
    await env.sim.create("configmaps", NS, cm("g", "v1"));
    return { ...env, token: p1.value?.metadata.continue as string };
  }

  it.each(GATES)(
    "L6: continuation pins the first page's RV: later pages show the state at it ($gate → $from)",
    async (c) => {
      const { sim, token } = await firstPageThenWrites({ listFromCacheSnapshot: c.listFromCacheSnapshot });
      const p2 = await list(sim, { limit: 2, continue: token });
      expect(p2.servedFrom).toBe(c.from);
      expect(items(p2.value)).toEqual(["c@4=v1", "d@5=v1"]);
      expect(p2.value?.metadata).toEqual({
        resourceVersion: "7",
        continue: encodeContinue("ns/d", "ns/", 7),
        remainingItemCount: 1,
      });
      const p3 = await list(sim, { limit: 2, continue: p2.value?.metadata.continue, resourceVersion: "0" });
      expect([items(p3.value), p3.value?.metadata]).toEqual([["e@6=v1"], { resourceVersion: "7" }]);
    },
  );

  it("L6: a compaction expires a continuation the cache's history still covers at the cache's next 15 s compaction check (1.34)", async () => {
    const { sim, clock, token } = await firstPageThenWrites();
    sim.faults.compact();
    const p2 = await list(sim, { limit: 2, continue: token });
    expect([p2.servedFrom, p2.code, namesOf(p2.value)]).toEqual(["cache", 200, ["c", "d"]]);
    await clock.step(14_999);
    expect((await list(sim, { limit: 2, continue: token })).code).toBe(200);
    await clock.step(1);
    const expired = await list(sim, { limit: 2, continue: token });
    expect([expired.servedFrom, expired.code]).toEqual(["storage", 410]);
  });

  it("L6: compacted and out of the cache's history → 410 with the inconsistent-continue token in metadata.continue", async () => {
    const { sim, token } = await firstPageThenWrites(SHORT_HISTORY);
    sim.faults.compact(); // compacts at 11, RV 12
    const r = await list(sim, { limit: 2, continue: token });
    const inconsistent = encodeContinue("ns/b", "ns/", -1);
    expect(r).toEqual({
      status: {
        kind: "Status",
        apiVersion: "v1",
        metadata: { continue: inconsistent },
        status: "Failure",
        message: INCONSISTENT_CONTINUE_MESSAGE,
        reason: "Expired",
        code: 410,
      },
      servedFrom: "storage",
      code: 410,
    });
    // Following it continues after b at the latest revision: a consistent read from the cache.
    const rest = await list(sim, { limit: 2, continue: inconsistent });
    expect(rest.servedFrom).toBe("cache");
    expect(items(rest.value)).toEqual(["c@8=v2", "e@6=v1"]);
    expect(rest.value?.metadata).toEqual({
      resourceVersion: "12",
      continue: encodeContinue("ns/e", "ns/", 12),
      remainingItemCount: 2,
    });
  });

  it("L6: the inconsistent-continue token re-encodes the request's start key unchanged (a key without the NUL too)", async () => {
    const { sim, token } = await firstPageThenWrites(SHORT_HISTORY);
    sim.faults.compact();
    const rv = decodeContinue(token, "ns/").rv;
    const handMade = encodeContinueFrom("ns/c", "ns/", rv); // starts at c itself, no trailing NUL
    const r = await list(sim, { limit: 2, continue: handMade });
    expect(r.code).toBe(410);
    expect((r.status as { metadata?: { continue?: string } }).metadata?.continue).toBe(
      encodeContinueFrom("ns/c", "ns/", -1),
    );
  });

  it("L6: an inconsistent continuation is read from storage with ListFromCacheSnapshot off", async () => {
    const { sim } = await setup({ listFromCacheSnapshot: false });
    const r = await list(sim, { limit: 2, continue: encodeContinue("ns/b", "ns/", -1) });
    expect([r.servedFrom, namesOf(r.value), r.value?.metadata.resourceVersion]).toEqual(["storage", ["c", "d"], "7"]);
  });

  it("L6: a continuation at the cache's own RV is served from the cache", async () => {
    const { sim } = await setup();
    const p1 = await list(sim, { limit: 4 });
    const p2 = await list(sim, { limit: 4, continue: p1.value?.metadata.continue });
    expect([p2.servedFrom, namesOf(p2.value)]).toEqual(["cache", ["e"]]);
  });

  it("L6: an inconsistent continuation while the cache lags beyond 3 s falls back to storage", async () => {
    const { sim, clock } = await setup({ cacheLagMs: 5000 });
    await sim.create("configmaps", NS, cm("bb", "v1"));
    const p = pending(list(sim, { continue: encodeContinue("ns/b", "ns/", -1) }));
    await clock.step(3000);
    expect(p.value?.servedFrom).toBe("storage");
    expect(namesOf(p.value?.value)).toEqual(["bb", "c", "d", "e"]);
  });
});

describe("L5/L6: cache snapshots agree with storage (model-based)", () => {
  const op = fc.record({
    kind: fc.constantFrom("create", "update", "delete"),
    name: fc.constantFrom("p", "q", "r", "s"),
    v: fc.constantFrom("1", "2", "3"),
  });

  it("every exact read the cache can rebuild equals storage's list at that revision", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), fc.constantFrom(4, 8, 100), async (ops, bound) => {
        const { sim } = await setup({ historyLowerBound: bound, historyUpperBound: bound });
        for (const o of ops) {
          const exists = sim.storage.get(sim.resource("configmaps"), NS, o.name) !== undefined;
          if (o.kind === "delete" && exists) await sim.delete("configmaps", NS, o.name);
          else if (o.kind !== "delete" && exists) await sim.update("configmaps", NS, o.name, cm(o.name, o.v));
          else if (o.kind === "create" && !exists) await sim.create("configmaps", NS, cm(o.name, o.v));
        }
        const floor = sim.caches.cacher("configmaps").historyStats.oldestRV - 1;
        for (let rv = 1; rv <= sim.currentResourceVersion; rv++) {
          const r = await list(sim, { resourceVersion: String(rv), limit: 3 });
          const want = sim.storage.list(sim.resource("configmaps"), {
            prefix: "ns/",
            rev: rv,
            limit: 3,
            predicate: () => true,
          });
          expect(items(r.value)).toEqual(items({ metadata: {}, items: want.items }));
          expect(r.value?.metadata.remainingItemCount).toBe(want.lastKey === undefined ? undefined : want.remaining);
          if (rv > floor) expect(r.servedFrom).toBe("cache");
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe("L7–L9: GET", () => {
  it("L7: RV unset → storage, always the latest state", async () => {
    const { sim } = await setup({ cacheLagMs: 1000 });
    await sim.update("configmaps", NS, "a", cm("a", "v2"));
    const r = await get(sim, "a");
    expect([r.servedFrom, r.value?.metadata?.resourceVersion, r.code]).toEqual(["storage", "8", 200]);
  });

  it("L7: absent → 404 with the real body", async () => {
    const { sim } = await setup();
    expect(await get(sim, "nope")).toEqual({
      status: status(404, "NotFound", 'configmaps "nope" not found', { name: "nope", kind: "configmaps" }),
      servedFrom: "storage",
      code: 404,
    });
  });

  it("L8: RV=0 → the cache without waiting (may be stale; 404 for what it has not seen yet)", async () => {
    const { sim } = await setup({ cacheLagMs: 1000 });
    await sim.update("configmaps", NS, "a", cm("a", "v2"));
    await sim.create("configmaps", NS, cm("f", "v1"));
    const a = await get(sim, "a", "0");
    expect([a.servedFrom, a.value?.metadata?.resourceVersion]).toEqual(["cache", "2"]);
    const f = await get(sim, "f", "0");
    expect([f.servedFrom, f.code, f.status?.message]).toEqual(["cache", 404, 'configmaps "f" not found']);
  });

  it("L9: RV=N → waits until the cache has N, then the cache", async () => {
    const { sim, clock } = await setup({ cacheLagMs: 1000 });
    await sim.update("configmaps", NS, "a", cm("a", "v2")); // RV 8
    const p = pending(get(sim, "a", "8"));
    await clock.step(999);
    expect(p.done).toBe(false);
    await clock.step(1);
    expect([p.value?.servedFrom, p.value?.value?.metadata?.resourceVersion]).toEqual(["cache", "8"]);
  });

  it("L9: RV=N beyond the current revision → 3 s block, then 504 with Retry-After 1", async () => {
    const { sim, clock } = await setup();
    const p = pending(get(sim, "a", "50"));
    await clock.step(3000);
    expect(p.value).toEqual({ status: tooLarge(50, 7, 1), servedFrom: "cache", code: 504 });
  });
});

describe("a list naming one object (fieldSelector=metadata.name, MatchesSingle): a key lookup, not a scan", () => {
  /** Seeded, then a modified (RV 8), b deleted (RV 9), f created (RV 10). */
  async function withHistory(opts: Partial<SimApiServerOptions> = {}) {
    const env = await setup(opts);
    await env.sim.update("configmaps", NS, "a", cm("a", "v2"));
    await env.sim.delete("configmaps", NS, "b");
    await env.sim.create("configmaps", NS, cm("f", "v1"));
    return env;
  }
  const one = (name: string, opts: ListOptions = {}): ListOptions => ({
    ...opts,
    fieldSelector: `metadata.name=${name}`,
  });
  /** The engine's typed answer: list, where it was served from, keys examined. */
  const read = (sim: SimApiServer, opts: ListOptions, ns = NS) => sim.requests.list("configmaps", ns, opts, {});

  const OPTIONS: Array<{ what: string; opts: ListOptions; from: "cache" | "storage" }> = [
    { what: "RV unset (consistent)", opts: {}, from: "cache" },
    { what: "RV unset with a limit", opts: { limit: 500 }, from: "cache" },
    { what: 'RV "0" with a limit (the reflector)', opts: { resourceVersion: "0", limit: 500 }, from: "cache" },
    { what: "RV=N", opts: { resourceVersion: "8" }, from: "cache" },
    { what: "NotOlderThan", opts: { resourceVersion: "5", resourceVersionMatch: "NotOlderThan" }, from: "cache" },
    { what: "Exact at an older N", opts: { resourceVersion: "7", resourceVersionMatch: "Exact" }, from: "storage" },
    { what: "legacy exact (RV=N + limit)", opts: { resourceVersion: "7", limit: 10 }, from: "storage" },
  ];
  it.each(OPTIONS)("$what: one key examined, from the $from, the same answer as the scan", async (c) => {
    const { sim } = await withHistory();
    for (const name of ["a", "b", "f", "zz"]) {
      const single = await read(sim, one(name, c.opts));
      const scan = await read(sim, c.opts);
      expect(single.scanned).toBe(1);
      expect(scan.scanned).toBeGreaterThan(1);
      expect(single.servedFrom).toBe(c.from);
      // Same items and RV as the namespace scan filtered by name; at most one item: no continue, no count.
      expect(single.object.metadata).toEqual({ resourceVersion: scan.object.metadata.resourceVersion });
      expect(single.object.items).toEqual(scan.object.items.filter((o) => o.metadata?.name === name));
    }
  });

  it("an exact read by key is storage's at N (upstream delegates non-recursive exact reads): 410 below compaction, 504 beyond", async () => {
    const { sim } = await withHistory();
    const at7 = await list(sim, one("a", { resourceVersion: "7", resourceVersionMatch: "Exact" }));
    expect([at7.servedFrom, items(at7.value)]).toEqual(["storage", ["a@2=v1"]]);
    sim.faults.compact(9);
    expect(await list(sim, one("a", { resourceVersion: "7", resourceVersionMatch: "Exact" }))).toEqual({
      status: LIST_TOO_OLD,
      servedFrom: "storage",
      code: 410,
    });
    expect(await list(sim, one("a", { resourceVersion: "99", limit: 1 }))).toEqual({
      status: tooLarge(99, 11),
      servedFrom: "storage",
      code: 504,
    });
  });

  it("freshness: RV=N waits for the cache by key as the scan does; a consistent read sees the newest write", async () => {
    const { sim, clock } = await setup({ cacheLagMs: 1000 });
    await sim.update("configmaps", NS, "c", cm("c", "v2")); // RV 8, the cache sees it 1 s later
    const p = pending(list(sim, one("c", { resourceVersion: "8" })));
    await clock.step(999);
    expect(p.done).toBe(false);
    await clock.step(1);
    expect([p.value?.servedFrom, items(p.value?.value)]).toEqual(["cache", ["c@8=v2"]]);
    await sim.update("configmaps", NS, "c", cm("c", "v3")); // RV 9
    const q = pending(list(sim, one("c")));
    await clock.step(1000);
    expect([q.value?.servedFrom, q.value?.value?.metadata.resourceVersion, items(q.value?.value)]).toEqual([
      "cache",
      "9",
      ["c@9=v3"],
    ]);
  });

  it("other selectors still filter the one object; metadata.name=x with != or across namespaces scans", async () => {
    const { sim } = await setup();
    await sim.update("configmaps", NS, "a", cm("a", "v1", { app: "web" }));
    const labelled = await read(sim, { ...one("a"), labelSelector: "app=web" });
    const otherLabel = await read(sim, { ...one("a"), labelSelector: "app=db" });
    const withNs = await read(sim, { fieldSelector: `metadata.name=a,metadata.namespace=${NS}` });
    expect([labelled.scanned, namesOf(labelled.object)]).toEqual([1, ["a"]]);
    expect([otherLabel.scanned, namesOf(otherLabel.object)]).toEqual([1, []]);
    expect([withNs.scanned, namesOf(withNs.object)]).toEqual([1, ["a"]]);
    // Not a single key: a negated name, and a namespaced resource listed across namespaces (no key without one).
    const negated = await read(sim, { fieldSelector: "metadata.name!=a" });
    const everywhere = await read(sim, one("x"), "");
    expect([negated.scanned, namesOf(negated.object)]).toEqual([5, ["b", "c", "d", "e"]]);
    expect([everywhere.scanned, namesOf(everywhere.object)]).toEqual([6, ["x"]]);
  });

  it("a continuation is never a single-key read (MatchesSingle is false with a continue token)", async () => {
    const { sim } = await setup();
    const first = await read(sim, { limit: 2 });
    const next = await read(sim, { ...one("d"), limit: 2, continue: first.object.metadata.continue! });
    expect([(next.scanned ?? 0) > 1, namesOf(next.object)]).toEqual([true, ["d"]]);
  });

  it("a cluster-scoped resource is read by key from every namespace-less list", async () => {
    const { sim } = await setup();
    for (const n of ["n1", "n2", "n3"]) await sim.create("nodes", "", { metadata: { name: n } });
    const r = await sim.requests.list("nodes", "", { fieldSelector: "metadata.name=n2" }, {});
    expect([r.scanned, r.object.items.map((o) => o.metadata?.name)]).toEqual([1, ["n2"]]);
  });

  it("while the cache re-initializes: 429 (a field selector is never delegated to storage); Exact goes to storage", async () => {
    const { sim } = await setup();
    sim.faults.reinitializeCache("configmaps", 60_000);
    expect((await list(sim, one("a", { limit: 10 }))).code).toBe(429);
    expect((await list(sim, one("a", { resourceVersion: "0" }))).code).toBe(429);
    const exact = await list(sim, one("a", { resourceVersion: "3", resourceVersionMatch: "Exact" }));
    expect([exact.servedFrom, items(exact.value)]).toEqual(["storage", ["a@2=v1"]]);
  });

  it("the cost model is charged for one key (the watch cache's CPU per object walked × 1)", async () => {
    const clock = new FakeClock();
    const sim = new SimApiServer({ clock, rand: seededRand(1), costModel: true, compactionIntervalMs: 0 });
    /** The cost model sleeps on the engine's clock: step it until the request is answered. */
    const answered = async <T>(p: Promise<T>): Promise<T> => {
      const state = pending(p);
      for (let i = 0; i < 1000 && !state.done; i++) await clock.step(1);
      return p;
    };
    for (const name of SEED) await answered(sim.create("configmaps", "default", cm(name, "v1")));
    const single = await answered(read(sim, one("c", { resourceVersion: "0" }), "default"));
    const scan = await answered(read(sim, { resourceVersion: "0" }, "default"));
    expect(single.outcome?.cost?.readCpuMs).toBeCloseTo(CACHE_MS_PER_OBJECT, 12);
    expect(scan.outcome?.cost?.readCpuMs).toBeCloseTo(5 * CACHE_MS_PER_OBJECT, 12);
  });
});

describe("cache not ready (re-initializing): 429 or storage", () => {
  async function notReady() {
    const env = await setup();
    env.sim.faults.reinitializeCache("configmaps", 60_000);
    return env;
  }
  const unready = (retryAfterSeconds: number) =>
    status(429, "TooManyRequests", "storage is (re)initializing", { retryAfterSeconds });

  it.each([
    { what: "L1 (no limit)", opts: {} },
    { what: "L3 without limit", opts: { resourceVersion: "0" } },
    { what: "L2 with a label selector", opts: { limit: 2, labelSelector: "app=x" } },
    {
      what: "L4 with a field selector",
      opts: {
        resourceVersion: "3",
        resourceVersionMatch: "NotOlderThan" as const,
        limit: 2,
        fieldSelector: "metadata.name=a",
      },
    },
  ])("429 with Retry-After for $what", async ({ opts }) => {
    const { sim } = await notReady();
    expect(await list(sim, opts)).toEqual({ status: unready(1), servedFrom: "", code: 429 });
  });

  it("Retry-After grows with the downtime: clamp(exp(0.06 × seconds), 1, 30), truncated", async () => {
    const { sim, clock } = await notReady();
    await clock.step(30_000);
    expect((await list(sim, {})).status).toEqual(unready(6)); // exp(1.8) = 6.05
  });

  it.each([
    { what: "L2", opts: { limit: 2 }, rv: "7" },
    {
      what: "L3 with limit (the reflector's first list): limit honoured",
      opts: { limit: 2, resourceVersion: "0" },
      rv: "7",
    },
    {
      what: "L4 NotOlderThan",
      opts: { limit: 2, resourceVersion: "4", resourceVersionMatch: "NotOlderThan" as const },
      rv: "7",
    },
    { what: "L5 legacy exact", opts: { limit: 2, resourceVersion: "5" }, rv: "5" },
  ])("paged list without selectors → storage: $what", async ({ opts, rv }) => {
    const { sim } = await notReady();
    const r = await list(sim, opts);
    expect([r.servedFrom, namesOf(r.value), r.value?.metadata.resourceVersion]).toEqual(["storage", ["a", "b"], rv]);
    expect(r.value?.metadata.continue).toBe(encodeContinue("ns/b", "ns/", Number(rv)));
  });

  it("storage answers an RV in its future with 504 without Retry-After", async () => {
    const { sim } = await notReady();
    const r = await list(sim, { limit: 2, resourceVersion: "50", resourceVersionMatch: "NotOlderThan" });
    expect([r.status, r.servedFrom]).toEqual([tooLarge(50, 7), "storage"]);
    const g = await get(sim, "a", "50");
    expect([g.status, g.servedFrom]).toEqual([tooLarge(50, 7), "storage"]);
  });

  it("GET with any RV → storage", async () => {
    const { sim } = await notReady();
    for (const rv of [undefined, "0", "3"]) expect((await get(sim, "a", rv)).servedFrom).toBe("storage");
  });

  it("back to the cache once re-initialized", async () => {
    const { sim, clock } = await notReady();
    await clock.step(60_000);
    const r = await list(sim, {});
    expect([r.servedFrom, r.value?.metadata.resourceVersion]).toEqual(["cache", "7"]);
  });
});

describe("list wire format (§7.2)", () => {
  it("built-in lists: Kind + List, items without kind/apiVersion, items always an array", async () => {
    const { sim } = await setup();
    const l = (await list(sim, {})).value!;
    expect([l.kind, l.apiVersion]).toEqual(["ConfigMapList", "v1"]);
    for (const o of l.items) expect([o.kind, o.apiVersion]).toEqual([undefined, undefined]);
    const empty = (await list(sim, {}, "nothing-here")).value!;
    expect(empty.items).toEqual([]);
  });

  it("custom resources keep kind/apiVersion on items", async () => {
    const { sim } = await setup();
    sim.register(WIDGETS);
    await sim.create("widgets.example.com", NS, { metadata: { name: "w" } });
    const l = await sim.list("widgets.example.com", NS);
    expect([l.kind, l.apiVersion, l.items[0]?.kind, l.items[0]?.apiVersion]).toEqual([
      "WidgetList",
      "example.com/v1",
      "Widget",
      "example.com/v1",
    ]);
  });
});

describe("§2 validation (422 matrix and 400s)", () => {
  it.each(VALIDATION_CASES)("$what", async ({ watch, watchList, options, status: want }) => {
    const { sim } = await setup({ ...(watchList !== undefined && { watchList }) });
    const r = await served<unknown>(sim, () =>
      watch ? sim.watch("configmaps", NS, options) : sim.list("configmaps", NS, options),
    );
    expect(r).toEqual({ status: want, servedFrom: "", code: want.code });
  });
});

describe("§2 order of checks", () => {
  it.each([false, true])(
    "a bad selector is a 400 before a 422-invalid option is looked at (watch=%s)",
    async (watch) => {
      const { sim } = await setup();
      // resourceVersionMatch without resourceVersion alone would be a 422; the selector fails to decode first.
      const options = { labelSelector: "a in (b", resourceVersionMatch: "NotOlderThan" as const };
      const r = await served<unknown>(sim, () =>
        watch ? sim.watch("configmaps", NS, options) : sim.list("configmaps", NS, options),
      );
      expect([r.code, (r.status as { reason?: string } | undefined)?.reason]).toEqual([400, "BadRequest"]);
    },
  );
});

describe("stop()", () => {
  it("a read waiting for the cache fails with 503 instead of hanging, and no timer is left behind", async () => {
    const { clock, sim } = await setup({ cacheLagMs: 5000 });
    await sim.create("configmaps", NS, cm("late", "v1")); // on its way to the cache for 5 s
    const rv = String(sim.currentResourceVersion);
    const waiting = sim.list("configmaps", NS, { resourceVersion: rv, resourceVersionMatch: "NotOlderThan" });
    const outcome = waiting.then(
      () => "resolved",
      (err: unknown) => (err as { code?: number }).code,
    );
    await clock.step(100);
    sim.stop();
    expect(await outcome).toBe(503);
    expect(clock.pendingTimers()).toBe(0);
  });
});
