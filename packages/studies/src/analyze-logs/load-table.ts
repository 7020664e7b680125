// The terminal output of `informer analyze-logs`: the load attribution tables, the slow requests with their steps,
// the malformed lines.
import { type LoadAnalysis, type LoadGroup, userAgentProduct } from "./load-aggregator.js";

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
    if (!a.hasServedFrom)
      out.push(
        "(no record says where it was served from: kube-apiserver's own logs do not; the simulator's audit lines do)\n",
      );
    else if (a.servedFromFromTraces > 0)
      out.push(
        `(${count(a.servedFromFromTraces)} served-from read from the request's trace: "… etcd3" steps are storage reads)\n`,
      );
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
  if (a.slowTraces.length > 0) {
    out.push(`Slow requests (traces, slowest first; ${a.slowTraces.length} of ${a.traceCount})`);
    for (const { trace: t, request: r } of a.slowTraces) {
      const who = [t.fields["user-agent"] ?? r?.userAgent, t.fields.verb ?? r?.verb, t.fields.url ?? r?.uri]
        .filter((x) => x !== undefined && x !== "")
        .join(" ");
      const extra = r !== undefined && r.servedFrom !== "" ? ` served from ${r.servedFrom}` : "";
      out.push(
        `  Trace[${t.id}] "${t.name}" ${formatMs(t.totalMs)}${t.complete ? "" : " (incomplete: no END line)"}  ${who}${extra}  (${t.file}:${t.line})`,
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
      r.servedFrom === "" ? "?" : r.servedFrom,
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
