// Leader fencing in virtual time: a leader paused (SIGSTOP) for 27 s while another replica takes the lease over, then
// resumed with every timer overdue (FakeClock.goStep: the time jumps first, then the due timers fire in order, as Node
// runs them after SIGCONT). With fencing it does no reconcile after its lease may have expired by its own clock; without
// (client-go's behaviour, the default) it goes on reconciling until the renewal it starts on resume gives up.
import { FakeClock, settle } from "@informer-ts/clock";
import { silentLogger } from "@informer-ts/instrumentation";
import { describe, expect, it } from "vitest";
import { newControllerManagedBy } from "./builder.js";
import { fakeSources, obj, parents } from "./controller.test-util.js";
import { FakeObjectClient } from "./fake-object-client.test-util.js";
import { leasesResource } from "./leaderelection/lease-lock.js";
import { LeaderElectionLostError, Manager } from "./manager.js";

async function turns(n = 30): Promise<void> {
  for (let i = 0; i < n; i++) await settle();
}

async function pausedLeader(fencing: boolean) {
  const clock = new FakeClock(0);
  const sources = fakeSources(clock);
  const store = new FakeObjectClient();
  const m = new Manager({
    listerWatcherFor: (r) => sources.listerWatcherFor(r),
    clock,
    client: store,
    logger: silentLogger,
    leaderElection: { namespace: "kube-system", name: "parents", identity: "a", fencing },
  });
  const reconciledAt: number[] = [];
  newControllerManagedBy(m)
    .for(parents)
    .complete(() => {
      reconciledAt.push(clock.now());
      return { requeueAfter: 1000 };
    });
  sources.source(parents).add(obj("p1"));
  const run = m.run(new AbortController().signal).then(
    () => undefined,
    (e: unknown) => e,
  );
  await turns();
  for (let i = 0; i < 6; i++) {
    await clock.step(500);
    await turns();
  }
  expect(m.elector?.isLeader()).toBe(true);
  expect(reconciledAt.length).toBeGreaterThan(0);
  // SIGSTOP: nothing of this process runs for 27 s; meanwhile replica "b" takes the lease over (as its lease expired).
  const pausedAt = clock.now();
  store.touch(leasesResource, "kube-system", "parents", (lease) => {
    const spec = lease.spec as Record<string, unknown>;
    spec.holderIdentity = "b";
    spec.renewTime = new Date(pausedAt + 26_000).toISOString().replace("Z", "000Z");
    spec.leaderTransitions = Number(spec.leaderTransitions ?? 0) + 1;
  });
  await clock.goStep(27_000);
  const resumedAt = clock.now();
  for (let i = 0; i < 30; i++) {
    await clock.step(500);
    await turns();
  }
  return { reconciledAt, pausedAt, resumedAt, err: await run, m };
}

describe("leader fencing", () => {
  it("fencing on: a leader resumed after its lease may have expired does no reconcile, and its run fails as lost", async () => {
    const { reconciledAt, resumedAt, err } = await pausedLeader(true);
    expect(reconciledAt.filter((t) => t >= resumedAt)).toEqual([]);
    expect(err).toBeInstanceOf(LeaderElectionLostError);
  });

  it("fencing off (client-go's behaviour): it reconciles again after the pause until its renewal gives up", async () => {
    const { reconciledAt, resumedAt, err } = await pausedLeader(false);
    const after = reconciledAt.filter((t) => t >= resumedAt);
    expect(after.length).toBeGreaterThan(1);
    // client-go's renew deadline (10 s) bounds it, counted from the renewal started on resume.
    expect(Math.max(...after) - resumedAt).toBeLessThanOrEqual(10_000);
    expect(err).toBeInstanceOf(LeaderElectionLostError);
  });

  it("fence() is true without fencing and before leading", () => {
    const clock = new FakeClock(0);
    const m = new Manager({
      listerWatcherFor: (r) => fakeSources(clock).listerWatcherFor(r),
      clock,
      client: new FakeObjectClient(),
      logger: silentLogger,
      leaderElection: { namespace: "kube-system", name: "x", identity: "a", fencing: true },
    });
    expect(m.elector?.fence()).toBe(true);
    expect(m.admitReconcile()).toBe(true);
  });
});
