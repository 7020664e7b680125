// Order properties: not only the end state but the sequence a consumer sees is checked, whatever interleaving of
// writes and server faults happens (the steps of sim-steps.ts). Over the watcher() stream:
//   - per key, every object event carries a resourceVersion not older than the previous one for that key (a watch
//     event strictly newer), so a consumer never goes back in time, relists included;
//   - a delete is only ever for an object the stream has shown and not deleted since;
//   - the status never says synced before initDone was emitted;
//   - watcher().pipe(reflect(store)) converges to the server's list.
// Over a SharedIndexInformer's handler notifications:
//   - per key, notifications in resourceVersion order;
//   - update.old is the previous notification's new object;
//   - no update (and no delete) after a delete without an add between;
//   - the handler's hasSynced is never true before every object of the initial list was delivered to it.

import type { KubeObject } from "@informer-ts/apimachinery";
import {
  DeletedFinalStateUnknown,
  metaNamespaceKeyFunc,
  newSharedIndexInformer,
  newStore,
  type ReflectorEvent,
  reflect,
  silentLogger,
  type WatcherEvent,
  watcher,
} from "@informer-ts/cache";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { CONFIGMAP_TYPE, fixedRand, flush, scenarios } from "./sim-harness.js";
import { apply, step } from "./sim-steps.js";

const sc = scenarios();
afterEach(() => sc.stopAll());

const rvOf = (o: KubeObject): number => Number(o.metadata?.resourceVersion ?? Number.NaN);
const nameOf = (o: KubeObject): string => o.metadata?.name ?? "";

/** Checks the watcher() stream's order properties event by event; the first violation is kept. */
class WatcherOrderChecker {
  violation: string | undefined;
  initDoneSeen = false;
  private readonly lastRV = new Map<string, number>();
  private readonly present = new Set<string>();
  private listing: Set<string> | undefined;

  private fail(message: string): void {
    this.violation ??= message;
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
    const k = nameOf(e.object);
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

/** Checks a handler's notifications; the first violation is kept. */
class HandlerOrderChecker {
  violation: string | undefined;
  initialAdds = 0;
  /** The last object delivered per key (undefined after a delete). */
  private readonly last = new Map<string, KubeObject | undefined>();
  private readonly lastRV = new Map<string, number>();

  private fail(message: string): void {
    this.violation ??= message;
  }

  private inOrder(what: string, o: KubeObject): void {
    const k = nameOf(o);
    const prev = this.lastRV.get(k);
    const rv = rvOf(o);
    if (prev !== undefined && rv < prev) this.fail(`${what}(${k}@${rv}) after ${k}@${prev}: went back in time`);
    this.lastRV.set(k, Math.max(rv, prev ?? rv));
  }

  onAdd(o: KubeObject, isInInitialList: boolean): void {
    const k = nameOf(o);
    if (this.last.get(k) !== undefined) this.fail(`add(${k}) while ${k} is known (no delete before)`);
    if (isInInitialList) this.initialAdds++;
    this.inOrder("add", o);
    this.last.set(k, o);
  }

  onUpdate(old: KubeObject, o: KubeObject): void {
    const k = nameOf(o);
    const prev = this.last.get(k);
    if (prev === undefined) this.fail(`update(${k}@${rvOf(o)}) without an add since the last delete`);
    else if (prev.metadata?.resourceVersion !== old.metadata?.resourceVersion) {
      this.fail(
        `update(${k}): old is @${old.metadata?.resourceVersion}, the previous new was @${prev.metadata?.resourceVersion}`,
      );
    }
    this.inOrder("update", o);
    this.last.set(k, o);
  }

  onDelete(o: KubeObject | DeletedFinalStateUnknown<KubeObject>): void {
    const k = o instanceof DeletedFinalStateUnknown ? (o.key.split("/")[1] ?? "") : nameOf(o);
    if (this.last.get(k) === undefined) this.fail(`delete(${k}) of an object not added or already deleted`);
    if (!(o instanceof DeletedFinalStateUnknown)) this.inOrder("delete", o);
    this.last.set(k, undefined);
  }

  view(): string[] {
    return [...this.last.values()]
      .filter((o): o is KubeObject => o !== undefined)
      .map((o) => `${nameOf(o)}@${o.metadata?.resourceVersion}`)
      .sort();
  }
}

describe("order properties under random faults", () => {
  it("watcher(): per-key resourceVersion order, deletes only of shown objects, synced only after initDone; reflect(store) converges", async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(step, { maxLength: 25 }), async (useWatchList, steps) => {
        const s = sc.make({ noReflector: true });
        try {
          await s.seed(2, "seed");
          const check = new WatcherOrderChecker();
          let synced = false;
          const store = newStore<KubeObject>(metaNamespaceKeyFunc);
          const sub = watcher(s.lw, {
            clock: s.clock,
            rand: fixedRand(0),
            logger: silentLogger,
            useWatchList,
            expectedType: CONFIGMAP_TYPE,
            onStatus: (st) => {
              if (st.hasSynced && !check.initDoneSeen) check.violation ??= "status synced before initDone";
              synced ||= st.hasSynced;
            },
          })
            .pipe(reflect(store))
            .subscribe({
              next: (e) => check.onEvent(e),
              error: (err: unknown) => {
                check.violation ??= `stream errored: ${String(err)}`;
              },
            });
          s.onStop(() => sub.unsubscribe());
          await flush();
          for (const st of steps) {
            await apply(s, st);
            expect(check.violation).toBeUndefined();
          }
          s.sim.faults.clear();
          s.sim.setBookmarkMode("on"); // "off" leaves a watch-list waiting forever, as upstream (kubernetes#140890)
          await s.until(
            () => synced && JSON.stringify(s.stored(store)) === JSON.stringify(s.truth()),
            "convergence",
            15 * 60_000,
          );
          expect(check.violation).toBeUndefined();
          expect(s.stored(store)).toEqual(s.truth());
        } finally {
          await sc.stopAll();
        }
      }),
      { numRuns: 60 },
    );
  });

