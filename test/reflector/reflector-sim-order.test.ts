// Order properties, on the project's own kit (@informer-ts/testing): not only the end state but the sequence a
// consumer sees is checked, whatever interleaving of writes and server faults the kit generates. Over the watcher()
// stream (a subject of checkSubject):
//   - per key, every object event carries a resourceVersion not older than the previous one for that key (a watch
//     event strictly newer), so a consumer never goes back in time, relists included;
//   - a delete is only ever for an object the stream has shown and not deleted since;
//   - the status never says synced before initDone was emitted;
//   - watcher().pipe(reflect(store)) converges to the server's storage, and unsubscribing leaves nothing running.
// Over a SharedIndexInformer's handler notifications (recorded by the kit, which checks notificationsOrdered,
// handlerViewConverges and syncedHonest):
//   - per key, notifications in resourceVersion order; update.old is the previous notification's new object;
//   - no update (and no delete) after a delete without an add between;
//   - the handler's hasSynced is never true before every object of the initial list was delivered to it — checked by
//     the kit against the store at every quiescent point, and here as a count of `isInInitialList` adds against the
//     first LIST's (or watch-list's) item count.
//
// Case budget per CI run (fixed seeds; FC_SEED=<n> replays): 100 in-process here (60 + 40); docs/testing.md lists all.

import type { KubeObject } from "@informer-ts/apimachinery";
import {
  metaNamespaceKeyFunc,
  newSharedIndexInformer,
  newStore,
  type ReflectorEvent,
  reflect,
  silentLogger,
  type WatcherEvent,
  watcher,
} from "@informer-ts/cache";
import { seededRand } from "@informer-ts/clock";
import { checkSubject, type InvariantReport, type SubjectCase, type SubjectUnderTest } from "@informer-ts/testing";
import { describe, expect, it } from "vitest";
import { CONFIGMAP_TYPE, history, seedObjects } from "./kit-cases.js";

const rvOf = (o: KubeObject): number => Number(o.metadata?.resourceVersion ?? Number.NaN);
const keyOf = (o: KubeObject): string => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;

/** A list of violations as an invariant report (the first ten shown). */
const reportOf = (name: string, violations: readonly string[]): InvariantReport => ({
  name,
  ok: violations.length === 0,
  violations:
    violations.length > 10 ? [...violations.slice(0, 10), `… and ${violations.length - 10} more`] : violations,
});

/** Checks the watcher() stream's order properties event by event. */
class WatcherOrderChecker {
  readonly violations: string[] = [];
  initDoneSeen = false;
  private readonly lastRV = new Map<string, number>();
  private readonly present = new Set<string>();
  private listing: Set<string> | undefined;

  constructor(private readonly now: () => number) {}

  fail(message: string): void {
    this.violations.push(`@${this.now()} ${message}`);
  }

  onEvent(e: WatcherEvent<KubeObject>): void {
    switch (e.type) {
      case "init":
        this.listing = new Set();
        return;
      case "initDone":
        this.initDoneSeen = true;
        // The list replaces everything: what it did not contain is gone.
        this.present.clear();
        for (const k of this.listing ?? []) this.present.add(k);
        this.listing = undefined;
        return;
      case "bookmark":
        return;
    }
    const k = keyOf(e.object);
    const rv = rvOf(e.object);
    const prev = this.lastRV.get(k);
    if (e.type === "initApply") {
      if (this.listing === undefined) this.fail(`initApply(${k}) outside init … initDone`);
      this.listing?.add(k);
      if (prev !== undefined && rv < prev) this.fail(`initApply(${k}@${rv}) after ${k}@${prev}: went back in time`);
    } else {
      if (this.listing !== undefined) this.fail(`${e.type}(${k}) inside init … initDone`);
      if (prev !== undefined && rv <= prev) this.fail(`${e.type}(${k}@${rv}) after ${k}@${prev}: not newer`);
      if (e.type === "delete") {
        if (!this.present.has(k)) this.fail(`delete(${k}@${rv}) of an object not shown or already deleted`);
        this.present.delete(k);
      } else {
        this.present.add(k);
      }
    }
    this.lastRV.set(k, Math.max(rv, prev ?? rv));
  }
}

