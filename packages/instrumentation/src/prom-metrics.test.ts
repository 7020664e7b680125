import fc from "fast-check";
import type * as prom from "prom-client";
import { describe, expect, it, vi } from "vitest";
import { bindCounter, bindGauge, bindHistogram, type Counter } from "./metrics.js";
import { PromMetrics } from "./prom-metrics.js";

describe("PromMetrics", () => {
  it("renders counters, gauges and histograms in the Prometheus text format", async () => {
    const p = new PromMetrics();
    p.counter({ name: "things_total", help: "Things.", labelNames: ["name"] }).inc({ name: "a" }, 3);
    const g = p.gauge({ name: "level", help: "Level." });
    g.set(7);
    g.dec(undefined, 2);
    p.histogram({ name: "wait_seconds", help: "Wait.", labelNames: ["name"], buckets: [0.1, 1] }).observe(0.5, {
      name: "a",
    });
    const text = await p.render();
    expect(text).toContain("# HELP things_total Things.");
    expect(text).toContain("# TYPE things_total counter");
    expect(text).toContain('things_total{name="a"} 3');
    expect(text).toContain("# TYPE level gauge");
    expect(text).toContain("level 5");
    expect(text).toContain("# TYPE wait_seconds histogram");
    expect(text).toContain('wait_seconds_bucket{le="0.1",name="a"} 0');
    expect(text).toContain('wait_seconds_bucket{le="1",name="a"} 1');
    expect(text).toContain('wait_seconds_bucket{le="+Inf",name="a"} 1');
    expect(text).toContain('wait_seconds_sum{name="a"} 0.5');
    expect(text).toContain('wait_seconds_count{name="a"} 1');
    expect(p.contentType).toMatch(/^text\/plain/);
  });

  it("asking twice for a name returns the same underlying metric", async () => {
    const p = new PromMetrics();
    p.counter({ name: "x_total", help: "X.", labelNames: ["name"] }).inc({ name: "q" });
    p.counter({ name: "x_total", help: "X.", labelNames: ["name"] }).inc({ name: "q" });
    expect(await p.render()).toContain('x_total{name="q"} 2');
  });

  it("separate instances have separate registries", async () => {
    const a = new PromMetrics();
    const b = new PromMetrics();
    a.counter({ name: "only_a_total", help: "A." }).inc();
    expect(await b.render()).not.toContain("only_a_total");
  });
});

