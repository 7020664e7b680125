import type { KubeObject, Status } from "@informer-ts/apimachinery";
import type { ResourceDescriptor } from "@informer-ts/client";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { InMemoryMetrics, silentLogger } from "@informer-ts/instrumentation";
import { afterEach, describe, expect, it } from "vitest";
import { FakeObjectClient } from "../fake-object-client.test-util.js";
import type { ObjectClient } from "../object-client.js";
import { type LeaderElectionEvent, LeaderElector, validateLeaderElectionConfig } from "./leader-election.js";
import {
  formatMicroTime,
  LeaseLock,
  leaderElectionRecordToLeaseSpec,
  leaseSpecToLeaderElectionRecord,
  leasesResource,
} from "./lease-lock.js";

/** One candidate's view of the shared store; `partitioned` makes every request hang until its signal aborts. */
class CandidateClient implements ObjectClient {
  partitioned = false;
  constructor(private readonly store: FakeObjectClient) {}
  private async gate(signal?: AbortSignal): Promise<void> {
    if (!this.partitioned) return;
    await new Promise<void>((_, reject) => {
      if (signal?.aborted) reject(signal.reason);
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
  }
  async get(r: ResourceDescriptor, n: string, o?: { namespace?: string }, s?: AbortSignal): Promise<KubeObject> {
    await this.gate(s);
    return this.store.get(r, n, o);
  }
  async create(
    r: ResourceDescriptor,
    obj: KubeObject,
    o?: { namespace?: string },
    s?: AbortSignal,
  ): Promise<KubeObject> {
    await this.gate(s);
    return this.store.create(r, obj, o);
  }
  async update(
    r: ResourceDescriptor,
    obj: KubeObject,
    o?: { namespace?: string },
    s?: AbortSignal,
  ): Promise<KubeObject> {
    await this.gate(s);
    return this.store.update(r, obj, o);
  }
  async patch(
    r: ResourceDescriptor,
    n: string,
    p: unknown,
    o?: { namespace?: string },
    s?: AbortSignal,
  ): Promise<KubeObject> {
    await this.gate(s);
    return this.store.patch(r, n, p, o);
  }
  async delete(
    r: ResourceDescriptor,
    n: string,
    o?: { namespace?: string },
    s?: AbortSignal,
  ): Promise<KubeObject | Status> {
    await this.gate(s);
    return this.store.delete(r, n, o);
  }
}

interface Candidate {
  id: string;
  elector: LeaderElector;
  client: CandidateClient;
  ac: AbortController;
  run: Promise<void>;
  events: LeaderElectionEvent[];
  leading: { from: number; to?: number }[];
  newLeaders: string[];
  stopped: number;
  signal?: AbortSignal;
}

const running: Candidate[] = [];
let clock: FakeClock;
afterEach(async () => {
  for (const c of running.splice(0)) c.ac.abort();
  await clock?.step(60_000);
});

function candidate(
  store: FakeObjectClient,
  id: string,
  opts: { releaseOnCancel?: boolean; metrics?: InMemoryMetrics; seed?: number } = {},
): Candidate {
  const client = new CandidateClient(store);
  const c = {
    id,
    client,
    ac: new AbortController(),
    events: [],
    leading: [],
    newLeaders: [],
    stopped: 0,
  } as unknown as Candidate;
  c.elector = new LeaderElector({
    lock: new LeaseLock({ namespace: "kube-system", name: "ctrl", identity: id, client }),
    clock,
    logger: silentLogger, // no log assertions here (default-logs.test.ts checks the lines)
    rand: seededRand(opts.seed ?? id.length),
    ...(opts.releaseOnCancel !== undefined && { releaseOnCancel: opts.releaseOnCancel }),
    ...(opts.metrics !== undefined && { metrics: opts.metrics }),
    name: "ctrl",
    callbacks: {
      onStartedLeading: (signal) => {
        c.signal = signal;
        const interval: { from: number; to?: number } = { from: clock.now() };
        c.leading.push(interval);
        signal.addEventListener("abort", () => {
          interval.to = clock.now();
        });
      },
      onStoppedLeading: () => {
        c.stopped++;
      },
      onNewLeader: (l) => {
        c.newLeaders.push(l);
      },
    },
  });
  c.elector.events$.subscribe((e) => c.events.push(e));
  c.run = c.elector.run(c.ac.signal);
  running.push(c);
  return c;
}

async function turns(n = 20): Promise<void> {
  for (let i = 0; i < n; i++) await settle();
}

function leaseSpec(store: FakeObjectClient): Record<string, unknown> {
  return store.objects.get("leases/kube-system/ctrl")?.spec as Record<string, unknown>;
}

async function seedLease(store: FakeObjectClient, spec: Record<string, unknown> | undefined): Promise<void> {
  await store.create(leasesResource, { metadata: { name: "ctrl", namespace: "kube-system" }, ...(spec && { spec }) });
}

describe("tryAcquireOrRenew (client-go leaderelection_test.go cases)", () => {
  it("acquire from no object: get 404, create", async () => {
    clock = new FakeClock(0);
    const store = new FakeObjectClient();
    const metrics = new InMemoryMetrics();
    const c = candidate(store, "baz", { metrics });
    await turns();
    expect(metrics.value("leader_election_master_status", { name: "ctrl" })).toBe(1);
    // Acquire, then renew at once on the fast path (wait.Until runs its function immediately).
    expect(store.requests.map((r) => r.verb)).toEqual(["get", "create", "update"]);
    expect(c.elector.isLeader()).toBe(true);
    expect(c.leading).toHaveLength(1);
    expect(c.newLeaders).toEqual(["baz"]);
    expect(leaseSpec(store)).toEqual({
      holderIdentity: "baz",
      leaseDurationSeconds: 15,
      acquireTime: "1970-01-01T00:00:00.000000Z",
      renewTime: "1970-01-01T00:00:00.000000Z",
      leaseTransitions: 0,
    });
    c.ac.abort();
    await c.run;
    expect(metrics.value("leader_election_master_status", { name: "ctrl" })).toBe(0);
    expect(c.stopped).toBe(1);
    expect(c.signal?.aborted).toBe(true);
  });

  it("acquire from object without a spec: get, update, one transition", async () => {
    clock = new FakeClock(0);
    const store = new FakeObjectClient();
    await seedLease(store, undefined);
    const c = candidate(store, "baz");
    await turns();
    expect(store.requests.slice(1).map((r) => r.verb)).toEqual(["get", "update", "update"]);
    expect(c.elector.isLeader()).toBe(true);
    expect(leaseSpec(store)).toMatchObject({ holderIdentity: "baz", leaseTransitions: 1 });
  });

  it("acquire from a led object with leaseDurationSeconds 3: refused, then taken after 3 s of observation", async () => {
    clock = new FakeClock(0);
    const store = new FakeObjectClient();
    await seedLease(store, { holderIdentity: "bing", leaseDurationSeconds: 3 });
    const c = candidate(store, "baz");
    await turns();
    expect(c.elector.isLeader()).toBe(false);
    expect(c.elector.getLeader()).toBe("bing");
    expect(c.newLeaders).toEqual(["bing"]);
    await clock.step(2999);
    expect(c.elector.isLeader()).toBe(false);
    await clock.step(3000);
    await turns();
    expect(c.elector.isLeader()).toBe(true);
    expect(leaseSpec(store)).toMatchObject({ holderIdentity: "baz", leaseTransitions: 1 });
    expect(c.newLeaders).toEqual(["bing", "baz"]);
  });

  it("acquire from an unled object (holder empty) at once", async () => {
    clock = new FakeClock(0);
    const store = new FakeObjectClient();
    await seedLease(store, { holderIdentity: "", leaseDurationSeconds: 15, leaseTransitions: 4 });
    const c = candidate(store, "baz");
    await turns();
    expect(c.elector.isLeader()).toBe(true);
    expect(leaseSpec(store)).toMatchObject({ holderIdentity: "baz", leaseTransitions: 5 });
  });

  it("don't acquire from a led, acked object until its lease expired by our own observation (clock skew is irrelevant)", async () => {
    clock = new FakeClock(Date.UTC(2026, 0, 1));
    const store = new FakeObjectClient();
    // The holder's renewTime is far in the future (a skewed clock): only our observation time counts.
    await seedLease(store, {
      holderIdentity: "bing",
      leaseDurationSeconds: 15,
      renewTime: formatMicroTime(Date.UTC(2030, 0, 1)),
    });
    const c = candidate(store, "baz");
    const t0 = clock.now();
    await turns();
    await clock.step(14_000);
    expect(c.elector.isLeader()).toBe(false);
    await clock.step(6000);
    await turns();
    expect(c.elector.isLeader()).toBe(true);
    expect(c.leading[0]!.from - t0).toBeGreaterThanOrEqual(15_000);
  });

  it("renew an already acquired object: keeps acquireTime and transitions", async () => {
    clock = new FakeClock(5000);
    const store = new FakeObjectClient();
    await seedLease(store, {
      holderIdentity: "baz",
      leaseDurationSeconds: 15,
      acquireTime: formatMicroTime(1000),
      leaseTransitions: 2,
    });
    const c = candidate(store, "baz");
    await turns();
    expect(c.elector.isLeader()).toBe(true);
    expect(leaseSpec(store)).toMatchObject({
      holderIdentity: "baz",
      acquireTime: formatMicroTime(1000),
      leaseTransitions: 2,
    });
    // Renewals take the fast path: update only.
    const before = store.requests.length;
    await clock.step(2000);
    await turns();
    expect(store.requests.slice(before).map((r) => r.verb)).toEqual(["update"]);
    expect(leaseSpec(store)).toMatchObject({ renewTime: formatMicroTime(7000) });
  });

  it("LeaseSpec ↔ LeaderElectionRecord round trip", () => {
    const spec = {
      holderIdentity: "foo",
      leaseDurationSeconds: 10,
      acquireTime: formatMicroTime(1_700_000_000_123),
      renewTime: formatMicroTime(1_700_000_001_456),
      leaseTransitions: 1,
    };
    const record = leaseSpecToLeaderElectionRecord(spec);
    expect(leaderElectionRecordToLeaseSpec(record)).toEqual(spec);
    expect(leaseSpecToLeaderElectionRecord(leaderElectionRecordToLeaseSpec(record))).toEqual(record);
  });
});

describe("config validation (NewLeaderElector)", () => {
  it("rejects bad durations, a missing identity or callbacks with client-go's messages", () => {
    const store = new FakeObjectClient();
    const lock = (identity: string) => new LeaseLock({ namespace: "ns", name: "l", identity, client: store });
    const callbacks = { onStartedLeading() {}, onStoppedLeading() {} };
    const v = (c: object) => () => validateLeaderElectionConfig({ lock: lock("a"), callbacks, ...c });
    expect(v({})()).toEqual({ leaseDuration: 15_000, renewDeadline: 10_000, retryPeriod: 2_000 });
    expect(v({ leaseDuration: 0 })).toThrow("leaseDuration must be greater than zero (in ms), got 0");
    expect(v({ leaseDuration: 10_000 })).toThrow("leaseDuration must be greater than renewDeadline");
    expect(v({ renewDeadline: 2_400 })).toThrow("renewDeadline must be greater than retryPeriod*JitterFactor");
    expect(v({ retryPeriod: Number.NaN })).toThrow("retryPeriod must be greater than zero");
    expect(() => validateLeaderElectionConfig({ lock: lock(""), callbacks })).toThrow("Lock identity is empty");
    expect(() =>
      validateLeaderElectionConfig({ lock: lock("a"), callbacks: { onStartedLeading() {} } as never }),
    ).toThrow("OnStoppedLeading callback must not be nil");
  });
});

describe("bad Leases are clear errors; the process and the election go on", () => {
  it("a non-string holder identity is an InvalidLeaseError event; the candidate does not take the lease", async () => {
    clock = new FakeClock(0);
    const store = new FakeObjectClient();
    await seedLease(store, { holderIdentity: 42, leaseDurationSeconds: 15 });
    const c = candidate(store, "baz");
    await turns();
    await clock.step(30_000);
    expect(c.elector.isLeader()).toBe(false);
    const err = c.events.find((e) => e.type === "error");
    expect((err as { error: Error }).error.message).toBe(
      "lease kube-system/ctrl: spec.holderIdentity must be a string, got number",
    );
    expect(c.elector.status().lastError).toEqual({
      op: "get",
      message: "lease kube-system/ctrl: spec.holderIdentity must be a string, got number",
    });
    // Repaired by an operator: the next attempt acquires.
    store.touch(leasesResource, "kube-system", "ctrl", (o) => {
      o.spec = { holderIdentity: "", leaseDurationSeconds: 15 };
    });
    await clock.step(5000);
    await turns();
    expect(c.elector.isLeader()).toBe(true);
  });

  it("a garbage (but string) holder identity is just another holder; leaseDurationSeconds 0 is reported and treated as expired", async () => {
    clock = new FakeClock(0);
    const store = new FakeObjectClient();
    await seedLease(store, { holderIdentity: "\u0000💥".repeat(100), leaseDurationSeconds: 0 });
    const c = candidate(store, "baz");
    await turns();
    expect(c.elector.isLeader()).toBe(true);
    const err = c.events.find((e) => e.type === "error") as { error: Error };
    expect(err.error.message).toMatch(
      /^lease kube-system\/ctrl: spec.leaseDurationSeconds is 0 \(held by ".*"\): treated as expired$/,
    );
  });
});

describe("failover among candidates in virtual time", () => {
  it("a partitioned leader stops leading before any other candidate starts; failover within lease + retry", async () => {
    clock = new FakeClock(0);
    const store = new FakeObjectClient();
    const cs = ["a", "b", "c"].map((id, i) => candidate(store, id, { seed: i + 1 }));
    await turns();
    await clock.step(10_000);
    const leaders = cs.filter((c) => c.elector.isLeader());
    expect(leaders).toHaveLength(1);
    const leader = leaders[0]!;
    leader.client.partitioned = true;
    const partitionedAt = clock.now();
    await clock.step(40_000);
    await turns();
    // The old leader stopped: its signal aborted, run resolved, onStoppedLeading called.
    expect(leader.signal?.aborted).toBe(true);
    await leader.run;
    expect(leader.stopped).toBe(1);
    expect(leader.events.some((e) => e.type === "renewFailed")).toBe(true);
    const next = cs.filter((c) => c !== leader && c.leading.length > 0);
    expect(next).toHaveLength(1);
    const stoppedAt = leader.leading[0]!.to!;
    const startedAt = next[0]!.leading[0]!.from;
    expect(stoppedAt).toBeLessThan(startedAt); // no overlap of leading intervals
    expect(stoppedAt - partitionedAt).toBeLessThanOrEqual(10_000 + 2_000);
    expect(startedAt - partitionedAt).toBeLessThanOrEqual(15_000 + 2_000 * (1 + 1.2));
  });

  it("release on cancel hands the lease over at the next retry, well before the lease would expire", async () => {
    clock = new FakeClock(0);
    const store = new FakeObjectClient();
    const a = candidate(store, "a", { releaseOnCancel: true });
    await turns();
    const b = candidate(store, "b");
    await turns();
    expect(a.elector.isLeader()).toBe(true);
    await clock.step(3000);
    a.ac.abort();
    const cancelledAt = clock.now();
    await turns();
    await a.run;
    expect(leaseSpec(store)).toMatchObject({ holderIdentity: "", leaseDurationSeconds: 1 });
    expect(a.events.some((e) => e.type === "released")).toBe(true);
    await clock.step(5000);
    await turns();
    expect(b.elector.isLeader()).toBe(true);
    expect(b.leading[0]!.from - cancelledAt).toBeLessThanOrEqual(2000 * 2.2);
  });

  it("two candidates racing on the same resourceVersion: the 409 loser does not lead", async () => {
    clock = new FakeClock(0);
    const store = new FakeObjectClient();
    await seedLease(store, { holderIdentity: "", leaseDurationSeconds: 15 });
    const a = candidate(store, "a");
    const b = candidate(store, "b");
    await turns();
    const leaders = [a, b].filter((c) => c.elector.isLeader());
    expect(leaders).toHaveLength(1);
    const loser = a === leaders[0] ? b : a;
    const conflict = loser.events.find((e) => e.type === "error") as { op: string; error: { code?: number } };
    expect(conflict.op).toBe("update");
    expect((conflict.error as { status?: { code?: number } }).status?.code ?? conflict.error.code).toBe(409);
    // Both updated from the same resourceVersion; the winner then renewed.
    expect(store.requests.filter((r) => r.verb === "update")).toHaveLength(3);
    expect(loser.leading).toHaveLength(0);
  });
});
