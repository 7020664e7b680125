// The terminal output of `informer analyze-logs`: the load attribution tables, the slow requests with their steps,
// the malformed lines.
import { type LoadAnalysis, type LoadGroup, servedFromLabel } from "./load-aggregator.js";
import { userAgentProduct } from "./user-agent.js";

/** Aligned columns; `right` marks the columns (by index) to right-align. */
export function formatColumns(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  right: ReadonlySet<number>,
): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? "").length)));
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => (right.has(i) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((w) => "─".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

/** Milliseconds as text: `812 ms`, `1.25 s`, `—` for none. */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 10) return `${ms.toFixed(0)} ms`;
  return `${ms.toFixed(2)} ms`;
}

const count = (n: number) => n.toLocaleString("en-US");

function groupTable(title: string, names: readonly string[], groups: readonly LoadGroup[], a: LoadAnalysis): string {
  const header = [...names, "requests", "share", "mean latency", "max latency", "errors"];
  if (a.hasCpu) header.push("apiserver CPU");
  const rows = groups.map((g) => {
    const r = [
      ...g.key,
      count(g.count),
      `${(g.share * 100).toFixed(1)}%`,
      formatMs(g.latencyMsMean),
      formatMs(g.latencyMsMax),
      count(g.errors),
    ];
    if (a.hasCpu) r.push(formatMs(g.cpuMs));
    return r;
  });
  const right = new Set(header.map((_, i) => i).filter((i) => i >= names.length));
  return `${title}\n${formatColumns(header, rows, right)}\n`;
}

/**
 * The whole analysis as text: a header line with the counts, tables by user agent, verb, resource, served-from, read
 * shape × served-from and the top combinations, the slowest traces with their steps, the slowest requests, and the
 * malformed lines (the first few, with file and line).
 */
export function formatLoadAnalysis(a: LoadAnalysis): string {
  const out: string[] = [];
  const formats = Object.entries(a.byFormat)
    .map(([f, n]) => `${f} ${count(n)}`)
    .join(", ");
  out.push(
    `${a.files.length} file${a.files.length === 1 ? "" : "s"}, ${count(a.lines)} lines: ${count(a.requests)} requests` +
      (formats !== ""
        ? ` (${formats}${a.merged > 0 ? `; ${count(a.merged)} logged by both httplog and audit, counted once` : ""})`
        : "") +
      `, ${count(a.traceCount)} slow-request traces, ${count(a.malformedCount)} malformed lines, ${count(a.otherLines)} other log lines` +
      (a.skippedAuditStages > 0 ? `, ${count(a.skippedAuditStages)} audit events at a non-final stage skipped` : "") +
      "\n",
  );
  if (a.requests > 0) {
    out.push(groupTable("Requests by user agent", ["user agent"], a.byUserAgent, a));
    out.push(groupTable("Requests by verb", ["verb"], a.byVerb, a));
    out.push(groupTable("Requests by resource", ["resource"], a.byResource, a));
    out.push(groupTable("Requests by served-from", ["served from"], a.byServedFrom, a));
    out.push(servedFromNote(a));
    out.push(groupTable("Reads by shape and served-from", ["shape", "served from"], a.byShape, a));
    out.push(
      groupTable(
        `Top ${a.top.length} user agent × verb × resource × served-from`,
        ["user agent", "verb", "resource", "served from"],
        a.top,
        a,
      ),
    );
  }
  if (a.byPriorityLevel.length > 0) out.push(apfTable(a));
  if (a.timeline !== undefined) out.push(timelineText(a));
  if (a.reRequests.length > 0) out.push(reRequestTable(a));
  if (a.slowTraces.length > 0) {
    out.push(`Slow requests (traces, slowest first; ${a.slowTraces.length} of ${a.traceCount})`);
    for (const slow of a.slowTraces) {
      const { trace: t, request: r } = slow;
      const who = [t.fields["user-agent"] ?? r?.userAgent, t.fields.verb ?? r?.verb, t.fields.url ?? r?.uri]
        .filter((x) => x !== undefined && x !== "")
        .join(" ");
      const from = r !== undefined && r.servedFrom !== "" ? servedFromLabel(r) : undefined;
      const extra =
        from !== undefined
          ? ` served from ${from}`
          : slow.servedFrom !== undefined
            ? ` (a ${slow.servedFrom} read)`
            : "";
      out.push(
        `  Trace[${t.id}] "${t.name}" ${formatMs(t.totalMs)}${traceEndNote(t)}  ${who}${extra}  (${t.file}:${t.line})`,
      );
      for (const s of t.steps)
        out.push(
          `    ${" ".repeat(s.depth)}${s.nested ? "[" : "- "}${s.message}${s.fields !== "" ? ` ${s.fields}` : ""}  ${formatMs(s.durationMs)}`,
        );
    }
    out.push("");
  }
  if (a.slowRequests.length > 0) {
    const rows = a.slowRequests.map((r) => [
      formatMs(r.latencyMs),
      r.verb,
      r.uri !== "" ? r.uri : r.resource,
      userAgentProduct(r.userAgent),
      servedFromLabel(r),
      `${r.file}:${r.line}`,
    ]);
    out.push(
      `Slowest requests by logged latency (watches excluded)\n${formatColumns(
        ["latency", "verb", "URI", "user agent", "served from", "at"],
        rows,
        new Set([0]),
      )}\n`,
    );
  }
  if (a.malformedCount > 0) {
    out.push(
      `Malformed lines: ${count(a.malformedCount)}${a.malformedCount > a.malformed.length ? ` (first ${a.malformed.length})` : ""}`,
    );
    for (const m of a.malformed) out.push(`  ${m.file}:${m.line}: ${m.reason}: ${JSON.stringify(m.text)}`);
    out.push("");
  }
  return out.join("\n");
}

