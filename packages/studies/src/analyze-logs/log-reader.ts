// Reads kube-apiserver log lines of any of the formats `informer analyze-logs` knows — klog text or JSON httplog,
// audit events, Trace blocks, the simulator's JSON httplog — behind CRI or docker JSON wrappers, line by line.
import { auditEntry, isAuditEvent } from "./audit-event.js";
import { httplogEntry, simHttplogEntry } from "./httplog-record.js";
import { parseKlogHeader, parseKlogStructured } from "./klog-line.js";
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

const CRI_PREFIX = /^\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:?\d{2}) (?:stdout|stderr) [PF] /;

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
    text = text.replace(CRI_PREFIX, "");
    if (text.trim() === "") return;
    const problem = this.read(text, at);
    if (problem !== undefined) this.bad(at, problem, text);
  }

  /** Returns the reason when the line is malformed. */
  private read(text: string, at: LogPosition): string | undefined {
    if (text.startsWith("{")) return this.json(text, at);
    const header = parseKlogHeader(text);
    const body = header?.message ?? text;
    if (body.startsWith("Trace[")) return this.trace(body, at);
    if (body.startsWith('"HTTP" ')) {
      const s = parseKlogStructured(body);
      if (typeof s === "string") return `httplog line: ${s}`;
      if (s.openMultiline !== undefined) this.inMultiline = true;
      return this.add(httplogEntry((k) => s.values.get(k), at));
    }
    if (header !== undefined) {
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
    if (typeof v !== "object" || v === null || Array.isArray(v)) return "JSON line is not an object";
    const rec = v as Record<string, unknown>;
    // docker's json-file driver: {"log":"<the line>\n","stream":"stderr","time":"…"}
    if (typeof rec.log === "string" && rec.kind === undefined) {
      const inner = rec.log.replace(/\r?\n$/, "");
      return inner.trim() === "" ? undefined : this.read(inner, at);
    }
    if (isAuditEvent(rec)) {
      const e = auditEntry(rec, at);
      if (e === "skip") {
        this.skippedAuditStages++;
        return undefined;
      }
      return this.add(e);
    }
    if (rec.msg === "HTTP") {
      if ("URI" in rec) return this.add(httplogEntry((k) => rec[k] as string | number | undefined, at));
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

  private add(e: ApiRequestEntry | string): string | undefined {
    if (typeof e === "string") return e;
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
