import { formatGoDuration } from "@informer-ts/apimachinery";
/** A key-value pair of a trace or a step (`utiltrace.Field`), written `key:value`. */
export interface TraceField {
  readonly key: string;
  readonly value: string | number | boolean;
}

interface TraceStep {
  readonly atMs: number;
  readonly msg: string;
  readonly fields: readonly TraceField[];
}

/** How {@link Trace.logIfLong} renders. */
export interface TraceLogOptions {
  /** When the traced operation ended (clock ms). */
  readonly endMs: number;
  /** `LogIfLong`'s threshold: nothing is written below it; 0 writes every trace and every step. */
  readonly thresholdMs: number;
  /** The trace's number (upstream: `rand.Int31()`). */
  readonly traceNum: number;
  /** Every step, as kube-apiserver writes them at `-v=4` and above (default: only steps above their share). */
  readonly allSteps?: boolean;
}

/**
 * A trace of one operation in `k8s.io/utils/trace`'s format, on a caller's clock: `step` records when each step
 * ended, {@link logIfLong} renders the trace as `LogIfLong` does when the whole took at least the threshold — the
 * header `Trace[<n>]: "<name>" <k:v,…> (<start 02-Jan-2006 15:04:05.000>) (total time: <ms>ms):`, one line
 * `Trace[<n>]: ---"<step>" <k:v,…> <ms>ms (<15:04:05.000>)` per step that took at least its share
 * (threshold / (steps + 1)), and `Trace[<n>]: [<total>] [<total>] END` with Go durations. Times are UTC.
 *
 * Differences from k8s.io/utils/trace: no nested traces (kube-apiserver's separately started traces — the cacher's,
 * a webhook's — are not simulated), no parallel steps, and the text is returned (the engine writes it through its
 * logger) instead of going to klog; the trailing newline is left out.
 */
export class Trace {
  private readonly steps: TraceStep[] = [];

  constructor(
    readonly name: string,
    readonly fields: readonly TraceField[],
    readonly startMs: number,
  ) {
    if (!Number.isFinite(startMs)) throw new RangeError(`trace ${JSON.stringify(name)}: start time must be finite`);
  }

  /** Records that a step ended at `atMs` (clock ms, not before the previous step). */
  step(msg: string, atMs: number, fields: readonly TraceField[] = []): void {
    const last = this.steps.length > 0 ? this.steps[this.steps.length - 1]!.atMs : this.startMs;
    if (!Number.isFinite(atMs) || atMs < last) {
      throw new RangeError(
        `trace ${JSON.stringify(this.name)}: step ${JSON.stringify(msg)} at ${atMs} is before ${last}`,
      );
    }
    this.steps.push({ atMs, msg, fields });
  }

  /** The rendered trace when it took at least `thresholdMs`, else undefined. */
  logIfLong(opts: TraceLogOptions): string | undefined {
    if (!(opts.thresholdMs >= 0)) throw new RangeError(`trace threshold must be ≥ 0 ms, got ${opts.thresholdMs}`);
    const totalMs = opts.endMs - this.startMs;
    if (!(totalMs >= 0)) throw new RangeError(`trace ${JSON.stringify(this.name)}: end ${opts.endMs} is before start`);
    if (opts.thresholdMs > 0 && totalMs < opts.thresholdMs) return undefined;
    const prefix = `Trace[${opts.traceNum}]: `;
    let out = `${prefix}${JSON.stringify(this.name)} `;
    if (this.fields.length > 0) out += `${writeFields(this.fields)} `;
    out += `(${formatTraceStart(this.startMs)}) (total time: ${Math.trunc(totalMs)}ms):`;
    const stepThresholdMs = opts.thresholdMs / (this.steps.length + 1);
    let last = this.startMs;
    for (const s of this.steps) {
      const d = s.atMs - last;
      if (opts.allSteps === true || stepThresholdMs === 0 || d >= stepThresholdMs) {
        out += `\n${prefix}---${JSON.stringify(s.msg)} `;
        if (s.fields.length > 0) out += `${writeFields(s.fields)} `;
        out += `${Math.trunc(d)}ms (${formatClockTime(s.atMs)})`;
      }
      last = s.atMs;
    }
    const total = formatGoDuration(totalMs);
    out += `\n${prefix}[${total}] [${total}] END`;
    return out;
  }
}

function writeFields(fields: readonly TraceField[]): string {
  return fields.map((f) => `${f.key}:${String(f.value)}`).join(",");
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** Go's `02-Jan-2006 15:04:05.000` of a clock time, in UTC. */
export function formatTraceStart(ms: number): string {
  const d = new Date(ms);
  const day = String(d.getUTCDate()).padStart(2, "0");
  return `${day}-${MONTHS[d.getUTCMonth()]}-${d.getUTCFullYear()} ${formatClockTime(ms)}`;
}

// Go's `time.Duration.String()` is apimachinery's (one implementation for the packages); re-exported for the engine.
export { formatGoDuration };

/** Go's `15:04:05.000` of a clock time, in UTC. */
export function formatClockTime(ms: number): string {
  return new Date(ms).toISOString().slice(11, 23);
}
