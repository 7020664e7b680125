import type { Pod } from "@informer-ts/client";
import { describe, expect, it } from "vitest";
import { activePodsLess, getPodsToDelete, POD_DELETION_COST, rankByRelatedPodsOnSameNode } from "./active-pods.js";

// Ported from pkg/controller/controller_utils_test.go TestSortingActivePodsWithRanks (PodDeletionCost and
// LogarithmicScaleDown on, their defaults; the case with PodDeletionCost disabled has no counterpart here).
const now = Date.UTC(2026, 5, 15, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();
const then1Month = Date.UTC(2026, 4, 15, 12, 0, 0);
const then2Hours = now - 2 * 3600_000;
const then5Hours = now - 5 * 3600_000;
const then8Hours = now - 8 * 3600_000;
const zero = 0;

function pod(
  name: string,
  nodeName: string,
  phase: string,
  ready: boolean,
  restarts: number,
  readySince: number,
  created: number,
  annotations?: Record<string, string>,
): Pod {
  return {
    metadata: {
      name,
      ...(created !== 0 && { creationTimestamp: iso(created) }),
      ...(annotations !== undefined && { annotations }),
    },
    spec: { nodeName, containers: [] },
    status: {
      phase,
      ...(ready && {
        conditions: [
          { type: "Ready", status: "True", ...(readySince !== 0 && { lastTransitionTime: iso(readySince) }) },
        ],
        containerStatuses: [{ restartCount: restarts } as never],
      }),
    },
  } as Pod;
}

const unscheduledPod = pod("unscheduled", "", "Pending", false, 0, zero, zero);
const scheduledPendingPod = pod("pending", "node", "Pending", false, 0, zero, zero);
const unknownPhasePod = pod("unknown-phase", "node", "Unknown", false, 0, zero, zero);
const runningNotReadyPod = pod("not-ready", "node", "Running", false, 0, zero, zero);
const runningReadyNoLastTransitionTimePod = pod(
  "ready-no-last-transition-time",
  "node",
  "Running",
  true,
  0,
  zero,
  zero,
);
const runningReadyNow = pod("ready-now", "node", "Running", true, 0, now, now);
const runningReadyThen = pod("ready-then", "node", "Running", true, 0, then1Month, then1Month);
const runningReadyNowHighRestarts = pod("ready-high-restarts", "node", "Running", true, 9001, now, now);
const runningReadyNowCreatedThen = pod("ready-now-created-then", "node", "Running", true, 0, now, then1Month);
const lowPodDeletionCost = pod("low-deletion-cost", "node", "Running", true, 0, now, then1Month, {
  [POD_DELETION_COST]: "10",
});
const highPodDeletionCost = pod("high-deletion-cost", "node", "Running", true, 0, now, then1Month, {
  [POD_DELETION_COST]: "100",
});
const unscheduled5Hours = pod("unscheduled-5-hours", "", "Pending", false, 0, then5Hours, then5Hours);
const unscheduled8Hours = pod("unscheduled-10-hours", "", "Pending", false, 0, then8Hours, then8Hours);
const ready2Hours = pod("ready-2-hours", "", "Running", true, 0, then2Hours, then1Month);
const ready5Hours = pod("ready-5-hours", "", "Running", true, 0, then5Hours, then1Month);
const ready10Hours = pod("ready-10-hours", "", "Running", true, 0, then8Hours, then1Month);

describe("TestSortingActivePodsWithRanks", () => {
  const equality: [Pod, Pod?][] = [
    [unscheduledPod],
    [scheduledPendingPod],
    [unknownPhasePod],
    [runningNotReadyPod],
    [runningReadyNowCreatedThen],
    [runningReadyNow],
    [runningReadyThen],
    [runningReadyNowHighRestarts],
    [runningReadyNowCreatedThen],
    [unscheduled5Hours, unscheduled8Hours],
    [ready5Hours, ready10Hours],
  ];
  it.each(equality.map(([a, b], i) => ({ i, a, b: b ?? a })))("Equality tests $i", ({ a, b }) => {
    expect(activePodsLess(a, 1, b, 1, now)).toBe(false);
    expect(activePodsLess(b, 1, a, 1, now)).toBe(false);
  });

  const inequality: [Pod, number, Pod, number][] = [
    [unscheduledPod, 1, scheduledPendingPod, 2],
    [unscheduledPod, 2, scheduledPendingPod, 1],
    [scheduledPendingPod, 1, unknownPhasePod, 2],
    [unknownPhasePod, 1, runningNotReadyPod, 2],
    [runningNotReadyPod, 1, runningReadyNoLastTransitionTimePod, 1],
    [runningReadyNoLastTransitionTimePod, 1, runningReadyNow, 1],
    [runningReadyNow, 2, runningReadyNoLastTransitionTimePod, 1],
    [runningReadyNow, 1, runningReadyThen, 1],
    [runningReadyNow, 2, runningReadyThen, 1],
    [runningReadyNowHighRestarts, 1, runningReadyNow, 1],
    [runningReadyNow, 2, runningReadyNowHighRestarts, 1],
    [runningReadyNow, 1, runningReadyNowCreatedThen, 1],
    [runningReadyNowCreatedThen, 2, runningReadyNow, 1],
    [lowPodDeletionCost, 2, highPodDeletionCost, 1],
    [ready2Hours, 1, ready5Hours, 1],
  ];
  it.each(
    inequality.map(([a, ra, b, rb], i) => ({ i, a, ra, b, rb, name: `${a.metadata?.name}<${b.metadata?.name}` })),
  )("Inequality tests $i ($name)", ({ a, ra, b, rb }) => {
    expect(activePodsLess(a, ra, b, rb, now)).toBe(true);
    expect(activePodsLess(b, rb, a, ra, now)).toBe(false);
  });
});

describe("getPodsToDelete (replica_set.go)", () => {
  it("ranks doubled-up pods first and takes all pods when diff covers them", () => {
    const on = (name: string, node: string) => pod(name, node, "Running", true, 0, then5Hours, then1Month);
    const pods = [on("a", "n1"), on("b", "n2"), on("c", "n2"), on("d", "n3")];
    expect(rankByRelatedPodsOnSameNode(pods, pods)).toEqual([1, 2, 2, 1]);
    const victims = getPodsToDelete(pods, pods, 2, now).map((p) => p.metadata?.name);
    expect(victims.sort()).toEqual(["b", "c"]);
    expect(getPodsToDelete(pods, pods, 4, now)).toHaveLength(4);
  });

  it("prefers unscheduled, then pending, then not-ready pods", () => {
    const pods = [runningReadyThen, runningNotReadyPod, scheduledPendingPod, unscheduledPod];
    expect(getPodsToDelete(pods, pods, 3, now).map((p) => p.metadata?.name)).toEqual([
      "unscheduled",
      "pending",
      "not-ready",
    ]);
  });
});
