// `informer analyze-logs --report <file.html>`: the load attribution as one self-contained HTML page with inline SVG
// charts (no script, no network), built from the study reports' chart functions.
import { barChart, escapeXml } from "../report/svg-chart.js";
import { type LoadAnalysis, type LoadGroup, servedFromLabel } from "./load-aggregator.js";
import { formatMs, traceEndNote } from "./load-table.js";

const CHART_CATEGORIES = 8;

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

function plainTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${escapeXml(c)}</td>`).join("")}</tr>`).join("");
  return `<table><thead><tr>${head.map((h) => `<th>${escapeXml(h)}</th>`).join("")}</tr></thead><tbody>${body}</tbody></table>`;
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
      ua.map((g) => g.key[0] ?? ""),
      [{ name: "requests", values: ua.map((g) => g.count) }],
    ),
  );
  // Counts hide the expensive clients (kubectl: 0.4 % of the requests, 22 % of the CPU in apiserver-load's 1.22 run):
  // each user agent's share of requests beside its share of the cost — the simulator's modelled CPU when the logs
  // carry it (its audit annotations), else the time spent serving (the sum of non-watch latencies, measured).
  const cost = (g: (typeof a.byUserAgent)[number]) => (a.hasCpu ? g.cpuMs : g.latencyMsSum);
  const totalCost = a.byUserAgent.reduce((n, g) => n + cost(g), 0);
  if (totalCost > 0) {
    const byCost = [...a.byUserAgent].sort((x, y) => cost(y) - cost(x)).slice(0, CHART_CATEGORIES);
    charts.push(
      barChart(
        {
          id: "cpu-by-user-agent",
          title: a.hasCpu
            ? "Share of requests and of apiserver CPU (modelled), by user agent"
            : "Share of requests and of time serving them, by user agent",
          xLabel: "user agent",
          yLabel: "% of all",
        },
        byCost.map((g) => g.key[0] ?? ""),
        [
          { name: "% of requests (measured)", values: byCost.map((g) => 100 * g.share) },
          a.hasCpu
            ? {
                name: "% of apiserver CPU (modelled: the simulator's cost model)",
                values: byCost.map((g) => (100 * g.cpuMs) / totalCost),
              }
            : {
                name: "% of serving time (sum of latencies, watches excluded)",
                values: byCost.map((g) => (100 * g.latencyMsSum) / totalCost),
              },
        ],
      ),
    );
  }
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
      shapes,
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
        slow.map((s) => s.trace.name),
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
      return `<li><b>Trace[${escapeXml(t.id)}] ${escapeXml(t.name)}</b> ${escapeXml(formatMs(t.totalMs))}${escapeXml(traceEndNote(t))} — ${escapeXml(who)}${r !== undefined && r.servedFrom !== "" ? `, served from ${escapeXml(servedFromLabel(r))}` : ""} <small>${escapeXml(`${t.file}:${t.line}`)}</small><ul>${steps}</ul></li>`;
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
${
  a.byPriorityLevel.length > 0
    ? `<h2>By API Priority and Fairness level</h2>${plainTable(
        [
          "priority level",
          "flow schema",
          "requests",
          "seats (mean)",
          "final seats (max)",
          "queue (mean)",
          "execution (mean)",
          "execution (max)",
        ],
        a.byPriorityLevel.map((g) => [
          g.key[0],
          g.key[1],
          String(g.count),
          g.seatsMean === null ? "—" : g.seatsMean.toFixed(2),
          g.finalSeatsMax === null ? "—" : String(g.finalSeatsMax),
          formatMs(g.queueMsMean),
          formatMs(g.executionMsMean),
          formatMs(g.executionMsMax),
        ]),
      )}`
    : ""
}
${a.timeline !== undefined ? `<h2>Requests over time</h2><p>${a.timeline.buckets.length} buckets of ${a.timeline.bucketSeconds} s; peak ${a.timeline.peakPerSecond.toFixed(2)} requests/s${a.timeline.yearAssumed ? " (klog times have no year)" : ""}</p>` : ""}
${
  a.reRequests.length > 0
    ? `<h2>Re-requests of one object by one client</h2>${plainTable(
        ["user agent", "verb", "resource", "objects", "intervals", "min", "median", "p90", "max"],
        a.reRequests.map((g) => [
          g.key[0],
          g.key[1],
          g.key[2],
          String(g.objects),
          String(g.intervals),
          `${g.minSeconds.toFixed(1)} s`,
          `${g.medianSeconds.toFixed(1)} s`,
          `${g.p90Seconds.toFixed(1)} s`,
          `${g.maxSeconds.toFixed(1)} s`,
        ]),
      )}`
    : ""
}
<h2>Slow requests (traces)</h2>${traces === "" ? "<p>none: no Trace[…] block in the input (kube-apiserver traces requests that take 500 ms or more)</p>" : `<ul>${traces}</ul>`}
${a.malformedCount > 0 ? `<h2>Malformed lines (${a.malformedCount})</h2><ul>${malformed}</ul>` : ""}
</body></html>
`;
}
