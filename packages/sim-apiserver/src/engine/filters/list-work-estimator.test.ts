import { describe, expect, it } from "vitest";
import {
  defaultWorkEstimatorConfig,
  type EstimatedListOptions,
  estimateListWork,
  estimateMutatingWork,
  shouldDelegateList,
  type WorkEstimatorConfig,
} from "./list-work-estimator.js";

// Rows of upstream's TestListWorkEstimator (list_work_estimator_test.go): total size, object count, limit, label
// selector, served from cache, single object → seats by object count, seats by object size (unclamped).
const ROWS: Array<[string, number, number, number, boolean, boolean, boolean, number, number]> = [
  ["100KB resource", 99999, 99, 0, false, false, false, 2, 1],
  ["100KB resource", 99999, 10, 0, false, false, false, 1, 1],
  ["100KB resource", 99999, 99, 0, false, true, false, 1, 1],
  ["1MB resource", 999999, 1000, 0, false, false, false, 20, 10],
  ["1MB resource", 999999, 1000, 100, false, false, false, 2, 1],
  ["1MB resource", 999999, 1000, 100, true, false, false, 11, 5],
  ["1MB resource", 999999, 1000, 0, false, true, false, 10, 10],
  ["1MB resource", 999999, 1000, 100, false, true, false, 10, 1],
  ["1MB resource", 999999, 99, 10, true, false, false, 2, 5],
  ["10MB resource", 9999999, 1000, 0, false, false, false, 20, 100],
  ["10MB resource", 9999999, 1000, 100, true, false, false, 11, 50],
  ["10MB resource", 9999999, 1000, 100, true, true, false, 10, 10],
  ["10MB resource", 9999999, 99, 10, false, false, false, 1, 11],
  ["1000MB resource", 999999999, 1000, 0, false, false, true, 1, 10],
  ["1000MB resource", 999999999, 1000, 0, false, true, true, 1, 10],
];

function unclamped(sizeBased: boolean): WorkEstimatorConfig {
  // Served-from-storage rows are consistent reads with ConsistentListFromCache off; caps out of the way.
  return {
    ...defaultWorkEstimatorConfig({ sizeBasedListCostEstimate: sizeBased, consistentListFromCache: false }),
    maximumListSeats: 10_000,
  };
}

describe("estimateListWork", () => {
  it.each(ROWS)(
    "%s: %i bytes, %i objects, limit %i, selector %s, cache %s, single %s",
    (_n, total, count, limit, sel, cache, single, byCount, bySize) => {
      const options: EstimatedListOptions = {
        ...(cache && { resourceVersion: "0" }),
        ...(limit > 0 && { limit }),
        ...(sel && { labelSelector: "a" }),
      };
      const stats = { objectCount: count, averageObjectSizeBytes: Math.trunc(total / count) };
      const req = { verb: "list" as const, matchesSingle: single, options, stats };
      expect(estimateListWork(req, unclamped(false)).initialSeats).toBe(byCount);
      expect(estimateListWork(req, unclamped(true)).initialSeats).toBe(bySize);
    },
  );

  it("caps list seats at 100 with SizeBasedListCostEstimate (v1.34) and at 10 without", () => {
    const stats = { objectCount: 100_000, averageObjectSizeBytes: 5_000 };
    const req = { verb: "list" as const, matchesSingle: false, options: { resourceVersion: "", limit: 500 }, stats };
    const v134 = defaultWorkEstimatorConfig({ consistentListFromCache: false });
    expect(estimateListWork(req, v134).initialSeats).toBe(25); // 500 × 5 KB / 100 KB
    expect(estimateListWork({ ...req, options: {} }, v134).initialSeats).toBe(100);
    const v133 = defaultWorkEstimatorConfig({ sizeBasedListCostEstimate: false, consistentListFromCache: false });
    expect(estimateListWork(req, v133).initialSeats).toBe(10); // 2 × 500 / 100 = 10
    expect(estimateListWork({ ...req, options: {} }, v133).initialSeats).toBe(10);
  });

  it("charges a watch only when it asks for initial events, and an untracked resource the minimum", () => {
    const cfg = defaultWorkEstimatorConfig();
    const stats = { objectCount: 10_000, averageObjectSizeBytes: 1_000 };
    expect(estimateListWork({ verb: "watch", matchesSingle: false, options: {}, stats }, cfg).initialSeats).toBe(1);
    const wl = { verb: "watch" as const, matchesSingle: false, options: { sendInitialEvents: true }, stats };
    expect(estimateListWork(wl, cfg).initialSeats).toBe(10); // from cache: at most 1 MB counted
    expect(estimateListWork({ ...wl, verb: "list", stats: undefined }, cfg).initialSeats).toBe(1);
  });

  it("names a bad setting or input", () => {
    const req = {
      verb: "list" as const,
      matchesSingle: false,
      options: {},
      stats: { objectCount: -1, averageObjectSizeBytes: 0 },
    };
    expect(() => estimateListWork(req, defaultWorkEstimatorConfig())).toThrow(/objectCount must be ≥ 0, got -1/);
    expect(() =>
      estimateListWork({ ...req, stats: undefined }, { ...defaultWorkEstimatorConfig(), bytesPerSeat: 0 }),
    ).toThrow(/bytesPerSeat must be > 0, got 0/);
  });
});

describe("shouldDelegateList", () => {
  it("follows the delegator's table (CacheWithoutSnapshots)", () => {
    expect(shouldDelegateList({ resourceVersionMatch: "Exact", resourceVersion: "1" }, true)).toBe(true);
    expect(shouldDelegateList({ resourceVersionMatch: "NotOlderThan", resourceVersion: "1" }, true)).toBe(false);
    expect(shouldDelegateList({ resourceVersionMatch: "foo" }, true)).toBe(true);
    expect(shouldDelegateList({ continue: "t", limit: 3 }, true)).toBe(true);
    expect(shouldDelegateList({ limit: 3, resourceVersion: "1" }, true)).toBe(true);
    expect(shouldDelegateList({ resourceVersion: "0", limit: 3 }, true)).toBe(false);
    expect(shouldDelegateList({ resourceVersion: "1" }, false)).toBe(false);
    expect(shouldDelegateList({}, false)).toBe(true);
    expect(shouldDelegateList({}, true)).toBe(false);
  });
});

describe("estimateMutatingWork", () => {
  const cfg = defaultWorkEstimatorConfig();
  it("adds final seats for the watch fan-out from 10 watchers on, reshaped at the cap", () => {
    expect(estimateMutatingWork(9, cfg)).toEqual({ initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });
    expect(estimateMutatingWork(10, cfg)).toEqual({ initialSeats: 1, finalSeats: 1, additionalLatencyMs: 5 });
    expect(estimateMutatingWork(95, cfg)).toEqual({ initialSeats: 1, finalSeats: 10, additionalLatencyMs: 5 });
    // Upstream's "creating service account" row: 1000 watchers → 10 seats for 50 ms.
    expect(estimateMutatingWork(1000, cfg)).toEqual({ initialSeats: 1, finalSeats: 10, additionalLatencyMs: 50 });
  });

  it("rejects a watcher count that is not a natural number", () => {
    expect(() => estimateMutatingWork(-1, cfg)).toThrow(/interestedWatchers must be an integer ≥ 0, got -1/);
    expect(() => estimateMutatingWork(1.5, cfg)).toThrow(/got 1.5/);
  });
});
