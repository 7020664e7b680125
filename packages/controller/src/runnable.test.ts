import { silentLogger } from "@informer-ts/cache";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { newControllerManagedBy } from "./builder.js";
import { children, fakeSources, obj, parents } from "./controller.test-util.js";
import { FakeObjectClient } from "./fake-object-client.test-util.js";
import { LeaderElectionLostError, Manager, type ManagerEvent, type ManagerOptions } from "./manager.js";
import { GracefulShutdownTimeoutError, needsLeaderElection, type Runnable, RunnableError } from "./runnable.js";

async function turns(n = 30): Promise<void> {
  for (let i = 0; i < n; i++) await settle();
}

function managerOn(clock: FakeClock, sources: ReturnType<typeof fakeSources>, extra: Partial<ManagerOptions> = {}) {
  const m = new Manager({
    quiet: true, // no log assertions here
    listerWatcherFor: (r) => sources.listerWatcherFor(r),
    clock,
    rand: seededRand(7),
    informerOptions: { reflector: { logger: silentLogger } },
    ...extra,
  });
  const events: ManagerEvent[] = [];
  m.events$.subscribe((e) => events.push(e));
  return { m, events };
}

/** A runnable that records its start and stop in `log` and runs until its signal aborts. */
function recorder(name: string, log: string[], needLeaderElection?: boolean): Runnable {
  return {
    name,
    ...(needLeaderElection !== undefined && { needLeaderElection: () => needLeaderElection }),
    run: (signal) =>
      new Promise<void>((resolve) => {
        log.push(`${name} started`);
        signal.addEventListener("abort", () => {
          log.push(`${name} stopping`);
          // Stops a few turns later, so the order of the stop is visible.
          void turns(3).then(() => {
            log.push(`${name} stopped`);
            resolve();
          });
        });
      }),
  };
}

/** Resolves to the run's error, or `undefined` when it resolved. */
const outcome = (run: Promise<void>): Promise<unknown> =>
  run.then(
    () => undefined,
    (err: unknown) => err,
  );

