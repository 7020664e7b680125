import { describe, expect, it } from "vitest";
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
