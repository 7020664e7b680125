// `informer analyze-logs --report <file.html>`: the load attribution as one self-contained HTML page with inline SVG
// charts (no script, no network), built from the scenario reports' chart functions.
import { barChart, escapeXml } from "../report/svg-chart.js";
import type { LoadAnalysis, LoadGroup } from "./load-aggregator.js";
import { formatMs } from "./load-table.js";

const CHART_CATEGORIES = 8;

function shorten(s: string, n = 18): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

function table(names: readonly string[], groups: readonly LoadGroup[], a: LoadAnalysis): string {
  const head = [...names, "requests", "share", "mean latency", "max latency", "errors", ...(a.hasCpu ? ["CPU"] : [])];
  const rows = groups.map((g) =>
    [
      ...g.key,
      String(g.count),
      `${(g.share * 100).toFixed(1)}%`,
      formatMs(g.latencyMsMean),
      formatMs(g.latencyMsMax),
      String(g.errors),
      ...(a.hasCpu ? [formatMs(g.cpuMs)] : []),
    ]
      .map((c) => `<td>${escapeXml(c)}</td>`)
      .join(""),
  );
  return `<table><thead><tr>${head.map((h) => `<th>${escapeXml(h)}</th>`).join("")}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r}</tr>`)
    .join("")}</tbody></table>`;
}

/**
 * Renders a {@link LoadAnalysis} as a standalone HTML page: charts of requests by user agent, by verb, reads by
 * shape split by served-from, and the slowest traces' total time; then the tables, the slow traces with their steps
 * and the malformed lines.
 */
export function renderLoadReport(a: LoadAnalysis): string {
  const charts: string[] = [];
  const ua = a.byUserAgent.slice(0, CHART_CATEGORIES);
  charts.push(
    barChart(
      { id: "by-user-agent", title: "Requests by user agent", xLabel: "user agent", yLabel: "requests" },
      ua.map((g) => shorten(g.key[0] ?? "")),
      [{ name: "requests", values: ua.map((g) => g.count) }],
    ),
  );
  const verbs = a.byVerb.slice(0, CHART_CATEGORIES);
  charts.push(
    barChart(
      { id: "by-verb", title: "Requests by verb", xLabel: "verb", yLabel: "requests" },
      verbs.map((g) => g.key[0] ?? ""),
      [{ name: "requests", values: verbs.map((g) => g.count) }],
    ),
  );
  const shapes = [...new Set(a.byShape.map((g) => g.key[0] ?? ""))].slice(0, CHART_CATEGORIES);
  const froms = [...new Set(a.byShape.map((g) => g.key[1] ?? ""))].sort();
  charts.push(
    barChart(
      { id: "by-shape", title: "Reads by shape and served-from", xLabel: "request shape", yLabel: "requests" },
      shapes.map((s) => shorten(s, 16)),
      froms.map((f) => ({
        name: f === "?" ? "served from: unknown" : `served from ${f}`,
        values: shapes.map((s) => a.byShape.find((g) => g.key[0] === s && g.key[1] === f)?.count ?? 0),
      })),
    ),
  );
  const slow = a.slowTraces.slice(0, CHART_CATEGORIES);
  // Without a trace the chart would be an empty frame: the section below says there is none instead.
  if (slow.length > 0)
    charts.push(
      barChart(
        { id: "slow-traces", title: "Slowest traces, total time", xLabel: "trace", yLabel: "ms" },
        slow.map((s) => shorten(s.trace.name, 12)),
        [{ name: "total time (ms)", values: slow.map((s) => s.trace.totalMs) }],
      ),
    );
  const traces = a.slowTraces
    .map(({ trace: t, request: r }) => {
      const steps = t.steps
        .map(
          (s) =>
            `<li style="margin-left:${s.depth * 12}px">${escapeXml(s.message)}${s.fields !== "" ? ` <code>${escapeXml(s.fields)}</code>` : ""} — ${escapeXml(formatMs(s.durationMs))}</li>`,
        )
        .join("");
      const who = [
        t.fields["user-agent"] ?? r?.userAgent ?? "",
        t.fields.verb ?? r?.verb ?? "",
        t.fields.url ?? r?.uri ?? "",
      ]
        .filter((x) => x !== "")
        .join(" ");
      return `<li><b>Trace[${escapeXml(t.id)}] ${escapeXml(t.name)}</b> ${escapeXml(formatMs(t.totalMs))}${t.complete ? "" : " (incomplete)"} — ${escapeXml(who)}${r !== undefined && r.servedFrom !== "" ? `, served from ${escapeXml(r.servedFrom)}` : ""} <small>${escapeXml(`${t.file}:${t.line}`)}</small><ul>${steps}</ul></li>`;
    })
    .join("\n");
  const malformed = a.malformed
    .map(
      (m) =>
        `<li><code>${escapeXml(`${m.file}:${m.line}`)}</code> ${escapeXml(m.reason)}: <code>${escapeXml(m.text)}</code></li>`,
    )
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>analyze-logs — informer-ts</title>
<style>
body{margin:0;padding:8px 16px;font:13px system-ui,sans-serif;color:#111;background:#fff}
h1{font-size:17px;margin:4px 0}h2{font-size:15px;margin:14px 0 4px}p{margin:2px 0 8px}
.charts{display:grid;grid-template-columns:repeat(2,560px);gap:8px 16px}
table{border-collapse:collapse;margin-top:6px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}
</style></head>
<body>
<h1>apiserver load: ${escapeXml(a.files.join(", "))}</h1>
<p>${a.lines} lines: ${a.requests} requests, ${a.traceCount} slow-request traces, ${a.malformedCount} malformed lines, ${a.otherLines} other log lines${a.hasServedFrom ? "" : " (no record says where it was served from)"}</p>
<div class="charts">
${charts.join("\n")}
</div>
<h2>By user agent</h2>${table(["user agent"], a.byUserAgent, a)}
<h2>By verb</h2>${table(["verb"], a.byVerb, a)}
<h2>By resource</h2>${table(["resource"], a.byResource, a)}
<h2>By served-from</h2>${table(["served from"], a.byServedFrom, a)}
<h2>Reads by shape and served-from</h2>${table(["shape", "served from"], a.byShape, a)}
<h2>Top user agent × verb × resource × served-from</h2>${table(["user agent", "verb", "resource", "served from"], a.top, a)}
<h2>Slow requests (traces)</h2>${traces === "" ? "<p>none: no Trace[…] block in the input (kube-apiserver traces requests that take 500 ms or more)</p>" : `<ul>${traces}</ul>`}
${a.malformedCount > 0 ? `<h2>Malformed lines (${a.malformedCount})</h2><ul>${malformed}</ul>` : ""}
</body></html>
`;
}
