// Reads kube-apiserver log lines of any of the formats `informer analyze-logs` knows — klog text or JSON httplog,
// audit events, Trace blocks, the simulator's JSON httplog — behind CRI or docker JSON wrappers, line by line.
import { auditEntry, isAuditEvent, isEventList, microTimeMs } from "./audit-event.js";
import { httplogEntry, legacyHttplogEntry, simHttplogEntry } from "./httplog-record.js";
import { JsonBlock } from "./json-block.js";
import { klogTimeMs, parseKlogHeader, parseKlogPairs, parseKlogStructured } from "./klog-line.js";
import type { ApiRequestEntry, LogPosition, MalformedLine, SlowRequestTrace } from "./log-entry.js";
import { TraceCollector } from "./trace-parser.js";

/** How many malformed lines are kept with their text (all are counted). */
export const MALFORMED_KEPT = 10;

/** Everything read from the logs. */
export interface ParsedLogs {
  /** One entry per request (an httplog line and an audit event with the same audit ID are merged into one). */
  readonly requests: readonly ApiRequestEntry[];
  readonly traces: readonly SlowRequestTrace[];
  /** The first {@link MALFORMED_KEPT} malformed lines. */
  readonly malformed: readonly MalformedLine[];
  readonly malformedCount: number;
  /** Lines read, blank ones included. */
  readonly lines: number;
  /** Lines of a known log but of no interest here (other klog messages, other JSON log records). */
  readonly otherLines: number;
  /** Audit events at a non-final stage (`RequestReceived`, `ResponseStarted`), skipped. */
  readonly skippedAuditStages: number;
  /** Requests logged twice (httplog and audit with the same audit ID), counted once. */
  readonly merged: number;
  /** Requests per format (before merging). */
  readonly byFormat: Readonly<Record<string, number>>;
}

