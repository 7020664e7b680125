// Go's time.Duration text (`1h2m3.5s`, `812.345678ms`, `123µs`, `0s`), as kube-apiserver writes latencies in its
// httplog and traces, read back into milliseconds.

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/**
 * Parses the text Go's `time.Duration.String()` (and `time.ParseDuration`) use — a sign, then one or more
 * `<number><unit>` parts with units `h`, `m`, `s`, `ms`, `us`/`µs`, `ns`; `0` alone — and returns milliseconds.
 * Returns `undefined` for anything else (never throws), so a caller can name the bad value.
 */
export function parseGoDuration(text: string): number | undefined {
  let s = text.trim();
  if (s === "0") return 0;
  let sign = 1;
  if (s.startsWith("-") || s.startsWith("+")) {
    if (s[0] === "-") sign = -1;
    s = s.slice(1);
  }
  if (s === "") return undefined;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < s.length) {
    const m = PART.exec(s);
    if (m === null) return undefined;
    total += Number(m[1]) * (UNIT_MS[m[2] ?? ""] ?? Number.NaN);
  }
  // Nanosecond resolution, as Go's durations have: 1.019 s is 1019 ms, not 1018.9999999999999.
  return Number.isFinite(total) ? (sign * Math.round(total * 1e6)) / 1e6 : undefined;
}
