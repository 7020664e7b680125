import { describe, expect, it } from "vitest";
import { renderHtmlReport } from "../../report/html-report.js";
import { runKubeletConfigMap } from "./kubelet-configmap.js";

// Small: 2 nodes × 10 pods × 2 ConfigMaps for 10 virtual minutes.
const small = { nodes: 2, podsPerNode: 10, configMapsPerPod: 2, durationSeconds: 600 } as const;

describe("kubelet-configmap (000, 001)", () => {
  it("Get and Cache (≤ 1.28) send a GET to etcd per ConfigMap per pod sync, every 60–90 s; Watch sends none", async () => {
    const r = await runKubeletConfigMap({ ...small, variants: ["get", "cache", "cache-1.29", "watch"] });
    const [get, cache, fixed, watch] = r.variants.map((v) => v.figures);
    const configMaps = 2 * 10 * 2;
    for (const f of [get, cache]) {
      // one GET per ConfigMap per sync: the rate of pod syncs × 2, i.e. 40 ConfigMaps / 60–90 s
      expect(f?.storageGetsPerSecond).toBeCloseTo(2 * (f?.podSyncsPerSecond ?? 0), 1);
      expect(f?.storageGetsPerSecond).toBeGreaterThan(configMaps / 90);
      expect(f?.storageGetsPerSecond).toBeLessThan(configMaps / 60);
      expect(f?.cacheGetsPerSecond).toBe(0);
      // 000's log pattern: consecutive GETs of one ConfigMap 60–90 s apart, many of them 65–75 s
      expect(f?.intervalMinSeconds).toBeGreaterThanOrEqual(60);
      expect(f?.intervalMaxSeconds).toBeLessThanOrEqual(91);
      expect(f?.intervalShare65to75).toBeGreaterThan(0.2);
    }
    // the v1.29 fix: after the first read, refreshes come from the watch cache (TTL 60 s at 2,000 nodes)
    expect(fixed?.storageGetsPerSecond).toBe(0);
    expect(fixed?.cacheGetsPerSecond).toBeGreaterThan(configMaps / 90);
    // Watch: only watches, one per ConfigMap, re-opened by the reflector's timeout
    expect(watch?.storageGetsPerSecond).toBe(0);
    expect(watch?.cacheGetsPerSecond).toBe(0);
    expect(watch?.openWatchesMin).toBe(configMaps);
    expect(watch?.openWatchesMax).toBe(configMaps);
    expect(watch?.watchOpensPerSecond).toBeGreaterThan(0);
    expect(watch?.listsPerSecond).toBe(0);
    expect(watch?.intervals).toBe(0);
    // kube-apiserver memory per the simulator's watch model (~100 KB per idle single-object watch, 001's figure);
    // no watch, no memory
    expect(watch?.memoryBytesEnd).toBeGreaterThan(configMaps * 90_000);
    expect(watch?.memoryBytesEnd).toBeLessThan(configMaps * 110_000);
    expect(get?.memoryBytesMax).toBe(0);
    // apiserver CPU (cost model, latency recorded): Get/Cache spend it all on GETs from etcd, the 1.29 fix on GETs
    // from the cache, Watch on opening its LISTs and WATCHes during the warm-up and re-opening WATCHes after
    const steady = (f: typeof get, kind: string) => f?.[`cpuMs.steady.${kind}`] ?? 0;
    for (const f of [get, cache]) {
      expect(f?.cpuMsSteady).toBeGreaterThan(0);
      expect(steady(f, "get/storage")).toBeCloseTo(f?.cpuMsSteady ?? -1, 6);
      // 000's GETs took 1.56–1.93 ms (apf_execution_time 0.93–1.27 ms)
      expect(f?.storageGetLatencyMs).toBeGreaterThan(1.56);
      expect(f?.storageGetLatencyMs).toBeLessThan(1.93);
      expect(f?.storageGetCpuMs).toBeLessThan(f?.storageGetLatencyMs ?? 0);
    }
    expect(steady(fixed, "get/storage")).toBe(0);
    expect(steady(fixed, "get/cache")).toBeCloseTo(fixed?.cpuMsSteady ?? -1, 6);
    expect(fixed?.cpuMsSteady).toBeGreaterThan(0);
    // --json's extra: the whole run's CPU-seconds by served-from and by user agent (the kubelet's, per version)
    const cpu = r.extra?.cpuSeconds as Record<
      string,
      { byServedFrom: Record<string, number>; byUserAgent: Record<string, number> }
    >;
    const ofGet = cpu[r.variants[0]?.name ?? ""];
    expect(Object.keys(ofGet?.byServedFrom ?? {})).toEqual(["storage"]);
    expect(Object.keys(ofGet?.byUserAgent ?? {})).toEqual(["kubelet/v1.28.0 (linux/amd64) kubernetes/855e7c4"]);
    expect(Object.keys(cpu[r.variants[2]?.name ?? ""]?.byUserAgent ?? {})[0]).toMatch(/^kubelet\/v1\.29\.0 /);
    expect(watch?.["cpuMs.warmup.list/cache"]).toBeGreaterThan(0);
    expect(watch?.["cpuMs.warmup.watch/cache"]).toBeGreaterThan(0);
    expect(steady(watch, "get/storage") + steady(watch, "get/cache")).toBe(0);
    expect(steady(watch, "watch/cache")).toBeGreaterThan(0);
    expect(
      r.summary.some((row) => row.metric.startsWith("apiserver CPU") && row.measured.includes("cores at 2000 nodes")),
    ).toBe(true);
    expect(r.summary.some((row) => row.writeUp.includes("75 s, 65 s"))).toBe(true);
    expect(r.summary.some((row) => row.measured.includes("% within 65–75 s"))).toBe(true);
  });

  it("immutable ConfigMaps close their watch after the first read", async () => {
    const r = await runKubeletConfigMap({ ...small, durationSeconds: 300, variants: ["watch-immutable"] });
    const f = r.variants[0]?.figures;
    expect(f?.openWatchesEnd).toBe(0);
    expect(f?.memoryBytesEnd).toBe(0);
    expect(f?.openWatchesMax).toBeLessThanOrEqual(1);
    expect(f?.storageGetsPerSecond).toBe(0);
    const half = await runKubeletConfigMap({
      ...small,
      durationSeconds: 300,
      immutableFraction: 0.5,
      variants: ["watch-immutable"],
    });
    const open = half.variants[0]?.figures.openWatchesEnd ?? 0;
    expect(open).toBeGreaterThan(5);
    expect(open).toBeLessThan(35);
  });

  it("is deterministic for a seed, and its report draws its own charts", async () => {
    const opts = { ...small, nodes: 1, durationSeconds: 240, variants: ["cache", "watch"] as const, seed: 9 };
    const a = await runKubeletConfigMap(opts);
    const b = await runKubeletConfigMap(opts);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    const c = await runKubeletConfigMap({ ...opts, seed: 10 });
    expect(JSON.stringify(c.variants[0]?.figures)).not.toBe(JSON.stringify(a.variants[0]?.figures));
    const html = renderHtmlReport(a);
    for (const id of [
      "storage-gets",
      "cache-gets",
      "open-watches",
      "watch-opens",
      "get-intervals",
      "cpu",
      "watch-memory",
    ])
      expect(html).toContain(`data-chart="${id}"`);
    expect(html).not.toContain(`data-chart="queue-depth"`);
    expect(html).toContain(`data-chart="requests"`);
    expect(html).toContain("65–70");
  });

  it("pod updates re-sync pods at once: more GETs to etcd with Cache 1.28, none more with Watch", async () => {
    const base = await runKubeletConfigMap({ ...small, durationSeconds: 300, variants: ["cache"] });
    const busy = await runKubeletConfigMap({
      ...small,
      durationSeconds: 300,
      podUpdatesPerHour: 120,
      variants: ["cache", "watch"],
    });
    expect(busy.variants[0]?.figures.storageGetsPerSecond).toBeGreaterThan(
      1.3 * (base.variants[0]?.figures.storageGetsPerSecond ?? 0),
    );
    expect(busy.variants[1]?.figures.storageGetsPerSecond).toBe(0);
  });

  it("refuses options it cannot run, naming them", async () => {
    await expect(runKubeletConfigMap({ nodes: 0 })).rejects.toThrow("nodes must be an integer ≥ 1, got 0");
    await expect(runKubeletConfigMap({ immutableFraction: 2 })).rejects.toThrow(
      "immutableFraction must be within [0, 1]",
    );
    await expect(runKubeletConfigMap({ durationSeconds: 60 })).rejects.toThrow("must outlast the warm-up (90 s");
  });
});
