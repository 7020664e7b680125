import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyzeLogFiles } from "../../analyze-logs/analyze-logs-command.js";
import { renderLoadReport } from "../../analyze-logs/load-report.js";
import { userAgentProduct } from "../../analyze-logs/user-agent.js";
import { chartLayoutProblems, hiddenSeriesInScreenshot } from "../../report/chart-layout.test-util.js";
import { expectHonestFigures } from "../../report/honest-figures.test-util.js";
import { renderHtmlReport } from "../../report/html-report.js";
import { hasChromium, screenshotCharts, warnIfNoChromium } from "../../report/report-screenshot.test-util.js";
import { runApiserverLoad } from "./apiserver-load.js";
import { logFileFor } from "./apiserver-load-command.js";
import { measureRouting } from "./apiserver-load-routing.js";
import { LOAD_USER_AGENTS } from "./apiserver-load-workload.js";

// Small: 600 pods (60 per app: kubectl's 500-item pages are one page), 10 nodes, 60 virtual seconds.
const small = {
  pods: 600,
  namespaces: 6,
  apps: 10,
  informers: 2,
  restartSeconds: 20,
  kubectlSeconds: 10,
  plainListSeconds: 20,
  nodes: 10,
  kubeletSeconds: 10,
  configMapsPerNode: 2,
  writesPerSecond: 5,
  durationSeconds: 60,
  sampleSeconds: 5,
  routingVersions: ["1.22", "1.34"],
} as const;

const dir = mkdtempSync(join(tmpdir(), "apiserver-load-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("apiserver-load (004)", () => {
  it("routes reads as the write-up's table says on 1.22, and from the cache on 1.34", async () => {
    const old = await measureRouting("1.22");
    // §3: RV unset, a limit with RV unset (kubectl -l), a continue token, RV ≠ 0 with a limit: etcd
    expect(old['list RV=""']).toBe("storage");
    expect(old['list RV="" limit selector']).toBe("storage");
    expect(old["list continue"]).toBe("storage");
    expect(old["list RV=N limit"]).toBe("storage");
    // RV "0" (limit ignored) and RV ≠ 0 without a limit: the cache
    expect(old['list RV="0" limit']).toBe("cache");
    expect(old['list RV="0"']).toBe("cache");
    expect(old["list RV=N"]).toBe("cache");
    expect(old["watch-list"]).toBe("rejected 422");
    const now = await measureRouting("1.34");
    // §4: consistent reads from the cache; 1.34's cache snapshots serve limits and continuations too
    expect(now['list RV=""']).toBe("cache");
    expect(now['list RV="" limit selector']).toBe("cache");
    expect(now["list continue"]).toBe("cache");
    expect(now['list RV="0" limit']).toBe("cache");
    expect(now['get RV=""']).toBe("storage");
    expect(now["watch-list"]).toBe("cache");
  });

  it("attributes the workload by client and served-from; its audit log reads back the same through analyze-logs", async () => {
    const lines: Record<string, string[]> = { "1.34": [] };
    // 55 s: the last informer restart (50 s) and kubectl run (50 s) finish before the end
    const r = await runApiserverLoad({
      ...small,
      durationSeconds: 55,
      versions: ["1.34"],
      log: (v, line) => lines[v]?.push(line),
    });
    const f = r.variants[0]?.figures ?? {};
    // 2 informers restarted every 20 s, staggered (10, 30, 50 s and 20, 40 s): 2 + 5 starts
    expect(f.informerStarts).toBe(7);
    expect(f.kubectlPages).toBe(5);
    expect(f["kubectl.requests"]).toBe(5);
    expect(f["rv-less lists.requests"]).toBe(2);
    // each informer start lists once and watches once
    expect(f["informers.requests"]).toBe(14);
    // kubelet/v1.29.3 (the kubelet-configmap model): only the first read of each ConfigMap goes to storage
    expect(f["kubelets.storage"]).toBe(small.nodes * small.configMapsPerNode);
    expect(f.failedRequests).toBe(0);
    expect(r.summary.filter((s) => s.variant.startsWith("routing"))).toHaveLength(12);
    const kinds = expectHonestFigures(r);
    expect(kinds.modelled).toBe(2); // the cost model's CPU rows, calibrated on 000
    const html = renderHtmlReport(r);
    for (const id of ["storage-reads", "cpu", "routing", "requests"]) expect(html).toContain(`data-chart="${id}"`);
    expect(html).not.toContain('data-chart="queue-depth"');

    // end to end: the audit log → informer analyze-logs
    const file = join(dir, "load-1.34.log");
    writeFileSync(file, `${(lines["1.34"] ?? []).join("\n")}\n`);
    const a = await analyzeLogFiles([file]);
    expect(a.malformedCount).toBe(0);
    expect(a.requests).toBe(f.requests);
    expect(a.hasServedFrom).toBe(true);
    const storage = a.byServedFrom.find((g) => g.key[0] === "storage")?.count;
    expect(storage).toBe(f["reads.storage"]);
    const kubectl = a.byUserAgent.find((g) => g.key[0] === userAgentProduct(LOAD_USER_AGENTS.kubectl));
    expect(kubectl?.count).toBe(f["kubectl.requests"]);
    // the pod writes come from their own controller, not the kubelets: analyze-logs credits each to its sender
    expect(f.writes).toBeGreaterThan(0);
    expect(f["writes.requests"]).toBe(f.writes);
    expect(f["kubelets.requests"]).toBe(f.kubeletGets);
    const byAgent = (ua: string) => a.byUserAgent.find((g) => g.key[0] === userAgentProduct(ua))?.count;
    expect(userAgentProduct(LOAD_USER_AGENTS.writer)).toBe("annotation-controller/v0.9.1");
    expect(byAgent(LOAD_USER_AGENTS.writer)).toBe(f.writes);
    expect(byAgent(LOAD_USER_AGENTS.kubelet)).toBe(f.kubeletGets);
    // the report charts CPU beside counts when the lines carry the cost model's CPU
    expect(a.hasCpu).toBe(true);
    expect(renderLoadReport(a)).toContain('data-chart="cpu-by-user-agent"');
    // the audit lines carry the request URI: the shapes of the write-up's table, with where each was served
    const shape = (k: string, from: string) => a.byShape.find((g) => g.key[0] === k && g.key[1] === from)?.count;
    expect(shape('list RV="" limit selector', "cache")).toBe(f["kubectl.requests"]);
    expect(shape('list RV="0" limit', "cache")).toBe(f.informerStarts);
    // kubelet/v1.29.3 (the kubelet-configmap model): a ConfigMap's first read from etcd, the refreshes at RV "0"
    expect(shape('get RV=""', "storage")).toBe(small.nodes * small.configMapsPerNode);
    expect(shape('get RV="0"', "cache")).toBe((f.kubeletGets ?? 0) - small.nodes * small.configMapsPerNode);
  }, 60_000);

  it("sends 1.22's kubectl pages and RV-less lists to etcd and 1.34's to the cache; the cost model charges it", async () => {
    const r = await runApiserverLoad({
      ...small,
      durationSeconds: 30,
      versions: ["1.22", "1.34"],
      routingVersions: ["1.22"],
    });
    const [old, now] = r.variants.map((v) => v.figures);
    expect(old?.["kubectl.storage"]).toBe(old?.["kubectl.requests"]);
    expect(old?.["rv-less lists.storage"]).toBe(old?.["rv-less lists.requests"]);
    expect(now?.["kubectl.storage"] ?? 0).toBe(0);
    expect(now?.["rv-less lists.storage"] ?? 0).toBe(0);
    // the informers' RV "0" relists are served from the cache in both
    expect(old?.["informers.storage"] ?? 0).toBe(0);
    // apiserver CPU per the cost model: etcd reads cost more than the same reads from the cache
    expect(old?.["cpuMs.storage"] ?? 0).toBeGreaterThan(now?.["cpuMs.storage"] ?? 0);
    expect(old?.["kubectl.cpuMs"] ?? 0).toBeGreaterThan(now?.["kubectl.cpuMs"] ?? 0);
    expect(now?.cpuMs ?? 0).toBeGreaterThan(0);
  }, 60_000);

  it("--watch-list: releases without watch-list refuse it (422) and the informers fall back to list-then-watch", async () => {
    const opts = { ...small, durationSeconds: 15, watchList: true, routingVersions: ["1.34"] as const };
    const r = await runApiserverLoad({ ...opts, versions: ["1.22", "1.34"] });
    const [old, now] = r.variants.map((v) => v.figures);
    // 2 informers restarting every 20 s, staggered: the first restarts at 10 s: 3 starts in 15 s
    expect(old?.informerStarts).toBe(3);
    expect(old?.["informers.errors"]).toBe(3);
    expect(old?.["informers.requests"]).toBe(9); // each: the refused watch-list, a list, a watch
    expect(now?.["informers.errors"] ?? 0).toBe(0);
    expect(now?.["informers.requests"]).toBe(3); // each: one watch-list
  }, 60_000);

  it("is deterministic for a seed", async () => {
    const opts = { ...small, durationSeconds: 20, versions: ["1.34"] as const, routingVersions: ["1.34"] as const };
    const a = await runApiserverLoad({ ...opts, seed: 3 });
    const b = await runApiserverLoad({ ...opts, seed: 3 });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  }, 60_000);

  it("names one log file per version when several run", () => {
    expect(logFileFor("load.log", "1.22", ["1.22"])).toBe("load.log");
    expect(logFileFor("out/load.log", "1.22", ["1.22", "1.34"])).toBe("out/load-1.22.log");
    expect(logFileFor("load", "1.34", ["1.22", "1.34"])).toBe("load-1.34");
  });
});

