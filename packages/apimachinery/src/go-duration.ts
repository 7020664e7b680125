// Go's time.Duration.String(), the form Kubernetes components print durations in (klog lines, traces, httplog).

/**
 * A duration in Go's `time.Duration.String()` form: `0s`, `750ns`, `12.5µs`, `812ms`, `1.234567s`, `2m3.5s`,
 * `1h0m0s` (nanosecond precision, trailing zeros of the fraction dropped). `ms` must be finite (else a
 * `RangeError` naming it). The reflector's log lines and the simulator's traces and httplog use it.
 */
export function formatGoDuration(ms: number): string {
  if (!Number.isFinite(ms)) throw new RangeError(`duration must be finite, got ${ms}`);
  let ns = Math.round(ms * 1e6);
  if (ns === 0) return "0s";
  const sign = ns < 0 ? "-" : "";
  ns = Math.abs(ns);
  if (ns < 1e3) return `${sign}${ns}ns`;
  if (ns < 1e6) return `${sign}${fraction(ns, 1e3)}µs`;
  if (ns < 1e9) return `${sign}${fraction(ns, 1e6)}ms`;
  const h = Math.floor(ns / 3.6e12);
  const rest = ns - h * 3.6e12;
  const m = Math.floor(rest / 6e10);
  const s = fraction(rest - m * 6e10, 1e9);
  if (h > 0) return `${sign}${h}h${m}m${s}s`;
  if (m > 0) return `${sign}${m}m${s}s`;
  return `${sign}${s}s`;
}

/** `n / unit` with up to log10(unit) decimals, trailing zeros dropped (integers only, no float noise). */
function fraction(n: number, unit: number): string {
  const whole = Math.floor(n / unit);
  const frac = n - whole * unit;
  if (frac === 0) return String(whole);
  const digits = String(unit).length - 1;
  return `${whole}.${String(frac).padStart(digits, "0").replace(/0+$/, "")}`;
}