describe("Manager.add(runnable)", () => {
  it("needLeaderElection defaults to true, as upstream", () => {
    expect(needsLeaderElection({ run: () => {} })).toBe(true);
    expect(needsLeaderElection({ run: () => {}, needLeaderElection: () => true })).toBe(true);
    expect(needsLeaderElection({ run: () => {}, needLeaderElection: () => false })).toBe(false);
  });

  it("runs runnables after the caches synced and stops those without leader election before the leader-elected ones", async () => {
    const clock = new FakeClock(0);
    const sources = fakeSources(clock);
    const { m, events } = managerOn(clock, sources);
    const log: string[] = [];
    m.informerFor(parents);
    m.add(recorder("elected", log));
    m.add(recorder("everywhere", log, false));
    const ac = new AbortController();
    const run = m.run(ac.signal);
    await turns();
    await clock.step(100);
    await turns();
    expect(log).toEqual(["everywhere started", "elected started"]);
    expect(events.map((e) => e.type)).toEqual([
      "cachesSynced",
      "runnablesStarted",
      "controllersStarted",
      "runnablesStarted",
    ]);
    expect(events[1]).toEqual({ type: "runnablesStarted", names: ["everywhere"], leaderElection: false });
    expect(events[3]).toEqual({ type: "runnablesStarted", names: ["elected"], leaderElection: true });
    ac.abort();
    await turns();
    await run;
    expect(log.slice(2)).toEqual(["everywhere stopping", "everywhere stopped", "elected stopping", "elected stopped"]);
    expect(events.at(-1)).toEqual({ type: "stopped" });
  });

  it("a manager with runnables but no controllers runs until its signal aborts", async () => {
    const clock = new FakeClock(0);
    const sources = fakeSources(clock);
    const { m } = managerOn(clock, sources);
    let finished = false;
    m.add({ name: "one-shot", run: () => {} }); // done at once: that is fine
    const ac = new AbortController();
    const run = m.run(ac.signal).then(() => {
      finished = true;
    });
    await turns();
    await clock.step(60_000);
    await turns();
    expect(finished).toBe(false);
    ac.abort();
    await run;
    expect(finished).toBe(true);
  });

  it("with leader election: leader-elected runnables run only on the leader, the others on every replica", async () => {
    const clock = new FakeClock(0);
    const sources = fakeSources(clock);
    const store = new FakeObjectClient();
    const logs: Record<string, string[]> = { a: [], b: [] };
    const replicas = (["a", "b"] as const).map((id) => {
      const { m } = managerOn(clock, sources, {
        client: store,
        leaderElection: { namespace: "kube-system", name: "runnables", identity: id, releaseOnCancel: true },
      });
      m.add(recorder("elected", logs[id]!));
      m.add(recorder("everywhere", logs[id]!, false));
      const seen: string[] = [];
      newControllerManagedBy(m)
        .for(parents)
        .withOptions({ needLeaderElection: false })
        .complete((r) => {
          seen.push(r.name);
        });
      const ac = new AbortController();
      return { m, ac, seen, run: m.run(ac.signal) };
    });
    sources.source(parents).add(obj("p1"));
    await turns();
    await clock.step(5000);
    await turns();
    expect(replicas[0]!.m.elector?.isLeader()).toBe(true);
    expect(logs.a).toEqual(["everywhere started", "elected started"]);
    expect(logs.b).toEqual(["everywhere started"]);
    // A controller that needs no leader election reconciles on the standby too.
    expect(replicas[1]!.seen).toEqual(["p1"]);
    expect(replicas[0]!.seen).toEqual(["p1"]);
    // The leader leaves: the standby starts its leader-elected runnable.
    replicas[0]!.ac.abort();
    await clock.step(1000);
    await replicas[0]!.run;
    await clock.step(5000);
    await turns();
    expect(logs.b).toEqual(["everywhere started", "elected started"]);
    replicas[1]!.ac.abort();
    await clock.step(1000);
    await replicas[1]!.run;
  });

  it("a runnable that rejects or throws stops the manager: an error event, the others stopped, run rejects with RunnableError", async () => {
    for (const fail of ["reject", "throw"] as const) {
      const clock = new FakeClock(0);
      const sources = fakeSources(clock);
      const { m, events } = managerOn(clock, sources);
      const log: string[] = [];
      m.add(recorder("bystander", log));
      const boom = new Error("port in use");
      m.add({
        name: "server",
        needLeaderElection: () => false,
        run: (signal) => {
          if (fail === "throw") throw boom;
          return new Promise<void>((_, reject) => clock.afterFunc(1000, () => reject(boom))).finally(() => {
            expect(signal.aborted).toBe(false);
          });
        },
      });
      const run = outcome(m.run(new AbortController().signal));
      await turns();
      await clock.step(1000);
      await turns();
      const err = await run;
      expect(err).toBeInstanceOf(RunnableError);
      expect(err).toMatchObject({ runnable: "server", cause: boom, message: "runnable server failed: port in use" });
      expect(events).toContainEqual({ type: "error", source: "server", error: boom });
      expect(log.slice(-1)).toEqual(["bystander stopped"]);
      expect(m.notReadyReason()).toBe("manager is stopped");
    }
  });

  it("an error after the stop began is reported but does not fail the run (upstream only logs it)", async () => {
    const clock = new FakeClock(0);
    const sources = fakeSources(clock);
    const { m, events } = managerOn(clock, sources);
    const late = new Error("flush failed");
    m.add({
      name: "flusher",
      run: (signal) =>
        new Promise<void>((_, reject) => signal.addEventListener("abort", () => reject(late), { once: true })),
    });
    const ac = new AbortController();
    const run = m.run(ac.signal);
    await turns();
    await clock.step(100);
    await turns();
    ac.abort();
    await expect(run).resolves.toBeUndefined();
    expect(events).toContainEqual({ type: "error", source: "flusher", error: late });
  });

  it("gracefulShutdownTimeout: runnables still running at the deadline are named; everything else is released", async () => {
    const clock = new FakeClock(0);
    const sources = fakeSources(clock);
    const { m, events } = managerOn(clock, sources, { gracefulShutdownTimeout: 5000 });
    const log: string[] = [];
    m.add(recorder("polite", log, false));
    m.add(recorder("polite-elected", log));
    m.add({ name: "stubborn", run: () => new Promise<void>(() => {}) });
    m.add({ name: "stubborn-too", run: () => new Promise<void>(() => {}) });
    const ac = new AbortController();
    let settled = false;
    const run = outcome(m.run(ac.signal)).finally(() => {
      settled = true;
    });
    await turns();
    await clock.step(100);
    await turns();
    ac.abort();
    await clock.step(4999);
    await turns();
    expect(settled).toBe(false);
    await clock.step(1);
    const err = await run;
    expect(err).toBeInstanceOf(GracefulShutdownTimeoutError);
    expect((err as GracefulShutdownTimeoutError).runnables).toEqual(["stubborn", "stubborn-too"]);
    expect((err as Error).message).toBe(
      "failed waiting for all runnables to end within grace period of 5000 ms: still running: stubborn, stubborn-too",
    );
    expect(log).toContain("polite stopped");
    expect(log).toContain("polite-elected stopped");
    expect(events).toContainEqual({ type: "error", source: "manager", error: err });
    expect(events.at(-1)).toEqual({ type: "stopped" });
    expect([...m.factory.list().values()].every((i) => i.isStopped())).toBe(true);
  });

  it("counts controllers: one whose reconcile outlives the manager's grace period is named", async () => {
    const clock = new FakeClock(0);
    const sources = fakeSources(clock);
    const { m } = managerOn(clock, sources, { gracefulShutdownTimeout: 2000 });
    newControllerManagedBy(m)
      .for(parents)
      .withOptions({ gracefulShutdownTimeout: 10_000 })
      .complete(() => new Promise<void>(() => {})); // ignores its signal
    sources.source(parents).add(obj("p1"));
    const ac = new AbortController();
    const run = outcome(m.run(ac.signal));
    await turns();
    await clock.step(100);
    await turns();
    ac.abort();
    await clock.step(2000);
    const err = await run;
    expect(err).toBeInstanceOf(GracefulShutdownTimeoutError);
    expect((err as GracefulShutdownTimeoutError).runnables).toEqual(["parent"]);
  });

  it("gracefulShutdownTimeout 0 does not wait (and reports nothing); Infinity waits as long as it takes", async () => {
    const clock = new FakeClock(0);
    const sources = fakeSources(clock);
    const never = managerOn(clock, sources, { gracefulShutdownTimeout: 0 }).m;
    never.add({ name: "stubborn", run: () => new Promise<void>(() => {}) });
    const ac = new AbortController();
    const run = never.run(ac.signal);
    await turns();
    await clock.step(100);
    ac.abort();
    await expect(run).resolves.toBeUndefined();

    const patient = managerOn(clock, sources, { gracefulShutdownTimeout: Number.POSITIVE_INFINITY }).m;
    let release!: () => void;
    patient.add({ name: "slow", run: () => new Promise<void>((r) => (release = r)) });
    const ac2 = new AbortController();
    let settled = false;
    const run2 = patient.run(ac2.signal).then(() => {
      settled = true;
    });
    await turns();
    await clock.step(100);
    await turns();
    ac2.abort();
    await clock.step(3_600_000);
    await turns();
    expect(settled).toBe(false);
    release();
    await run2;
    expect(settled).toBe(true);
  });

  it("a leader that loses its lease stops its runnables and rejects with LeaderElectionLostError", async () => {
    const clock = new FakeClock(0);
    const sources = fakeSources(clock);
    const store = new FakeObjectClient();
    const { m } = managerOn(clock, sources, {
      client: store,
      leaderElection: { namespace: "kube-system", name: "runnables", identity: "a" },
    });
    const log: string[] = [];
    m.add(recorder("elected", log));
    m.add(recorder("everywhere", log, false));
    const run = outcome(m.run(new AbortController().signal));
    await turns();
    await clock.step(3000);
    await turns();
    expect(log).toEqual(["everywhere started", "elected started"]);
    store.fault = (req) => {
      if (req.resource === "leases") throw new Error("partitioned");
    };
    await clock.step(20_000);
    const err = await run;
    expect(err).toBeInstanceOf(LeaderElectionLostError);
    expect(log).toContain("elected stopped");
    expect(log).toContain("everywhere stopped");
  });

  it("refuses bad runnables, duplicate names and late adds, naming the problem", async () => {
    const clock = new FakeClock(0);
    const sources = fakeSources(clock);
    const { m } = managerOn(clock, sources);
    expect(() => m.add({} as Runnable)).toThrow("manager.add: a runnable is an object with a run(signal) method");
    expect(() => m.add({ name: "", run: () => {} })).toThrow("a runnable's name must be a non-empty string");
    expect(() => m.add({ run: () => {}, needLeaderElection: true } as unknown as Runnable)).toThrow(
      "has a needLeaderElection that is not a method",
    );
    m.add({ run: () => {} });
    expect(() => m.add({ name: "runnable-0", run: () => {} })).toThrow(
      "runnable with name runnable-0 already exists: runnable names must be unique",
    );
    expect(() =>
      newControllerManagedBy(m)
        .for(parents)
        .withOptions({ needLeaderElection: "no" as unknown as boolean })
        .complete(() => {}),
    ).toThrow("controller parent: needLeaderElection must be a boolean");
    const ac = new AbortController();
    const run = m.run(ac.signal);
    ac.abort();
    expect(() => m.add({ name: "late", run: () => {} })).toThrow("runnable late added after the manager stopped");
    await run;
    expect(() => m.add({ name: "later", run: () => {} })).toThrow("runnable later added after the manager stopped");
  });

  it("a runnable added while the manager runs starts at once (or with its group) and stops with the manager", async () => {
    const clock = new FakeClock(0);
    const sources = fakeSources(clock);
    const { m, events } = managerOn(clock, sources);
    m.informerFor(parents);
    const log: string[] = [];
    const ac = new AbortController();
    const run = m.run(ac.signal);
    m.add(recorder("before-sync", log, false)); // running, caches not synced yet: starts with its group
    expect(log).toEqual([]);
    await turns();
    await clock.step(100);
    await turns();
    expect(log).toEqual(["before-sync started"]);
    m.add(recorder("late", log));
    m.add(recorder("late-everywhere", log, false));
    expect(log).toEqual(["before-sync started", "late started", "late-everywhere started"]);
    expect(events.filter((e) => e.type === "runnablesStarted").map((e) => e.names)).toEqual([
      ["before-sync"],
      ["late"],
      ["late-everywhere"],
    ]);
    // A controller built now starts its informers and reconciles.
    const seen: string[] = [];
    sources.source(children).add(obj("c1"));
    newControllerManagedBy(m)
      .for(children)
      .complete((r) => {
        seen.push(r.name);
      });
    await turns();
    await clock.step(100);
    await turns();
    expect(seen).toEqual(["c1"]);
    ac.abort();
    await turns();
    await run;
    expect(log.filter((l) => l.endsWith("stopped")).sort()).toEqual([
      "before-sync stopped",
      "late stopped",
      "late-everywhere stopped",
    ]);
  });
});
