import { type KubeList, newNotFound } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { answeredBy } from "./cacher/cacher.js";
import { DEFAULT_COST_MODEL, requestCost } from "./filters/cost-model.js";
import { encodedListSize, encodedSize } from "./filters/encoded-size.js";
import { outcomeOfError, RequestModels, type RequestModelsDeps } from "./request-models.js";
import { BUILTIN_RESOURCES } from "./resources.js";

const CM = BUILTIN_RESOURCES.find((r) => r.resource === "configmaps")!;

function rig(overrides: Partial<RequestModelsDeps> = {}) {
  const clock = new FakeClock();
  const logs: string[] = [];
  let n = 0;
  const models = new RequestModels({
    clock,
    sleep: (ms, signal) => clock.sleep(ms, signal),
    log: (t) => logs.push(t),
    nextAuditID: () => `sim-${++n}`,
    traceRand: seededRand(1),
    costModel: DEFAULT_COST_MODEL,
    trace: { thresholdMs: 500 },
    stats: () => ({ objectCount: 20_000, averageObjectSizeBytes: 2_000 }),
    interestedWatchers: () => 0,
    measureBytes: () => false,
    ...overrides,
  });
  return { clock, logs, models };
}

function bigList(n: number): KubeList {
  const items = Array.from({ length: n }, (_, i) => ({
    metadata: { name: `cm-${i}`, namespace: "d" },
    data: { k: "v".repeat(400) },
  }));
  return { kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "5" }, items };
}

describe("RequestModels", () => {
  it("charges a storage list its modelled latency on the clock and writes kube-apiserver's trace", async () => {
    const { clock, logs, models } = rig({ trace: { thresholdMs: 100 } });
    const list = bigList(5_000);
    const start = clock.now();
    const p = models.serve(
      {
        verb: "list",
        resource: CM,
        namespace: "",
        name: "",
        options: { limit: 500, resourceVersion: "" },
        userAgent: "kubectl/v1.32",
      },
      start,
      () => ({ object: list, servedFrom: "storage" as const, scanned: 5_000 }),
    );
    await clock.runUntilIdle();
    const res = await p;
    const bytes = encodedListSize(list);
    const expected = requestCost({
      verb: "list",
      servedFrom: "storage",
      keysScanned: 5_000,
      bytesScanned: list.items.reduce((n, o) => n + encodedSize(o), 0),
      responseBytes: bytes,
      storagePages: 10,
    });
    expect(res.outcome.cost!.latencyMs).toBeCloseTo(expected.latencyMs, 6);
    // Clock times near 2026 in ms carry ~0.0002 ms of float resolution.
    expect(clock.now() - start).toBeCloseTo(res.outcome.cost!.latencyMs, 3);
    // 500 objects × the tracker's 2,000 B average = 1 MB (a consistent read counts as cache-served) → 10 seats.
    expect(res.outcome.cost!.seats.initialSeats).toBe(10);
    expect(res.outcome).toMatchObject({
      auditID: "sim-1",
      responseBytes: bytes,
      requestURI: "/api/v1/configmaps?limit=500",
    });
    expect(logs).toHaveLength(1);
    const lines = logs[0]!.split("\n");
    expect(lines[0]).toMatch(
      /^Trace\[\d+\]: "List" accept:unknown,audit-id:sim-1,client:unknown,protocol:in-process,resource:configmaps,scope:cluster,url:\/api\/v1\/configmaps,user-agent:kubectl\/v1.32,verb:LIST \(01-Jan-2026 00:00:00.000\) \(total time: \d+ms\):$/,
    );
    expect(lines.some((l) => /---"Listing from storage done" \d+ms/.test(l))).toBe(true);
    expect(lines.at(-1)).toMatch(/^Trace\[\d+\]: \[[\d.]+ms\] \[[\d.]+ms\] END$/);
  });

  it("writes no trace for a fast request and none for a watch", async () => {
    const { clock, logs, models } = rig();
    const p = models.serve(
      { verb: "get", resource: CM, namespace: "d", name: "a", userAgent: "kubelet" },
      clock.now(),
      () => ({
        object: { metadata: { name: "a" } },
        servedFrom: "storage" as const,
      }),
    );
    await clock.runUntilIdle();
    expect((await p).outcome.cost!.seats.initialSeats).toBe(1);
    const w = models.serve(
      { verb: "watch", resource: CM, namespace: "d", name: "", userAgent: "kubelet" },
      clock.now(),
      () => ({
        object: {},
        servedFrom: "cache" as const,
      }),
    );
    await clock.step(10_000);
    expect((await w).outcome.cost!.latencyMs).toBe(DEFAULT_COST_MODEL.requestOverheadMs);
    expect(logs).toEqual([]);
  });

  it("keeps a failed request's outcome for the accounting, cost included", async () => {
    const { clock, models } = rig({ trace: undefined });
    const err = answeredBy(newNotFound({ group: "", resource: "configmaps" }, "x"), "storage");
    const p = models.serve(
      { verb: "get", resource: CM, namespace: "d", name: "x", userAgent: "kubelet" },
      clock.now(),
      () => {
        throw err;
      },
    );
    const settled = p.catch((e: unknown) => e);
    await clock.runUntilIdle();
    expect(await settled).toBe(err);
    const o = outcomeOfError(err)!;
    expect(o.auditID).toBe("sim-1");
    expect(o.cost!.storageWaitMs).toBe(DEFAULT_COST_MODEL.storageRoundTripMs);
    expect(o.responseBytes).toBeGreaterThan(50);
  });

  it("rejects a bad trace threshold naming it", () => {
    expect(() => rig({ trace: { thresholdMs: -5 } })).toThrow(/thresholdMs must be a finite number ≥ 0, got -5/);
  });
});
