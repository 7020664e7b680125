import { FakeClock } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { EventsPerSecond, formatNumber, progressReporter, renderEventChart, summarizeMetrics } from "./demo-chart.js";

describe("EventsPerSecond and renderEventChart", () => {
  it("buckets events by second since the start, keeps empty seconds, and marks what happened when", () => {
    const c = new EventsPerSecond(10_000);
    c.add(10_000, false, 40);
    c.add(10_999, false, 40);
    c.mark(11_500, "watches dropped");
    c.add(11_500, false, 20);
    c.add(13_200, true, 2000);
    c.until(14_000);
    expect(c.rows()).toEqual([
      { live: 80, initial: 0, marks: [] },
      { live: 20, initial: 0, marks: ["watches dropped"] },
      { live: 0, initial: 0, marks: [] },
      { live: 0, initial: 2000, marks: [] },
      { live: 0, initial: 0, marks: [] },
    ]);
    expect(renderEventChart(c.rows(), 8)).toEqual([
      "      0s ████████ 80",
      "      1s ██       20  ◀ watches dropped",
      "      2s           0",
      "      3s           0  +2000 initial events of a relist",
      "      4s           0",
    ]);
  });

  it("an event before the start counts in the first second; an empty chart renders no line", () => {
    const c = new EventsPerSecond(5000);
    c.add(4000, false);
    expect(c.rows()).toEqual([{ live: 1, initial: 0, marks: [] }]);
    expect(renderEventChart([])).toEqual([]);
  });
});

describe("formatNumber", () => {
  it("keeps integers, rounds the rest to 3 significant digits, large ones to the unit", () => {
    expect(formatNumber(4400)).toBe("4400");
    expect(formatNumber(0.07100000000000002)).toBe("0.071");
    expect(formatNumber(0.06100000000000001)).toBe("0.061");
    expect(formatNumber(1.23456)).toBe("1.23");
    expect(formatNumber(12.345)).toBe("12.3");
    expect(formatNumber(1234.5678)).toBe("1235");
    expect(formatNumber(Number.NaN)).toBe("NaN");
  });
});

describe("summarizeMetrics", () => {
  it("keeps the prefixed series without buckets, rounded, and states a shared label set once", () => {
    const text = [
      "# HELP informer_x help",
      'informer_store_resource_version{name="d",resource="configmaps"} 4400',
      'informer_processing_latency_seconds_bucket{name="d",resource="configmaps",le="0.1"} 3',
      'informer_processing_latency_seconds_sum{name="d",resource="configmaps"} 0.07100000000000002',
      'other_metric{name="d"} 1',
    ].join("\n");
    expect(summarizeMetrics(text, "informer_")).toEqual({
      labels: '{name="d",resource="configmaps"}',
      lines: ["informer_store_resource_version 4400", "informer_processing_latency_seconds_sum 0.071"],
    });
    const mixed = summarizeMetrics(
      'informer_a{name="d",x="1"} 1\ninformer_a{name="d",x="2,3"} 2.5\ninformer_b{name="d"} 0.30000000000000004',
      "informer_",
    );
    expect(mixed).toEqual({
      labels: '{name="d"}',
      lines: ['informer_a{x="1"} 1', 'informer_a{x="2,3"} 2.5', "informer_b 0.3"],
    });
    expect(summarizeMetrics('informer_a{x="1"} 1\ninformer_a{y="2"} 2', "informer_")).toEqual({
      labels: "",
      lines: ['informer_a{x="1"} 1', 'informer_a{y="2"} 2'],
    });
  });
});

describe("progressReporter", () => {
  it("prints nothing during the first second, then at most one line a second", async () => {
    const clock = new FakeClock(0);
    const lines: string[] = [];
    let evaluated = 0;
    const report = progressReporter(clock, (l) => lines.push(l));
    const line = () => `at ${clock.now()} (${++evaluated})`;
    report(line);
    await clock.step(999);
    report(line);
    expect(lines).toEqual([]);
    expect(evaluated).toBe(0);
    await clock.step(1);
    report(line);
    await clock.step(500);
    report(line);
    await clock.step(500);
    report(line);
    expect(lines).toEqual(["at 1000 (1)", "at 2000 (2)"]);
  });
});