warnIfNoChromium("apiserver-load.test");

describe("apiserver-load --report", () => {
  it.skipIf(!hasChromium)(
    "renders in headless Chromium: the study's charts and the requests chart have series drawn",
    async () => {
      const r = await runApiserverLoad({ ...small, durationSeconds: 30, versions: ["1.22", "1.34"] });
      const shot = screenshotCharts(renderHtmlReport(r));
      // grid order: the study's charts (reads from etcd by client, apiserver CPU, routing), then the requests chart
      const cell = (i: number) => shot.plot((i % 2) + 2 * Math.floor(i / 2));
      expect(cell(0), "reads that reached etcd").toBeGreaterThan(1000);
      expect(cell(1), "apiserver CPU").toBeGreaterThan(1000);
      expect(cell(2), "routing").toBeGreaterThan(1000);
      expect(cell(3), "requests by verb/served-from").toBeGreaterThan(1000);
    },
    120_000,
  );
});

describe("apiserver-load --report: the charts are readable", () => {
  let html = "";
  beforeAll(async () => {
    html = renderHtmlReport(await runApiserverLoad({ ...small, durationSeconds: 30, versions: ["1.22", "1.34"] }));
  }, 120_000);
  it("no legend entry covers a data point, line segment or bar; labels and legend entries do not overlap; a series on another is dashed and named (computed from the SVG)", () => {
    expect(html).toContain('class="chart"');
    expect(chartLayoutProblems(html)).toEqual([]);
  });

  it.skipIf(!hasChromium)(
    "screenshot in headless Chromium: every drawn series' colour shows in its plot area",
    () => expect(hiddenSeriesInScreenshot(html)).toEqual([]),
    120_000,
  );
});
