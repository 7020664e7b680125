import { describe, expect, it } from "vitest";
import { InMemoryMetrics } from "./in-memory-metrics.js";
import {
  bindCounter,
  bindGauge,
  bindHistogram,
  exponentialBuckets,
  type Gauge,
  noopMetrics,
  seriesKey,
} from "./metrics.js";

describe("InMemoryMetrics", () => {
  it("counters add up per label set and refuse to decrease", () => {
    const m = new InMemoryMetrics();
    const c = m.counter({ name: "c_total", help: "h", labelNames: ["name"] });
    c.inc({ name: "a" });
    c.inc({ name: "a" }, 2);
    c.inc({ name: "b" });
    expect(m.value("c_total", { name: "a" })).toBe(3);
    expect(m.value("c_total", { name: "b" })).toBe(1);
    expect(m.value("c_total", { name: "never" })).toBe(0);
    expect(() => c.inc({ name: "a" }, -1)).toThrow(/cannot decrease/);
  });

  it("gauges set, inc and dec", () => {
    const m = new InMemoryMetrics();
    const g = m.gauge({ name: "g", help: "h" });
    g.set(5);
    g.inc();
    g.dec(undefined, 3);
    expect(m.value("g")).toBe(3);
  });

  it("histograms keep count, sum, cumulative buckets and every value", () => {
    const m = new InMemoryMetrics();
    const h = m.histogram({ name: "h_seconds", help: "h", buckets: [0.1, 1, 10] });
    for (const v of [0.05, 0.5, 5, 50]) h.observe(v);
    const snap = m.histogramValue("h_seconds");
    expect(snap.count).toBe(4);
    expect(snap.sum).toBe(55.55);
    expect(snap.buckets).toEqual([
      { le: 0.1, count: 1 },
      { le: 1, count: 2 },
      { le: 10, count: 3 },
    ]);
    expect(snap.values).toEqual([0.05, 0.5, 5, 50]);
    const empty = m.histogramValue("h_seconds", { other: "x" });
    expect(empty.count).toBe(0);
    expect(empty.buckets.map((b) => b.le)).toEqual([0.1, 1, 10]);
  });

  it("asking twice for a name shares the series; another kind or other labels throws", () => {
    const m = new InMemoryMetrics();
    m.counter({ name: "x_total", help: "h", labelNames: ["name"] }).inc({ name: "q" });
    m.counter({ name: "x_total", help: "h", labelNames: ["name"] }).inc({ name: "q" });
    expect(m.value("x_total", { name: "q" })).toBe(2);
    expect(() => m.gauge({ name: "x_total", help: "h", labelNames: ["name"] })).toThrow(/already registered/);
    expect(() => m.counter({ name: "x_total", help: "h", labelNames: ["other"] })).toThrow(/already registered/);
  });

  it("recording with the wrong label names throws, naming the metric", () => {
    const m = new InMemoryMetrics();
    const c = m.counter({ name: "l_total", help: "h", labelNames: ["name"] });
    expect(() => c.inc()).toThrow(/l_total expects labels \[name\]/);
    expect(() => c.inc({ other: "x" })).toThrow(/l_total/);
    expect(() => c.inc({ name: "a", extra: "b" })).toThrow(/l_total/);
  });

  it("names, describe and series expose what was registered", () => {
    const m = new InMemoryMetrics();
    m.gauge({ name: "b", help: "hb", labelNames: ["k"] }).set(1, { k: "x" });
    m.histogram({ name: "a", help: "ha", labelNames: ["k"], buckets: [1] }).observe(0.5, { k: "y" });
    expect(m.names()).toEqual(["a", "b"]);
    expect(m.describe("b")?.help).toBe("hb");
    expect(m.describe("missing")).toBeUndefined();
    expect(m.series("b")).toEqual([{ labels: { k: "x" }, value: 1 }]);
    expect(m.series("a")).toEqual([{ labels: { k: "y" }, value: 1 }]);
    expect(m.series("missing")).toEqual([]);
  });
});

