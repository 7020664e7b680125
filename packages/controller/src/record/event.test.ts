import { newAlreadyExists, newForbidden, newInternalError } from "@informer-ts/apimachinery";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { InMemoryMetrics, type Logger, newRuntimeLogger, silentLogger } from "@informer-ts/instrumentation";
import { describe, expect, it } from "vitest";
import { FakeObjectClient } from "../fake-object-client.test-util.js";
import { EventBroadcaster, type EventBroadcasterEvent, FakeRecorder, maxTriesPerEvent } from "./event.js";

const pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web-0", namespace: "prod", uid: "u1", resourceVersion: "7" },
};

async function turns(n = 20): Promise<void> {
  for (let i = 0; i < n; i++) await settle();
}

function setup(opts: { queueSize?: number; logger?: Logger } = {}) {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const client = new FakeObjectClient();
  const metrics = new InMemoryMetrics();
  const b = new EventBroadcaster({ client, clock, rand: seededRand(1), metrics, logger: silentLogger, ...opts });
  const seen: EventBroadcasterEvent[] = [];
  b.events$.subscribe((e) => seen.push(e));
  const ac = new AbortController();
  const run = b.run(ac.signal);
  const recorder = b.newRecorder({ component: "widget-controller" });
  return { clock, client, metrics, b, seen, ac, run, recorder };
}

