import { describe, expect, it } from "vitest";
import { costModelFor, DEFAULT_COST_MODEL, newCostModel, requestCost, seatSeconds } from "./cost-model.js";

describe("requestCost", () => {
  it("puts a kubelet's one-key etcd GET where write-up 000's httplog lines are (1.56–1.93 ms)", () => {
    const c = requestCost({
      verb: "get",
      servedFrom: "storage",
      keysScanned: 1,
      bytesScanned: 900,
      responseBytes: 900,
    });
    expect(c.latencyMs).toBeGreaterThan(1.56);
    expect(c.latencyMs).toBeLessThan(1.93);
    // apf_execution_time (the handler after APF admission) was 0.93–1.27 ms.
    expect(c.latencyMs - DEFAULT_COST_MODEL.requestOverheadMs).toBeGreaterThan(0.93);
    expect(c.latencyMs - DEFAULT_COST_MODEL.requestOverheadMs).toBeLessThan(1.27);
    expect(c.seats).toEqual({ initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });
    // The etcd round trip is a wait, not apiserver CPU.
    expect(c.cpuMs).toBeCloseTo(c.latencyMs - c.storageWaitMs, 9);
  });

  it("makes a full list from etcd cost what BenchmarkStore_GetList measured (~24 µs per small object)", () => {
    const c = requestCost({
      verb: "list",
      servedFrom: "storage",
      keysScanned: 10_000,
      bytesScanned: 10_000 * 1024,
      responseBytes: 0,
    });
    expect(c.readMs - DEFAULT_COST_MODEL.requestOverheadMs - c.storageWaitMs).toBeCloseTo(240, 6);
  });

  it("charges the same list far less from the watch cache, and encoding by the KiB", () => {
    const input = { verb: "list", keysScanned: 10_000, bytesScanned: 20_000_000, responseBytes: 20_000_000 } as const;
    const storage = requestCost({ ...input, servedFrom: "storage" });
    const cache = requestCost({ ...input, servedFrom: "cache" });
    expect(cache.cpuMs).toBeLessThan(storage.cpuMs / 3);
    expect(cache.encodeMs).toBe(storage.encodeMs);
    expect(cache.encodeMs).toBeCloseTo((20_000_000 / 1024) * 0.0043, 6);
    expect(cache.readMs).toBeCloseTo(DEFAULT_COST_MODEL.requestOverheadMs + 10_000 * 0.00037, 9);
  });

  it("pays one etcd round trip per page", () => {
    const one = requestCost({
      verb: "list",
      servedFrom: "storage",
      keysScanned: 500,
      bytesScanned: 0,
      responseBytes: 0,
    });
    const four = requestCost({
      verb: "list",
      servedFrom: "storage",
      keysScanned: 500,
      bytesScanned: 0,
      responseBytes: 0,
      storagePages: 4,
    });
    expect(four.latencyMs - one.latencyMs).toBeCloseTo(3 * DEFAULT_COST_MODEL.storageRoundTripMs, 9);
    expect(four.cpuMs).toBe(one.cpuMs);
  });

  it("gives lists APF seats from the list estimator and writes the watch fan-out", () => {
    const list = requestCost({
      verb: "list",
      servedFrom: "storage",
      keysScanned: 500,
      bytesScanned: 0,
      responseBytes: 0,
      listOptions: { limit: 500, resourceVersion: "", labelSelector: "app=x" },
      resourceStats: { objectCount: 50_000, averageObjectSizeBytes: 4_000 },
      matchesSingle: false,
    });
    // Consistent reads are served from the cache in v1.34, so the estimate is capped at 1 MB: 10 seats.
    expect(list.seats.initialSeats).toBe(10);
    const write = requestCost({
      verb: "update",
      servedFrom: "",
      keysScanned: 0,
      bytesScanned: 0,
      responseBytes: 0,
      interestedWatchers: 1000,
    });
    expect(write.seats).toEqual({ initialSeats: 1, finalSeats: 10, additionalLatencyMs: 50 });
    expect(write.storageWaitMs).toBe(DEFAULT_COST_MODEL.storageRoundTripMs + DEFAULT_COST_MODEL.storageWriteCommitMs);
    expect(seatSeconds(write)).toBeCloseTo((10 * write.latencyMs + 10 * 50) / 1000, 9);
  });

  it("names a bad input or setting", () => {
    expect(() =>
      requestCost({ verb: "get", servedFrom: "cache", keysScanned: -1, bytesScanned: 0, responseBytes: 0 }),
    ).toThrow(/keysScanned must be a finite number ≥ 0, got -1/);
    expect(() =>
      requestCost({ verb: "get", servedFrom: "cache", keysScanned: 1, bytesScanned: Number.NaN, responseBytes: 0 }),
    ).toThrow(/bytesScanned/);
    expect(() => newCostModel({ encodeMsPerKiB: -2 })).toThrow(/encodeMsPerKiB must be a finite number ≥ 0, got -2/);
    expect(() => newCostModel({ apf: { objectsPerSeat: 0 } })).toThrow(/objectsPerSeat must be > 0/);
    expect(newCostModel({ storageRoundTripMs: 3 }).storageRoundTripMs).toBe(3);
    expect(newCostModel({ apf: { maximumListSeats: 10 } }).apf.bytesPerSeat).toBe(100_000);
  });
});

describe("costModelFor", () => {
  const bigList = {
    verb: "list",
    servedFrom: "storage",
    keysScanned: 5000,
    bytesScanned: 0,
    responseBytes: 0,
    listOptions: { limit: 5000, resourceVersion: "" },
    resourceStats: { objectCount: 50_000, averageObjectSizeBytes: 4_000 },
  } as const;

  it("estimates seats as each release's APF did", () => {
    // 1.34: by bytes (5,000 × 4 KB = 20 MB; an RV-unset list is cache-served with ConsistentListFromCache: 1 MB → 10).
    expect(requestCost(bigList, costModelFor("1.34", true)).seats.initialSeats).toBe(10);
    // 1.28: RV unset goes to etcd; by count, 2 × 5,000 / 100 = 100, capped at 10.
    expect(requestCost(bigList, costModelFor("1.28", false)).seats.initialSeats).toBe(10);
    expect(costModelFor("1.28", false).apf.maximumListSeats).toBe(10);
    expect(costModelFor("1.34", true).apf.maximumListSeats).toBe(100);
    // 1.22: no work estimation yet: one seat, no fan-out seats for writes.
    expect(requestCost(bigList, costModelFor("1.22", false)).seats.initialSeats).toBe(1);
    const write = {
      verb: "update",
      servedFrom: "",
      keysScanned: 0,
      bytesScanned: 0,
      responseBytes: 0,
      interestedWatchers: 500,
    } as const;
    expect(requestCost(write, costModelFor("1.22", false)).seats.finalSeats).toBe(0);
    expect(requestCost(write, costModelFor("1.31", true)).seats.finalSeats).toBe(10);
  });

  it("names an unknown release", () => {
    expect(() => costModelFor("2.0", true)).toThrow(/unknown kubeVersion "2.0"/);
  });
});