describe("InMemoryMetrics bound handles (with)", () => {
  it("record the same values as the unbound methods", () => {
    const bound = new InMemoryMetrics();
    const unbound = new InMemoryMetrics();
    const opts = {
      c: { name: "c_total", help: "h", labelNames: ["name"] },
      g: { name: "g", help: "h", labelNames: ["name"] },
      h: { name: "h_seconds", help: "h", labelNames: ["name"], buckets: [0.1, 1] },
    } as const;
    const bc = bindCounter(bound.counter(opts.c), { name: "a" });
    const bg = bindGauge(bound.gauge(opts.g), { name: "a" });
    const bh = bindHistogram(bound.histogram(opts.h), { name: "a" });
    bc.inc();
    bc.inc(2);
    bg.set(4);
    bg.inc();
    bg.dec(undefined);
    bg.dec(3);
    for (const v of [0.05, 0.5, 5]) bh.observe(v);
    const uc = unbound.counter(opts.c);
    const ug = unbound.gauge(opts.g);
    const uh = unbound.histogram(opts.h);
    uc.inc({ name: "a" });
    uc.inc({ name: "a" }, 2);
    ug.set(4, { name: "a" });
    ug.inc({ name: "a" });
    ug.dec({ name: "a" });
    ug.dec({ name: "a" }, 3);
    for (const v of [0.05, 0.5, 5]) uh.observe(v, { name: "a" });
    for (const name of ["c_total", "g"]) {
      expect(bound.value(name, { name: "a" })).toBe(unbound.value(name, { name: "a" }));
      expect(bound.series(name)).toEqual(unbound.series(name));
    }
    expect(bound.value("c_total", { name: "a" })).toBe(3);
    expect(bound.value("g", { name: "a" })).toBe(1);
    expect(bound.histogramValue("h_seconds", { name: "a" })).toEqual(
      unbound.histogramValue("h_seconds", { name: "a" }),
    );
    expect(() => bc.inc(-1)).toThrow(/c_total cannot decrease/);
  });

  it("check the labels when bound, naming the metric, and create the series on first use", () => {
    const m = new InMemoryMetrics();
    const c = m.counter({ name: "l_total", help: "h", labelNames: ["name"] });
    expect(() => c.with!()).toThrow(/metric l_total expects labels \[name\], got \[\]/);
    expect(() => c.with!({ other: "x" })).toThrow(/l_total/);
    expect(() => c.with!({ name: "a", extra: "b" })).toThrow(/l_total/);
    const labels = { name: "a" };
    const b = c.with!(labels);
    expect(m.series("l_total")).toEqual([]);
    labels.name = "changed"; // the handle keeps its own copy
    b.inc(0);
    expect(m.series("l_total")).toEqual([{ labels: { name: "a" }, value: 0 }]);
  });

  it("a wrapper made by spreading a metric has no `with`, so bindGauge goes through the wrapper", () => {
    const m = new InMemoryMetrics();
    const g = m.gauge({ name: "w", help: "h" });
    let sets = 0;
    const wrapped: Gauge = {
      ...g,
      set: (value, labels) => {
        sets++;
        g.set(value, labels);
      },
    };
    expect(wrapped.with).toBeUndefined();
    bindGauge(wrapped).set(7);
    expect(sets).toBe(1);
    expect(m.value("w")).toBe(7);
  });
});

describe("metrics helpers", () => {
  it("exponentialBuckets matches prometheus.ExponentialBuckets", () => {
    expect(exponentialBuckets(1, 2, 4)).toEqual([1, 2, 4, 8]);
    expect(exponentialBuckets(10e-9, 10, 10).length).toBe(10);
    expect(() => exponentialBuckets(0, 2, 3)).toThrow(RangeError);
    expect(() => exponentialBuckets(1, 1, 3)).toThrow(RangeError);
    expect(() => exponentialBuckets(1, 2, 0)).toThrow(RangeError);
  });

  it("seriesKey is independent of label order", () => {
    expect(seriesKey({ b: "2", a: "1" })).toBe(seriesKey({ a: "1", b: "2" }));
    expect(seriesKey(undefined)).toBe("");
    expect(seriesKey({ a: "x" })).not.toBe(seriesKey({ a: "y" }));
  });

  it("noopMetrics records nothing and never throws", () => {
    noopMetrics.counter({ name: "n", help: "h" }).inc();
    noopMetrics.gauge({ name: "n", help: "h" }).set(1);
    noopMetrics.histogram({ name: "n", help: "h", buckets: [1] }).observe(1);
    expect(noopMetrics.counter({ name: "n", help: "h" })).toBe(noopMetrics.counter({ name: "m", help: "h" }));
    bindCounter(noopMetrics.counter({ name: "n", help: "h" }), { any: "x" }).inc();
    bindGauge(noopMetrics.gauge({ name: "n", help: "h" })).set(1);
    bindHistogram(noopMetrics.histogram({ name: "n", help: "h", buckets: [1] })).observe(1);
  });
});