describe("EventBroadcaster / EventRecorder", () => {
  it("writes a core/v1 Event about the object, in its namespace", async () => {
    const { client, recorder, ac, run } = setup();
    recorder.event(pod, "Normal", "Created", "created web-0");
    await turns();
    const [ev] = [...client.objects.values()];
    expect(ev).toMatchObject({
      metadata: { namespace: "prod" },
      involvedObject: {
        kind: "Pod",
        namespace: "prod",
        name: "web-0",
        uid: "u1",
        apiVersion: "v1",
        resourceVersion: "7",
      },
      reason: "Created",
      message: "created web-0",
      type: "Normal",
      count: 1,
      source: { component: "widget-controller" },
      firstTimestamp: "2026-01-01T00:00:00Z",
      lastTimestamp: "2026-01-01T00:00:00Z",
    });
    expect(ev!.metadata?.name).toMatch(/^web-0\.[0-9a-f]+$/);
    recorder.event({ kind: "Node", name: "n1" }, "Warning", "Down", "node down");
    await turns();
    expect([...client.objects.values()][1]).toMatchObject({ metadata: { namespace: "default" }, type: "Warning" });
    ac.abort();
    await run;
  });

  it("a repeated event patches the first one's count and lastTimestamp (strategic merge); a 404 falls back to create", async () => {
    const { client, clock, recorder, ac, run, seen } = setup();
    recorder.event(pod, "Normal", "Synced", "ok");
    await turns();
    await clock.step(5000);
    recorder.event(pod, "Normal", "Synced", "ok");
    await turns();
    expect(client.requests.map((r) => r.verb)).toEqual(["create", "patch"]);
    expect(client.requests[1]!.body).toEqual({ count: 2, lastTimestamp: "2026-01-01T00:00:05Z", message: "ok" });
    const [ev] = [...client.objects.values()];
    expect(ev).toMatchObject({
      count: 2,
      firstTimestamp: "2026-01-01T00:00:00Z",
      lastTimestamp: "2026-01-01T00:00:05Z",
    });
    // Someone deleted the Event: the next repeat is created again.
    client.objects.clear();
    recorder.event(pod, "Normal", "Synced", "ok");
    await turns();
    expect(client.requests.map((r) => r.verb)).toEqual(["create", "patch", "patch", "create"]);
    expect([...client.objects.values()][0]).toMatchObject({ count: 3 });
    expect(seen.filter((e) => e.type === "written").map((e) => (e as { patched: boolean }).patched)).toEqual([
      false,
      true,
      true,
    ]);
    ac.abort();
    await run;
  });

  it("an unsupported type or an object without a name is reported and not written", async () => {
    const { client, recorder, seen, ac, run } = setup();
    recorder.event(pod, "Info", "X", "y");
    recorder.event({ metadata: {} }, "Normal", "X", "y");
    await turns();
    expect(client.objects.size).toBe(0);
    expect(seen.filter((e) => e.type === "invalid").map((e) => (e as { message: string }).message)).toEqual([
      "Unsupported event type: 'Info'",
      "could not construct reference: the object has no name",
    ]);
    ac.abort();
    await run;
  });

  it("a full queue drops new events with a metric and never blocks the caller", async () => {
    const { client, recorder, metrics, b, seen, ac, run } = setup({ queueSize: 3 });
    let release!: () => void;
    client.fault = () =>
      new Promise<void>((r) => {
        release = r;
      });
    for (let i = 0; i < 10; i++) recorder.event(pod, "Normal", `R${i}`, "m"); // synchronous, returns at once
    await turns();
    // The queue took three while the writer was idle and seven were dropped; the writer now holds one (hung).
    expect(b.pending()).toBe(2);
    expect(metrics.value("event_recorder_dropped_total", { reason: "queue-full" })).toBe(7);
    expect(seen.filter((e) => e.type === "dropped")).toHaveLength(7);
    client.fault = undefined;
    release();
    await turns(50);
    expect(client.objects.size).toBe(3);
    ac.abort();
    await run;
  });

  it("a write failing without an answer is retried: first pause random in [0, 10 s), then 10 s, at most 12 tries", async () => {
    const { client, clock, recorder, seen, metrics, ac, run } = setup();
    const times: number[] = [];
    client.fault = () => {
      times.push(clock.now());
      throw new TypeError("fetch failed: connect ECONNREFUSED");
    };
    recorder.event(pod, "Warning", "Failed", "boom");
    await turns();
    await clock.step(200_000);
    expect(times).toHaveLength(maxTriesPerEvent);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(gaps[0]).toBeGreaterThanOrEqual(0);
    expect(gaps[0]).toBeLessThan(10_000);
    expect(gaps.slice(1).every((g) => g === 10_000)).toBe(true);
    const errs = seen.filter((e) => e.type === "writeError") as { final: boolean }[];
    expect(errs).toHaveLength(12);
    expect(errs.at(-1)!.final).toBe(true);
    expect(metrics.value("event_recorder_dropped_total", { reason: "retry-limit" })).toBe(1);
    ac.abort();
    await run;
  });

  // client-go's recordEvent: every *errors.StatusError is final ("Server rejected event (will not retry!)").
  it.each([
    ["403 Forbidden", () => newForbidden({ group: "", resource: "events" }, "x", "RBAC says no")],
    ["500 InternalError", () => newInternalError("etcd down")],
  ])(
    "TestEventf/recordEvent: a StatusError (%s) is final: one try, logged once, counted as rejected",
    async (_n, make) => {
      const lines: string[] = [];
      const logger = newRuntimeLogger({ sink: { write: (l) => lines.push(l) }, now: () => 0 });
      const { client, clock, recorder, seen, metrics, ac, run } = setup({ logger });
      client.fault = () => {
        throw make();
      };
      recorder.event(pod, "Warning", "Failed", "boom");
      await turns();
      await clock.step(200_000);
      expect(client.requests).toHaveLength(1);
      expect(seen.filter((e) => e.type === "writeError")).toMatchObject([{ final: true }]);
      expect(metrics.value("event_recorder_dropped_total", { reason: "rejected" })).toBe(1);
      const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({
        level: "error",
        logger: "events",
        msg: "Server rejected event (will not retry!)",
        namespace: "prod",
        object: "Pod prod/web-0",
        eventReason: "Failed",
        error: make().message,
        code: make().code,
      });
      ac.abort();
      await run;
    },
  );

  it("a refused Event logs nothing with the quiet logger (silentLogger), and is still counted", async () => {
    const { client, clock, recorder, metrics, ac, run } = setup({ logger: silentLogger });
    const writes: string[] = [];
    const orig = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => {
      writes.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      client.fault = () => {
        throw newForbidden({ group: "", resource: "events" }, "x", "no");
      };
      recorder.event(pod, "Warning", "Failed", "boom");
      await turns();
      await clock.step(20_000);
    } finally {
      process.stderr.write = orig;
    }
    expect(writes).toEqual([]);
    expect(metrics.value("event_recorder_dropped_total", { reason: "rejected" })).toBe(1);
    ac.abort();
    await run;
  });

  it("AlreadyExists is final (no retry); aborting run drops what is queued and resolves", async () => {
    const { client, clock, recorder, metrics, seen, ac, run } = setup();
    client.fault = (req) => {
      if (req.verb === "create") throw newAlreadyExists({ group: "", resource: "events" }, req.name);
    };
    recorder.event(pod, "Normal", "A", "m");
    await turns();
    await clock.step(60_000);
    expect(client.requests).toHaveLength(1);
    expect(seen.find((e) => e.type === "writeError")).toMatchObject({ final: true });
    let hang!: () => void;
    client.fault = () =>
      new Promise<void>((r) => {
        hang = r;
      });
    recorder.event(pod, "Normal", "B", "m");
    recorder.event(pod, "Normal", "C", "m");
    await turns();
    ac.abort();
    hang();
    await run;
    expect(metrics.value("event_recorder_dropped_total", { reason: "shutting-down" })).toBe(1);
    recorder.event(pod, "Normal", "D", "m");
    expect(metrics.value("event_recorder_dropped_total", { reason: "shutting-down" })).toBe(2);
  });

  it("FakeRecorder keeps type, reason and message", () => {
    const r = new FakeRecorder();
    r.event(pod, "Normal", "Created", "hello");
    r.annotatedEvent(pod, { a: "b" }, "Warning", "Oops", "bad");
    expect(r.events).toEqual(["Normal Created hello", "Warning Oops bad"]);
  });
});
