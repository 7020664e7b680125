import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { analyzeLogFiles } from "../analyze-logs/analyze-logs-command.js";
import { userAgentProduct } from "../analyze-logs/load-aggregator.js";
import { renderHtmlReport } from "../report/html-report.js";
import { runApiserverLoad } from "./apiserver-load.js";
import { logFileFor } from "./apiserver-load-command.js";
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
  it("attributes the workload by client and served-from; its audit log reads back the same through analyze-logs", async () => {
    const lines: Record<string, string[]> = { "1.34": [] };
    const r = await runApiserverLoad({ ...small, versions: ["1.34"], log: (v, line) => lines[v]?.push(line) });
    const f = r.variants[0]?.figures ?? {};
    // 2 informers restarted every 20 s for 60 s: 2 + 2 × 3 starts (the last restarts at 60 s)
    expect(f.informerStarts).toBe(8);
    expect(f.kubectlPages).toBe(6);
    expect(f["kubectl.requests"]).toBe(6);
    expect(f["rv-less lists.requests"]).toBe(3);
    // each informer start lists once and watches once
    expect(f["informers.requests"]).toBe(16);
    // the kubelets' first ConfigMap GETs (RV unset) go to storage
    expect(f["kubelets.storage"]).toBeGreaterThanOrEqual(small.nodes * small.configMapsPerNode);
    expect(f.failedRequests).toBe(0);
    expect(r.summary.filter((s) => s.variant.startsWith("routing"))).toHaveLength(12);
    const html = renderHtmlReport(r);
    for (const id of ["storage-reads", "routing", "requests"]) expect(html).toContain(`data-chart="${id}"`);
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
  }, 60_000);

  it("--watch-list: releases without watch-list refuse it (422) and the informers fall back to list-then-watch", async () => {
    const opts = { ...small, durationSeconds: 20, watchList: true, routingVersions: ["1.34"] as const };
    const r = await runApiserverLoad({ ...opts, versions: ["1.22", "1.34"] });
    const [old, now] = r.variants.map((v) => v.figures);
    // 2 informers restarting every 20 s, staggered: the first at 10 s, the second at 20 s: 4 starts
    expect(old?.informerStarts).toBe(4);
    expect(old?.["informers.errors"]).toBe(4);
    expect(old?.["informers.requests"]).toBe(12); // each: the refused watch-list, a list, a watch
    expect(now?.["informers.errors"] ?? 0).toBe(0);
    expect(now?.["informers.requests"]).toBe(4); // each: one watch-list
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
