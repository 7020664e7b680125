// The corpus of real kube-apiserver lines (log-corpus.test-util.ts): every line read, every request classified as
// its case says, every trace's END rule and storage attribution; then the whole corpus through one analysis.
import { describe, expect, it } from "vitest";
import { aggregateLoad, resolveServedFrom, servedFromLabel } from "./load-aggregator.js";
import { LOG_CORPUS } from "./log-corpus.test-util.js";
import { ApiserverLogReader } from "./log-reader.js";
import { apiserverMinor } from "./served-from-inference.js";
import { userAgentProduct } from "./user-agent.js";

function readCase(lines: readonly string[], file = "corpus.log") {
  const r = new ApiserverLogReader();
  for (const l of lines) r.push(file, l);
  return r.result();
}

describe("analyze-logs on real kube-apiserver lines (the corpus)", () => {
  for (const c of LOG_CORPUS)
    it(`${c.source}: ${c.shows}`, () => {
      const logs = readCase(c.lines);
      expect(logs.malformed).toEqual([]);
      const a = aggregateLoad(["corpus.log"], logs, c.kubeVersion === undefined ? {} : { kubeVersion: c.kubeVersion });
      const minor = c.kubeVersion === undefined ? undefined : apiserverMinor(c.kubeVersion);
      const got = resolveServedFrom(logs, minor).requests.map((r) => ({
        verb: r.verb,
        resource: r.resource,
        servedFrom: servedFromLabel(r),
        userAgent: userAgentProduct(r.userAgent),
        error: r.code !== undefined && r.code >= 400,
        ...(r.code !== undefined && { code: r.code }),
        ...(r.latencyMs !== undefined && { latencyMs: r.latencyMs }),
        ...(r.priorityLevel !== undefined && { apf: [r.priorityLevel, r.flowSchema ?? "(none)"] }),
      }));
      expect(got).toEqual(
        c.requests.map((w) => ({
          ...w,
          ...(w.latencyMs !== undefined && { latencyMs: expect.closeTo(w.latencyMs, 6) }),
        })),
      );
      // The aggregate counts errors as the classification does.
      expect(a.byVerb.reduce((n, g) => n + g.errors, 0)).toBe(c.requests.filter((w) => w.error).length);
      // A watch is never a slow request, whatever its latency.
      expect(a.slowRequests.filter((r) => r.verb === "watch")).toEqual([]);
      expect(a.slowRequests.every((r) => c.requests.some((w) => w.verb === r.verb))).toBe(true);
      expect(
        logs.traces.map((t) => ({
          name: t.name,
          totalMs: t.totalMs,
          complete: t.complete,
          endLogged: t.endLogged,
          steps: t.steps.length,
        })),
      ).toEqual((c.traces ?? []).map(({ servedFrom: _s, ...t }) => t));
      const storageTraces = (c.traces ?? []).filter((t) => t.servedFrom === "storage").length;
      expect(a.tracesByServedFrom.storage ?? 0).toBe(storageTraces);
      expect(logs.otherLines).toBe(c.otherLines ?? 0);
      expect(logs.skippedAuditStages).toBe(c.skippedAuditStages ?? 0);
    });

  it("reads the whole corpus as one log: requests by verb and served-from, write-up 000's re-GET interval", () => {
    const r = new ApiserverLogReader();
    for (const [i, c] of LOG_CORPUS.entries()) for (const l of c.lines) r.push(`case-${i}.log`, l);
    const logs = r.result();
    expect(logs.malformedCount).toBe(0);
    const a = aggregateLoad(["corpus"], logs);
    const wanted = LOG_CORPUS.flatMap((c) => c.requests);
    expect(a.requests).toBe(wanted.length);
    const byVerb = Object.fromEntries(a.byVerb.map((g) => [g.key[0], g.count]));
    const wantVerb: Record<string, number> = {};
    for (const w of wanted) wantVerb[w.verb] = (wantVerb[w.verb] ?? 0) + 1;
    expect(byVerb).toEqual(wantVerb);
    // Without --kube-version only the release-independent shapes are inferred: the RV-unset lists stay "?".
    expect(a.byServedFrom.map((g) => g.key[0]).sort()).toEqual(["?", "cache (inferred)", "storage (inferred)", "—"]);
    const kubelet = a.reRequests.find((g) => g.key[0] === "kubelet/v1.28.0");
    expect(kubelet).toMatchObject({ key: ["kubelet/v1.28.0", "get", "configmaps"], objects: 1, intervals: 2 });
    expect(kubelet?.example.intervalsSeconds).toEqual([75.00263, 65.00516]);
    expect(a.watchesLoggedAtStart).toBe(1);
    expect(a.byPriorityLevel.find((g) => g.key[0] === "system")?.count).toBe(5);
  });
});