/** Why a trace has no END line, when it has none: cut (second format), or not needed (first format). */
export function traceEndNote(t: { readonly complete: boolean; readonly endLogged: boolean }): string {
  if (!t.complete) return " (incomplete: no END line)";
  if (!t.endLogged) return " (no END line: this k8s.io/utils/trace release wrote it only after a slow last step)";
  return "";
}

function servedFromNote(a: LoadAnalysis): string {
  const notes: string[] = [];
  if (a.servedFromFromTraces > 0)
    notes.push(`${count(a.servedFromFromTraces)} read from the request's trace ("… etcd3" steps are storage reads)`);
  if (a.servedFromInferred > 0)
    notes.push(
      `${count(a.servedFromInferred)} inferred from the read's shape ${
        a.kubeVersion !== undefined
          ? `for kube-apiserver ${a.kubeVersion}`
          : "(only shapes every release 1.18–1.34 routes alike; --kube-version infers the others)"
      }, with a ready watch cache`,
    );
  if (!a.hasServedFrom)
    notes.push(
      "no record says where it was served from: kube-apiserver's own logs do not; the simulator's audit lines do",
    );
  if (a.watchesLoggedAtStart > 0)
    notes.push(
      `${count(a.watchesLoggedAtStart)} watches logged when they started (1.30, resp=0): not errors, latency is set-up time`,
    );
  return notes.length === 0 ? "" : `(served-from: ${notes.join("; ")})\n`;
}

function apfTable(a: LoadAnalysis): string {
  const rows = a.byPriorityLevel.map((g) => [
    g.key[0],
    g.key[1],
    count(g.count),
    `${(g.share * 100).toFixed(1)}%`,
    g.seatsMean === null ? "—" : g.seatsMean.toFixed(g.seatsMean % 1 === 0 ? 0 : 2),
    g.finalSeatsMax === null ? "—" : String(g.finalSeatsMax),
    formatMs(g.queueMsMean),
    formatMs(g.executionMsMean),
    formatMs(g.executionMsMax),
    formatMs(g.executionMsSum),
  ]);
  const header = [
    "priority level",
    "flow schema",
    "requests",
    "share",
    "seats (mean)",
    "final seats (max)",
    "queue (mean)",
    "execution (mean)",
    "execution (max)",
    "execution (sum)",
  ];
  return `Requests by API Priority and Fairness level (apf_* fields)\n${formatColumns(header, rows, new Set([2, 3, 4, 5, 6, 7, 8, 9]))}\n`;
}

/** `MM-DD hh:mm:ss` (and the year when the logs gave it) of an epoch ms. */
function stamp(ms: number, withYear: boolean): string {
  const iso = new Date(ms).toISOString();
  return `${withYear ? `${iso.slice(0, 4)}-` : ""}${iso.slice(5, 10)} ${iso.slice(11, 19)}`;
}

/** A rate with three significant digits (`0.000231`, `1.50`, `120`). */
function rate(x: number): string {
  return x === 0 ? "0" : x >= 100 ? x.toFixed(0) : x.toPrecision(3);
}

function timelineText(a: LoadAnalysis): string {
  const t = a.timeline;
  if (t === undefined) return "";
  const withYear = true;
  const head = `Requests over time (${t.bucketSeconds} s buckets, ${stamp(t.firstMs, withYear)} to ${stamp(t.lastMs, withYear)}${
    t.yearAssumed ? ", klog time without a year: 2000 assumed" : ""
  }; ${count(t.timed)} of ${count(a.requests)} requests have a time): peak ${rate(t.peakPerSecond)}/s`;
  const verbs = [...new Set(t.buckets.flatMap((b) => Object.keys(b.byVerb)))].sort();
  const shown =
    t.buckets.length <= 24
      ? t.buckets
      : [...t.buckets]
          .sort((x, y) => y.requests - x.requests || x.t - y.t)
          .slice(0, 10)
          .sort((x, y) => x.t - y.t);
  const rows = shown.map((b) => [
    stamp(t.firstMs + b.t * 1000, withYear),
    count(b.requests),
    rate(b.perSecond),
    ...verbs.map((v) => count(b.byVerb[v] ?? 0)),
  ]);
  const title = t.buckets.length <= 24 ? "" : ` (the ${shown.length} busiest of ${t.buckets.length} buckets)`;
  return `${head}${title}\n${formatColumns(
    ["bucket start", "requests", "per s", ...verbs],
    rows,
    new Set(rows[0]?.map((_, i) => i).filter((i) => i > 0)),
  )}\n`;
}

function reRequestTable(a: LoadAnalysis): string {
  const s = (x: number) => `${x.toFixed(x >= 100 ? 0 : 1)} s`;
  const rows = a.reRequests.map((g) => [
    g.key[0],
    g.key[1],
    g.key[2],
    count(g.objects),
    count(g.intervals),
    s(g.minSeconds),
    s(g.medianSeconds),
    s(g.p90Seconds),
    s(g.maxSeconds),
    `${g.example.object} from ${g.example.source}: ${g.example.intervalsSeconds
      .slice(0, 6)
      .map((x) => x.toFixed(1))
      .join(", ")}${g.example.intervalsSeconds.length > 6 ? ", …" : ""} s`,
  ]);
  return `Re-requests of one object by one client (interval between consecutive requests)\n${formatColumns(
    ["user agent", "verb", "resource", "objects", "intervals", "min", "median", "p90", "max", "example"],
    rows,
    new Set([3, 4, 5, 6, 7, 8]),
  )}\n`;
}