/** `watcher(lw).pipe(reflect(store))`, every event checked by {@link WatcherOrderChecker} and put in the timeline. */
function watcherStream(c: SubjectCase): SubjectUnderTest {
  const check = new WatcherOrderChecker(c.now);
  let synced = false;
  const store = newStore<KubeObject>(metaNamespaceKeyFunc);
  const sub = watcher(c.listerWatcher, {
    clock: c.cluster.clock,
    rand: seededRand(c.seed),
    logger: silentLogger,
    useWatchList: c.useWatchList,
    expectedType: CONFIGMAP_TYPE,
    onStatus: (st) => {
      if (st.hasSynced && !check.initDoneSeen) check.fail("status synced before initDone");
      synced ||= st.hasSynced;
    },
  })
    .pipe(reflect(store))
    .subscribe({
      next: (e) => {
        c.log(
          "notification",
          "object" in e ? `${e.type} ${keyOf(e.object)} rv=${e.object.metadata?.resourceVersion}` : e.type,
        );
        check.onEvent(e);
      },
      error: (err: unknown) => check.fail(`stream errored: ${err instanceof Error ? err.message : String(err)}`),
    });
  return {
    store,
    hasSynced: () => synced,
    invariants: () => [reportOf("watcherStreamOrdered", check.violations)],
    stop: () => sub.unsubscribe(),
  };
}

/**
 * A SharedIndexInformer whose notifications the kit records (order, view, syncedHonest); besides, a second handler
 * counts the adds flagged `isInInitialList`, and its registration must not say synced before it got as many as the
 * first LIST (or watch-list) delivered.
 */
function informerWithInitialCount(c: SubjectCase): SubjectUnderTest {
  const informer = newSharedIndexInformer<KubeObject>(c.listerWatcher, CONFIGMAP_TYPE, {
    clock: c.cluster.clock,
    rand: seededRand(c.seed),
    name: "order",
    logger: silentLogger,
    reflector: { useWatchList: c.useWatchList, logger: silentLogger },
  });
  c.recordNotifications(informer);
  let initialItems: number | undefined;
  const events = informer.reflectorEvents$.subscribe((e: ReflectorEvent) => {
    if (initialItems === undefined && (e.type === "list-done" || e.type === "watch-list-done")) initialItems = e.items;
  });
  let initialAdds = 0;
  const counting = informer.addEventHandler({
    onAdd: (_o, isInInitialList) => {
      if (isInInitialList) initialAdds++;
    },
  });
  const early: string[] = [];
  const observe = () => {
    if (!counting.hasSynced()) return;
    if (initialItems === undefined || initialAdds < initialItems) {
      early.push(`@${c.now()} handler synced after ${initialAdds} of ${initialItems ?? "?"} initial adds`);
    }
  };
  const running = informer.run(c.signal);
  return {
    store: informer.getStore(),
    hasSynced: () => informer.hasSynced() && counting.hasSynced(),
    observe,
    invariants: () => [reportOf("syncedAfterInitialAdds", early)],
    stop: async () => {
      await running;
      events.unsubscribe();
    },
  };
}

describe("order properties under generated histories and faults (@informer-ts/testing)", () => {
  it("watcher(): per-key resourceVersion order, deletes only of shown objects, synced only after initDone; reflect(store) converges: 60 generated cases in-process", async () => {
    const r = await checkSubject({
      name: "watcher",
      subject: watcherStream,
      prepare: seedObjects(2),
      history,
      numRuns: 60,
      seed: 201,
    });
    expect(r.numRuns).toBe(60);
  }, 300_000);

  it("SharedIndexInformer: per-key order, update.old is the previous new, no update after a delete, hasSynced only after the initial list: 40 generated cases in-process", async () => {
    const r = await checkSubject({
      name: "informer",
      subject: informerWithInitialCount,
      prepare: seedObjects(3),
      history,
      numRuns: 40,
      seed: 202,
    });
    expect(r.numRuns).toBe(40);
  }, 300_000);
});