  it("SharedIndexInformer: per-key order, update.old is the previous new, no update after a delete, hasSynced only after the initial list", async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(step, { maxLength: 25 }), async (useWatchList, steps) => {
        const s = sc.make({ noReflector: true });
        try {
          await s.seed(3, "seed");
          const informer = newSharedIndexInformer<KubeObject>(s.lw, CONFIGMAP_TYPE, {
            clock: s.clock,
            rand: fixedRand(0),
            name: "order",
            reflector: { useWatchList, logger: silentLogger },
          });
          const check = new HandlerOrderChecker();
          let initialItems: number | undefined;
          const events = informer.reflectorEvents$.subscribe((e: ReflectorEvent) => {
            if (initialItems === undefined && (e.type === "list-done" || e.type === "watch-list-done")) {
              initialItems = e.items;
            }
          });
          const registration = informer.addEventHandler({
            onAdd: (o, isInInitialList) => check.onAdd(o, isInInitialList),
            onUpdate: (o, n) => check.onUpdate(o, n),
            onDelete: (o) => check.onDelete(o as KubeObject | DeletedFinalStateUnknown<KubeObject>),
          });
          const syncedTooEarly = () => {
            if (!registration.hasSynced()) return;
            if (initialItems === undefined || check.initialAdds < initialItems) {
              check.violation ??= `handler synced after ${check.initialAdds} of ${initialItems ?? "?"} initial adds`;
            }
          };
          const ac = new AbortController();
          const done = informer.run(ac.signal);
          s.onStop(async () => {
            ac.abort();
            await done;
            events.unsubscribe();
          });
          await flush();
          syncedTooEarly();
          for (const st of steps) {
            await apply(s, st);
            syncedTooEarly();
            expect(check.violation).toBeUndefined();
          }
          s.sim.faults.clear();
          s.sim.setBookmarkMode("on");
          await s.until(
            () => {
              syncedTooEarly();
              return registration.hasSynced() && JSON.stringify(check.view()) === JSON.stringify(s.truth());
            },
            "convergence",
            15 * 60_000,
          );
          expect(check.violation).toBeUndefined();
          expect(check.view()).toEqual(s.truth());
        } finally {
          await sc.stopAll();
        }
      }),
      { numRuns: 40 },
    );
  });
});
