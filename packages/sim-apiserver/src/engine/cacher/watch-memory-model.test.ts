import { describe, expect, it } from "vitest";
import { suggestedWatchChannelSize, watchMemoryEstimate, watchMemoryGauge } from "./watch-memory-model.js";

describe("suggestedWatchChannelSize", () => {
  it("sizes channels as the cacher does: ~1 s of history, clamped by how the watch uses the trigger", () => {
    // A 100-event ring over 75 s → 2, raised to the minimum 10.
    expect(suggestedWatchChannelSize(100, { indexExists: true, triggerUsed: true })).toBe(10);
    expect(suggestedWatchChannelSize(100, { indexExists: false, triggerUsed: false })).toBe(10);
    // The ring grown to 102,400 under churn → 1,366 events a second.
    expect(suggestedWatchChannelSize(102_400, { indexExists: true, triggerUsed: true })).toBe(10);
    expect(suggestedWatchChannelSize(102_400, { indexExists: true, triggerUsed: false })).toBe(1000);
    expect(suggestedWatchChannelSize(102_400, { indexExists: false, triggerUsed: false })).toBe(100);
    expect(suggestedWatchChannelSize(1_600, { indexExists: false, triggerUsed: false })).toBe(22);
  });

  it("names a bad capacity", () => {
    expect(() => suggestedWatchChannelSize(-1, { indexExists: false, triggerUsed: false })).toThrow(/historyCapacity/);
  });
});

describe("watchMemoryEstimate", () => {
  it("comes to ~100 KB for an idle single-object watch: 200,000 kubelet ConfigMap watches ≈ 20 GB (write-up 001)", () => {
    const one = watchMemoryEstimate({ chanSize: 10, eventBytes: 1_500 });
    expect(one.totalBytes).toBe(100_000);
    expect((200_000 * one.totalBytes) / 1e9).toBe(20);
    // kubernetes#117777: 50–100 KiB per watch.
    expect(one.totalBytes / 1024).toBeGreaterThan(50);
    expect(one.totalBytes / 1024).toBeLessThan(100);
  });

  it("grows with the channels and with the events buffered in them × event size", () => {
    const idle = watchMemoryEstimate({ chanSize: 1000, eventBytes: 4_000 });
    expect(idle.channelBytes).toBe(40_000);
    const full = watchMemoryEstimate({ chanSize: 1000, eventBytes: 4_000, buffered: "full" });
    expect(full.bufferedEventBytes).toBe(2000 * 4_000);
    expect(full.totalBytes - idle.totalBytes).toBe(8_000_000);
    expect(watchMemoryEstimate({ chanSize: 10, eventBytes: 100, buffered: 3 }).bufferedEventBytes).toBe(300);
  });

  it("names a bad input", () => {
    expect(() => watchMemoryEstimate({ chanSize: 10, eventBytes: 1, buffered: 21 })).toThrow(
      /buffered must be "empty", "full" or an integer in \[0, 20\], got 21/,
    );
    expect(() => watchMemoryEstimate({ chanSize: 1.5, eventBytes: 1 })).toThrow(
      /chanSize must be an integer ≥ 0, got 1.5/,
    );
    expect(() => watchMemoryEstimate({ chanSize: 1, eventBytes: -3 })).toThrow(/eventBytes/);
  });
});

describe("watchMemoryGauge", () => {
  it("sums the model over open watches, by resource, with each watch's own channel and fill", () => {
    const g = watchMemoryGauge(
      [
        { resource: "configmaps", chanSize: 10, buffered: 0 },
        { resource: "configmaps", chanSize: 10, buffered: 4 },
        { resource: "pods", chanSize: 1000, buffered: 5000 }, // queued past its channels: counted full
      ],
      (r) => (r === "pods" ? 3_000 : 1_000),
    );
    expect(g.watches).toBe(3);
    expect(g.byResource.map((r) => [r.resource, r.watches, r.bufferedEvents])).toEqual([
      ["configmaps", 2, 4],
      ["pods", 1, 2000],
    ]);
    expect(g.byResource[0]!.totalBytes).toBe(2 * 100_000 + 4 * 1_000);
    expect(g.byResource[1]!.totalBytes).toBe(99_600 + 1000 * 40 + 2000 * 3_000);
    expect(g.totalBytes).toBe(g.byResource[0]!.totalBytes + g.byResource[1]!.totalBytes);
  });
});