// CRI (containerd, CRI-O) log files: `<RFC 3339> stdout|stderr P|F <line>`; `kubectl logs --timestamps`:
// `<RFC 3339> <line>`.
const CRI_PREFIX = /^(\d{4})-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:?\d{2}) (?:(?:stdout|stderr) [PF] )?(?=\S)/;
// syslog / journalctl's default output: `Sep 23 20:01:07 host unit[pid]: <line>`.
const SYSLOG_PREFIX = /^[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \S+ [\w.@-]+(?:\[\d+\])?: (?=[IWEF{T])/;

/** When a line was logged, as far as it says: epoch ms, and whether the year was assumed. */
interface LineTime {
  readonly timeMs?: number;
  readonly yearAssumed?: boolean;
}

/**
 * A line-by-line reader of kube-apiserver logs. Call {@link push} for every line of each file (with the file's name;
 * line numbers count per file), then {@link result}. Never throws on input: a line that matches no known format, or
 * matches one but cannot be read, is counted as malformed with the reason (the first few kept with file and line).
 */
export class ApiserverLogReader {
  private readonly requests: ApiRequestEntry[] = [];
  private readonly byAuditId = new Map<string, number>();
  private readonly traces = new TraceCollector();
  private readonly malformed: MalformedLine[] = [];
  private malformedCount = 0;
  private lines = 0;
  private otherLines = 0;
  private skippedAuditStages = 0;
  private merged = 0;
  private readonly byFormat: Record<string, number> = {};
  private lineNo = new Map<string, number>();
  /** A klog multi-line value is open (`key=<` … ` >`): its lines belong to the record before. */
  private inMultiline = false;
  /** A pretty-printed JSON value (an audit event as people paste them) being read over several lines. */
  private block: { readonly at: LogPosition; readonly json: JsonBlock } | undefined;
  /** The year of the current line's CRI/docker wrapper, when it has one. */
  private year: number | undefined;
  /** The time of the line being read. */
  private time: LineTime = {};

  /** Reads one line of `file` (without its line break). */
  push(file: string, raw: string): void {
    this.lines++;
    const line = (this.lineNo.get(file) ?? 0) + 1;
    this.lineNo.set(file, line);
    const at: LogPosition = { file, line };
    let text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (this.inMultiline) {
      if (/^\s*>\s*$/.test(text)) this.inMultiline = false;
      return;
    }
    const cri = CRI_PREFIX.exec(text);
    this.year = cri === null ? undefined : Number(cri[1]);
    if (cri !== null) text = text.slice(cri[0].length);
    else text = text.replace(SYSLOG_PREFIX, "");
    if (this.block !== undefined) {
      if (this.block.at.file !== file) this.closeBlock();
      else {
        const { at: start, json } = this.block;
        const state = json.push(text);
        if (state === "open") return;
        this.block = undefined;
        this.time = {};
        const problem =
          state === "closed"
            ? this.json(json.text, start)
            : `a JSON object longer than ${JsonBlock.MAX_LINES} lines (not closed by line ${line})`;
        if (problem !== undefined) this.bad(start, problem, json.text);
        return;
      }
    }
    this.time = {};
    const trimmed = text.trim();
    if (trimmed === "") return;
    // A pretty-printer puts the opening brace of a value on a line of its own.
    if (trimmed === "{" || trimmed === "[") {
      const json = new JsonBlock();
      json.push(text);
      this.block = { at, json };
      return;
    }
    const problem = this.read(text, at);
    if (problem !== undefined) this.bad(at, problem, text);
  }

  private closeBlock(): void {
    if (this.block === undefined) return;
    this.bad(this.block.at, "a JSON object that never closes (its file ends inside it)", this.block.json.text);
    this.block = undefined;
  }

  /** Returns the reason when the line is malformed. */
  private read(text: string, at: LogPosition): string | undefined {
    if (text.startsWith("{") || text.startsWith("[{")) return this.json(text, at);
    const header = parseKlogHeader(text);
    if (header !== undefined) {
      const ms = klogTimeMs(header.time, this.year ?? 2000);
      if (ms !== undefined) this.time = { timeMs: ms, ...(this.year === undefined && { yearAssumed: true }) };
    }
    const body = header?.message ?? text;
    if (body.startsWith("Trace[")) return this.trace(body, at);
    if (body.startsWith('"HTTP" ')) {
      const s = parseKlogStructured(body);
      if (typeof s === "string") return `httplog line: ${s}`;
      if (s.openMultiline !== undefined) this.inMultiline = true;
      return this.add(httplogEntry((k) => s.values.get(k), at));
    }
    if (header !== undefined) {
      // kube-apiserver 1.18–1.19: `httplog.go:90] verb="GET" URI="…" latency=2.05ms resp=200 UserAgent="…" srcIP="…":`
      if (body.startsWith('verb="')) {
        const s = parseKlogPairs(body);
        if (typeof s === "string") return `httplog line (1.18–1.19 form): ${s}`;
        if (s.openMultiline !== undefined) this.inMultiline = true;
        return this.add(httplogEntry((k) => s.values.get(k), at, "pre-1.20"));
      }
      const legacy = legacyHttplogEntry(body, at);
      if (legacy !== undefined) return this.add(legacy);
      this.otherLines++;
      return undefined;
    }
    return "not a kube-apiserver log line (no klog header, not JSON, not a Trace line)";
  }

  private json(text: string, at: LogPosition): string | undefined {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (err) {
      return `invalid JSON: ${err instanceof Error ? err.message : String(err)}`;
    }
    // A pasted list of events: a JSON array of them, or an audit.k8s.io EventList.
    const items = Array.isArray(v)
      ? v
      : isEventList(v)
        ? (((v as { items?: unknown }).items as unknown[] | undefined) ?? [])
        : undefined;
    if (items !== undefined) {
      for (const item of items) {
        if (!isAuditEvent(item)) return "a JSON list whose items are not all audit events";
        const problem = this.record(item as Record<string, unknown>, at);
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
    if (typeof v !== "object" || v === null) return "JSON line is not an object";
    return this.record(v as Record<string, unknown>, at);
  }

  private record(rec: Readonly<Record<string, unknown>>, at: LogPosition): string | undefined {
    // docker's json-file driver: {"log":"<the line>\n","stream":"stderr","time":"…"}
    if (typeof rec.log === "string" && rec.kind === undefined) {
      const inner = rec.log.replace(/\r?\n$/, "");
      const year = typeof rec.time === "string" ? Number(rec.time.slice(0, 4)) : Number.NaN;
      if (Number.isInteger(year)) this.year = year;
      return inner.trim() === "" ? undefined : this.read(inner, at);
    }
    if (isAuditEvent(rec)) {
      const e = auditEntry(rec, at);
      if (e === "skip") {
        this.skippedAuditStages++;
        return undefined;
      }
      if (typeof e !== "string") {
        const t = microTimeMs(typeof rec.stageTimestamp === "string" ? rec.stageTimestamp : undefined);
        this.time = Number.isFinite(t) ? { timeMs: t } : {};
      }
      return this.add(e);
    }
    // klog's JSON format: "ts" in epoch ms (float); the simulator's httplog: an RFC 3339 "ts".
    const ts = typeof rec.ts === "number" ? rec.ts : typeof rec.ts === "string" ? Date.parse(rec.ts) : Number.NaN;
    this.time = Number.isFinite(ts) ? { timeMs: ts } : {};
    if (rec.msg === "HTTP") {
      if ("URI" in rec) return this.add(httplogEntry((k) => rec[k] as string | number | undefined, at, "json"));
      if ("uri" in rec) return this.add(simHttplogEntry(rec as Record<string, string | number>, at));
      return 'httplog JSON record without "URI"';
    }
    if (typeof rec.msg === "string" && rec.msg.startsWith("Trace[")) {
      for (const part of rec.msg.split("\n")) {
        if (part.trim() === "") continue;
        const r = this.trace(part, at);
        if (r !== undefined) return r;
      }
      return undefined;
    }
    this.otherLines++;
    return undefined;
  }

  private trace(body: string, at: LogPosition): string | undefined {
    const r = this.traces.accept(body, at);
    if (r === true) return undefined;
    return r === false ? "not a Trace line" : r;
  }

  private add(entry: ApiRequestEntry | string): string | undefined {
    if (typeof entry === "string") return entry;
    const e: ApiRequestEntry = { ...entry, ...this.time };
    this.byFormat[e.format] = (this.byFormat[e.format] ?? 0) + 1;
    const seen = e.auditId === undefined ? undefined : this.byAuditId.get(e.auditId);
    const prior = seen === undefined ? undefined : this.requests[seen];
    if (seen !== undefined && prior !== undefined && prior.format !== e.format) {
      this.requests[seen] = mergeEntries(prior, e);
      this.merged++;
      return undefined;
    }
    if (e.auditId !== undefined && seen === undefined) this.byAuditId.set(e.auditId, this.requests.length);
    this.requests.push(e);
    return undefined;
  }

  private bad(at: LogPosition, reason: string, text: string): void {
    this.malformedCount++;
    if (this.malformed.length < MALFORMED_KEPT) this.malformed.push({ ...at, reason, text: text.slice(0, 160) });
  }

  /** What was read so far (traces still open are returned incomplete). */
  result(): ParsedLogs {
    this.closeBlock();
    return {
      requests: this.requests,
      traces: this.traces.finish(),
      malformed: this.malformed,
      malformedCount: this.malformedCount,
      lines: this.lines,
      otherLines: this.otherLines,
      skippedAuditStages: this.skippedAuditStages,
      merged: this.merged,
      byFormat: { ...this.byFormat },
    };
  }
}

/**
 * One request logged by both the httplog and the audit log: the audit event's identity and annotations
 * (served-from, bytes, CPU) with the httplog's latency, source address and APF fields where the audit lacks them.
 */
export function mergeEntries(a: ApiRequestEntry, b: ApiRequestEntry): ApiRequestEntry {
  const [audit, other] = a.format === "audit" ? [a, b] : [b, a];
  const merged: ApiRequestEntry = { ...other, ...dropUndefined(audit) };
  return {
    ...merged,
    file: a.file,
    line: a.line,
    uri: audit.uri !== "" ? audit.uri : other.uri,
    shape: audit.uri !== "" ? audit.shape : other.shape,
    servedFrom: audit.servedFrom !== "" ? audit.servedFrom : other.servedFrom,
    ...(other.latencyMs !== undefined && { latencyMs: other.latencyMs }),
  };
}

function dropUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