describe("PromMetrics bound handles (with)", () => {
  const counterOpts = { name: "ops_total", help: "Ops.", labelNames: ["name", "result"] } as const;
  const gaugeOpts = { name: "depth", help: "Depth.", labelNames: ["name"] } as const;
  const histOpts = { name: "lat_seconds", help: "Lat.", labelNames: ["name"], buckets: [0.001, 0.01, 0.1, 1] } as const;

  type Op =
    | { kind: "inc"; labels: number; value: number; unbound?: boolean }
    | { kind: "set" | "gaugeInc" | "gaugeDec"; labels: number; value: number; unbound?: boolean }
    | { kind: "observe"; labels: number; value: number; unbound?: boolean }
    | { kind: "reset" }
    | { kind: "scrape" }
    | { kind: "remove"; labels: number };

  /**
   * Applies `ops` to a fresh provider, through handles (`bound`, except the ops marked `unbound`) or the unbound
   * methods; returns the expositions of every `scrape` and of the end.
   */
  async function apply(ops: readonly Op[], bound: boolean): Promise<string[]> {
    const scrapes: string[] = [];
    const p = new PromMetrics();
    const c = p.counter(counterOpts);
    const g = p.gauge(gaugeOpts);
    const h = p.histogram(histOpts);
    const names = ["a", "b"];
    for (const op of ops) {
      if (op.kind === "reset") {
        p.registry.resetMetrics();
        continue;
      }
      if (op.kind === "scrape") {
        scrapes.push(await p.render());
        continue;
      }
      const name = names[op.labels % 2]!;
      if (op.kind === "remove") {
        // Straight on prom-client's metrics, as code holding them (or a scrape library) would.
        (p.registry.getSingleMetric(gaugeOpts.name) as prom.Gauge<string>).remove({ name });
        (p.registry.getSingleMetric(histOpts.name) as prom.Histogram<string>).remove({ name });
        continue;
      }
      const viaHandle = bound && op.unbound !== true;
      if (op.kind === "inc") {
        const labels = { name, result: op.labels < 2 ? "success" : "error" };
        if (viaHandle) bindCounter(c, labels).inc(op.value);
        else c.inc(labels, op.value);
      } else if (op.kind === "observe") {
        if (viaHandle) bindHistogram(h, { name }).observe(op.value);
        else h.observe(op.value, { name });
      } else {
        const b = bindGauge(g, { name });
        if (op.kind === "set") viaHandle ? b.set(op.value) : g.set(op.value, { name });
        else if (op.kind === "gaugeInc") viaHandle ? b.inc(op.value) : g.inc({ name }, op.value);
        else viaHandle ? b.dec(op.value) : g.dec({ name }, op.value);
      }
    }
    scrapes.push(await p.render());
    return scrapes;
  }

  it("record exactly what the unbound methods record, mixed with unbound calls, across resets and removals (property)", async () => {
    const value = fc.oneof(
      fc.constantFrom(0, 0.001, 0.01, 0.1, 1, 1000),
      fc.double({ min: 0, max: 2, noNaN: true, noDefaultInfinity: true }),
    );
    const unbound = fc.boolean();
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant("inc" as const), labels: fc.nat(3), value, unbound }),
      fc.record({
        kind: fc.constantFrom("set" as const, "gaugeInc" as const, "gaugeDec" as const),
        labels: fc.nat(1),
        value,
        unbound,
      }),
      fc.record({ kind: fc.constant("observe" as const), labels: fc.nat(1), value, unbound }),
      fc.constant({ kind: "reset" as const }),
      fc.constant({ kind: "scrape" as const }),
      fc.record({ kind: fc.constant("remove" as const), labels: fc.nat(1) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        expect(await apply(ops, true)).toEqual(await apply(ops, false));
      }),
      { numRuns: 300 },
    );
  });

  it("after the first call a handle updates its series without going through prom-client's label path", async () => {
    const p = new PromMetrics();
    const c = p.counter(counterOpts);
    const h = p.histogram(histOpts);
    const promCounter = p.registry.getSingleMetric(counterOpts.name) as prom.Counter<string>;
    const promHist = p.registry.getSingleMetric(histOpts.name) as prom.Histogram<string>;
    const incSpy = vi.spyOn(promCounter, "inc");
    const observeSpy = vi.spyOn(promHist, "observe");
    const bc = bindCounter(c, { name: "q", result: "success" });
    const bh = bindHistogram(h, { name: "q" });
    for (let i = 0; i < 5; i++) {
      bc.inc();
      bh.observe(0.005);
    }
    // One call each through prom-client (to create the series and learn its key); the other four are in place.
    expect(incSpy).toHaveBeenCalledTimes(1);
    expect(observeSpy).toHaveBeenCalledTimes(1);
    const text = await p.render();
    expect(text).toContain('ops_total{name="q",result="success"} 5');
    expect(text).toContain('lat_seconds_bucket{le="0.01",name="q"} 5');
    expect(text).toContain('lat_seconds_count{name="q"} 5');
  });

  it("a removed series is re-created by the next call, not updated behind prom-client's back", async () => {
    const p = new PromMetrics();
    const b = p.gauge(gaugeOpts).with!({ name: "q" });
    b.set(5);
    b.inc();
    (p.registry.getSingleMetric(gaugeOpts.name) as prom.Gauge<string>).remove({ name: "q" });
    expect(await p.render()).not.toContain('depth{name="q"}');
    b.inc(2);
    expect(await p.render()).toContain('depth{name="q"} 2');
  });

  it("invalid values still fail with prom-client's errors", () => {
    const p = new PromMetrics();
    const bc = p.counter(counterOpts).with!({ name: "q", result: "error" });
    bc.inc();
    expect(() => bc.inc(-1)).toThrow(/not possible to decrease/);
    const bh = p.histogram(histOpts).with!({ name: "q" });
    bh.observe(1);
    expect(() => bh.observe(Number.NaN)).toThrow(TypeError);
  });

  it("with() checks the label names at once, naming the metric, and caches the handle per label set", () => {
    const p = new PromMetrics();
    const c = p.counter(counterOpts);
    expect(() => c.with!({ name: "q" })).toThrow(/metric ops_total expects labels \[name,result\], got \[name\]/);
    expect(() => c.with!({ name: "q", other: "x" })).toThrow(/ops_total/);
    expect(() => p.histogram(histOpts).with!()).toThrow(/metric lat_seconds expects labels \[name\]/);
    expect(c.with!({ name: "q", result: "success" })).toBe(
      p.counter(counterOpts).with!({ result: "success", name: "q" }),
    );
    expect(c.with!({ name: "q", result: "success" })).not.toBe(c.with!({ name: "q", result: "error" }));
  });

  it("a handle never used leaves no series; a metric without labels binds with no labels", async () => {
    const p = new PromMetrics();
    p.counter(counterOpts).with!({ name: "unused", result: "success" });
    expect(await p.render()).not.toContain('name="unused"');
    const plain = p.counter({ name: "plain_total", help: "P." }).with!();
    plain.inc(2);
    plain.inc();
    expect(await p.render()).toContain("plain_total 3");
  });

  it("a wrapper made by spreading a metric has no `with`, so bound handles go through the wrapper", async () => {
    const p = new PromMetrics();
    const c = p.counter(counterOpts);
    expect(Object.keys(c)).toEqual(["inc"]);
    const calls: number[] = [];
    const wrapped: Counter = {
      ...c,
      inc: (labels, value) => {
        calls.push(value ?? 1);
        c.inc(labels, value);
      },
    };
    const b = bindCounter(wrapped, { name: "w", result: "success" });
    b.inc();
    b.inc(3);
    expect(calls).toEqual([1, 3]);
    expect(await p.render()).toContain('ops_total{name="w",result="success"} 4');
  });
});
