// The simulated apiserver's log written as kube-apiserver writes its own: klog's text format, so `informer
// analyze-logs` reads a study's log as it reads a real apiserver's.
import type { LogFields, Logger, LogLevel } from "@informer-ts/instrumentation";

const SEVERITY: Readonly<Record<LogLevel, string>> = { debug: "I", info: "I", warn: "W", error: "E" };

function pad(n: number, w: number): string {
  return String(n).padStart(w, "0");
}

/** klog's header for a line logged at `ms` (UTC): `I0101 00:00:05.000000       1 caller] `. */
export function klogHeader(level: LogLevel, ms: number, caller: string): string {
  const d = new Date(ms);
  const micros = pad(d.getUTCMilliseconds() * 1000, 6);
  return (
    `${SEVERITY[level]}${pad(d.getUTCMonth() + 1, 2)}${pad(d.getUTCDate(), 2)} ` +
    `${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}.${micros}` +
    `       1 ${caller}] `
  );
}

function goQuote(s: string): string {
  return JSON.stringify(s);
}

/**
 * One klog text record: a message with fields as klog's `InfoS` writes it (`"msg" key="value" n=3`), a message
 * without fields as `Info` writes it (raw; a multi-line message such as a `Trace[…]` block keeps its lines, only the
 * first with the header).
 */
export function klogRecord(level: LogLevel, ms: number, message: string, fields?: LogFields): string {
  const caller = message.startsWith("Trace[") ? "trace.go:236" : "sim-apiserver.go:1";
  if (fields === undefined || Object.keys(fields).length === 0) return klogHeader(level, ms, caller) + message;
  const kv = Object.entries(fields).map(([k, v]) => {
    if (typeof v === "number" || typeof v === "boolean") return `${k}=${v}`;
    const text = v instanceof Error ? v.message : typeof v === "string" ? v : (JSON.stringify(v) ?? String(v));
    return `${k}=${goQuote(text)}`;
  });
  return `${klogHeader(level, ms, caller)}${goQuote(message)} ${kv.join(" ")}`;
}

/** A {@link Logger} that writes {@link klogRecord}s stamped with `now()` to `write`. */
export function klogTextLogger(now: () => number, write: (text: string) => void): Logger {
  return {
    log(level, message, fields) {
      write(klogRecord(level, now(), message, fields));
    },
  };
}
