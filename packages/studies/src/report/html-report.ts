// A study's --report: one self-contained HTML file with inline SVG charts (no script, no network).
import { renderReportChart } from "./report-chart.js";
import { describeRun, figureCell, type StandardChart, type StudyReport, writeUpCell } from "./study-report.js";
import { barChart, escapeXml, lineChart } from "./svg-chart.js";

function bucketLabel(le: number): string {
  if (le === Number.POSITIVE_INFINITY) return "+Inf";
  if (le < 1) return `${le * 1000}ms`;
  if (le < 60) return `${le}s`;
  if (le < 3600) return `${le / 60}m`;
  return `${le / 3600}h`;
}

/**
 * Renders a {@link StudyReport} as a standalone HTML page: queue depth over time, queue wait distribution (long
 * buckets), requests by verb/served-from, heap over time (when sampled), the oldest queued key's wait over time, the
 * summary table and the parameters. A study's own `charts` come first; `standardCharts` picks which of the five follow.
 */
export function renderHtmlReport(report: StudyReport): string {
  const vs = report.variants;
  const charts: string[] = [];
  for (const c of report.charts ?? []) charts.push(renderReportChart(c));
  const want = new Set<StandardChart>(
    report.standardCharts ?? ["queue-depth", "wait", "requests", "memory", "oldest-wait"],
  );
  const add = (id: StandardChart, svg: () => string) => {
    if (want.has(id)) charts.push(svg());
  };
  add("queue-depth", () =>
    lineChart(
      { id: "queue-depth", title: "Queue depth over time", xLabel: "virtual time (s)", yLabel: "items queued" },
      vs.map((v) => ({ name: v.name, points: v.samples.map((s) => [s.t / 1000, s.queueDepth] as const) })),
    ),
  );
  const buckets = vs[0]?.waitBuckets ?? [];
  add("wait", () =>
    barChart(
      { id: "wait", title: "Queue wait distribution", xLabel: "wait ≤ (long buckets)", yLabel: "items" },
      buckets.map((b) => bucketLabel(b.le)),
      vs.map((v) => ({ name: v.name, values: v.waitBuckets.map((b) => b.count) })),
    ),
  );
  const kinds = [...new Set(vs.flatMap((v) => v.samples.flatMap((s) => Object.keys(s.requestsPerSecond))))].sort();
  const totals = vs.map((v) => {
    const t = new Map<string, number>();
    for (let i = 1; i < v.samples.length; i++) {
      const s = v.samples[i];
      const prev = v.samples[i - 1];
      if (s === undefined || prev === undefined) continue;
      for (const [k, r] of Object.entries(s.requestsPerSecond)) t.set(k, (t.get(k) ?? 0) + (r * (s.t - prev.t)) / 1000);
    }
    return { name: v.name, values: kinds.map((k) => Math.round(t.get(k) ?? 0)) };
  });
  add("requests", () =>
    barChart(
      {
        id: "requests",
        title: "apiserver requests during the run, by verb/served-from",
        xLabel: "verb/served-from",
        yLabel: "requests",
      },
      kinds,
      totals,
    ),
  );
  const heap = vs.filter((v) => v.samples.some((s) => s.heapUsed !== undefined));
  add("memory", () =>
    heap.length > 0
      ? lineChart(
          { id: "memory", title: "Heap used over time", xLabel: "virtual time (s)", yLabel: "bytes" },
          heap.map((v) => ({
            name: v.name,
            points: v.samples
              .filter((s) => s.heapUsed !== undefined)
              .map((s) => [s.t / 1000, s.heapUsed ?? 0] as const),
          })),
        )
      : lineChart(
          { id: "events", title: "Informer events per second", xLabel: "virtual time (s)", yLabel: "events/s" },
          vs.map((v) => ({ name: v.name, points: v.samples.map((s) => [s.t / 1000, s.eventsPerSecond] as const) })),
        ),
  );
  add("oldest-wait", () =>
    lineChart(
      {
        id: "oldest-wait",
        title: "Wait of the oldest queued key",
        xLabel: "virtual time (s)",
        yLabel: "seconds waiting",
      },
      vs.map((v) => ({ name: v.name, points: v.samples.map((s) => [s.t / 1000, s.oldestWaitMs / 1000] as const) })),
    ),
  );
  const rows = report.summary
    .map(
      (r) =>
        `<tr><td>${escapeXml(r.variant)}</td><td>${escapeXml(r.metric)}</td><td>${escapeXml(writeUpCell(r))}</td><td>${escapeXml(r.measured)}</td><td data-figure="${r.figure}">${escapeXml(figureCell(r))}</td></tr>`,
    )
    .join("\n");
  const params = Object.entries(report.params)
    .map(([k, v]) => `<code>${escapeXml(k)}=${escapeXml(String(v))}</code>`)
    .join(" ");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeXml(report.scenario)} — informer-ts study</title>
<style>
body{margin:0;padding:8px 16px;font:13px system-ui,sans-serif;color:#111;background:#fff}
h1{font-size:17px;margin:4px 0}p{margin:2px 0 4px}p.source{color:#555;margin-bottom:8px}
.charts{display:grid;grid-template-columns:repeat(2,560px);gap:8px 16px}
table{border-collapse:collapse;margin-top:12px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}
code{margin-right:6px}
</style></head>
<body>
<h1>${escapeXml(report.scenario)}: ${escapeXml(report.title)}</h1>
<p class="run">${escapeXml(describeRun(report))}</p>
<p class="source">${escapeXml(report.source)}</p>
<div class="charts">
${charts.join("\n")}
</div>
<table><thead><tr><th>variant</th><th>metric</th><th>write-up</th><th>figure</th><th>kind</th></tr></thead><tbody>
${rows}
</tbody></table>
<p>${params}</p>
</body></html>
`;
}
