// k8s.io/utils/trace's slow-request blocks (`Trace[N]: "List" audit-id:…,user-agent:…,verb:LIST (25-Nov-2026
// 20:25:00.000) (total time: 812ms):` then one line per step and `Trace[N]: [812.3ms] [812.3ms] END`), collected
// per trace id: the lines of one block may be interleaved with other lines.
import { parseGoDuration } from "./go-duration.js";
import { readQuoted } from "./klog-line.js";
import type { LogPosition, SlowRequestTrace, TraceStep } from "./log-entry.js";

const TRACE_LINE = /^Trace\[(\d+)\]: (.*)$/s;
// header: "name" fields (start) (total time: 812ms):   (older releases: (started: …) and a Go duration)
const HEADER_TAIL = /^(.*?)\s*\((?:started: )?([^()]*)\) \(total time: ([^()]+)\):?\s*$/s;
// modern step or nested trace summary: fields 123ms (15:04:05.000), then `]`s closing nested traces
const STEP_TAIL = /^\s*(.*?)\s*(\d+)ms \(([^()]*)\)(\]*)\s*$/s;
// older releases' step and every release's END: [elapsed] [step duration] message
const BRACKET_STEP = /^\[([^\]]+)\] \[([^\]]+)\] ?(.*)$/s;
const FIELD_SPLIT = /,(?=[A-Za-z][\w.-]*:)/;

/** `key:value,key:value` (values may hold commas and spaces) as a record. */
export function parseTraceFields(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (text.trim() === "") return out;
  for (const part of text.split(FIELD_SPLIT)) {
    const colon = part.indexOf(":");
    if (colon <= 0) continue;
    out[part.slice(0, colon).trim()] = part.slice(colon + 1);
  }
  return out;
}

interface OpenTrace {
  seq: number;
  at: LogPosition;
  id: string;
  name: string;
  fields: Record<string, string>;
  started: string;
  totalMs: number;
  steps: TraceStep[];
}

/**
 * Collects `Trace[N]:` lines into {@link SlowRequestTrace}s. {@link accept} takes one line's text (without the klog
 * header): `false` when it is not a trace line, `true` when consumed, a string naming the problem when it is a
 * trace line that cannot be read (a step before its header, an unreadable header or step). {@link finish} returns
 * every trace, those whose END never came marked incomplete.
 */
export class TraceCollector {
  private readonly open = new Map<string, OpenTrace>();
  private readonly done: (SlowRequestTrace & { readonly seq: number })[] = [];
  private seq = 0;

  accept(text: string, at: LogPosition): boolean | string {
    const m = TRACE_LINE.exec(text);
    if (m === null) return false;
    const id = m[1] ?? "";
    const rest = m[2] ?? "";
    if (rest.startsWith('"')) return this.header(id, rest, at);
    const t = this.open.get(id);
    if (t === undefined) return `Trace[${id}] step without its header line`;
    const b = BRACKET_STEP.exec(rest);
    if (b !== null) {
      const message = (b[3] ?? "").trim();
      const durationMs = parseGoDuration(b[2] ?? "");
      if (durationMs === undefined) return `Trace[${id}] step duration "${b[2]}" is not a Go duration`;
      if (message === "END") {
        this.open.delete(id);
        this.done.push({ seq: t.seq, ...t.at, ...this.close(t), complete: true });
        return true;
      }
      t.steps.push({ depth: 0, message, fields: "", durationMs, nested: false });
      return true;
    }
    const indent = rest.length - rest.trimStart().length;
    let body = rest.trimStart();
    let nested = false;
    if (body.startsWith("---") || body.startsWith("|||")) body = body.slice(3);
    else if (body.startsWith("[")) {
      body = body.slice(1);
      nested = true;
    } else if (/^\]+$/.test(body))
      return true; // a nested trace closed on its own line
    else return `Trace[${id}] line is neither a step nor END: ${JSON.stringify(rest.slice(0, 60))}`;
    const q = readQuoted(body, 0);
    if (typeof q === "string") return `Trace[${id}] step message: ${q}`;
    const tail = STEP_TAIL.exec(body.slice(q.end));
    if (tail === null) return `Trace[${id}] step without "<n>ms (<time>)"`;
    t.steps.push({ depth: indent, message: q.value, fields: tail[1] ?? "", durationMs: Number(tail[2]), nested });
    return true;
  }

  private header(id: string, rest: string, at: LogPosition): true | string {
    const q = readQuoted(rest, 0);
    if (typeof q === "string") return `Trace[${id}] name: ${q}`;
    const tail = HEADER_TAIL.exec(rest.slice(q.end));
    if (tail === null) return `Trace[${id}] header without "(<start>) (total time: …)"`;
    const total = tail[3] ?? "";
    const totalMs = /^\d+ms$/.test(total) ? Number(total.slice(0, -2)) : parseGoDuration(total);
    if (totalMs === undefined) return `Trace[${id}] total time "${total}" is unreadable`;
    const previous = this.open.get(id);
    if (previous !== undefined)
      this.done.push({ seq: previous.seq, ...previous.at, ...this.close(previous), complete: false });
    this.open.set(id, {
      seq: this.seq++,
      at,
      id,
      name: q.value,
      fields: parseTraceFields(tail[1] ?? ""),
      started: tail[2] ?? "",
      totalMs,
      steps: [],
    });
    return true;
  }

  private close(t: OpenTrace): Omit<SlowRequestTrace, "file" | "line" | "complete"> {
    return { id: t.id, name: t.name, fields: t.fields, started: t.started, totalMs: t.totalMs, steps: t.steps };
  }

  /** Every trace read, in the order their headers appeared; traces still open are returned incomplete. */
  finish(): SlowRequestTrace[] {
    for (const t of this.open.values()) this.done.push({ seq: t.seq, ...t.at, ...this.close(t), complete: false });
    this.open.clear();
    return [...this.done].sort((a, b) => a.seq - b.seq).map(({ seq: _seq, ...t }) => t);
  }
}
