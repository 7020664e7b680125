import { describe, expect, it } from "vitest";
import { LONG_THROTTLE_LATENCY_MS, ThrottleWarning } from "./throttle-warning.js";

describe("ThrottleWarning", () => {
  const url = new URL("http://h/api/v1/pods");

  it("warns once, only past the threshold, with the default settings named", () => {
    const lines: [string, string, unknown][] = [];
    const w = new ThrottleWarning({ log: (l, m, f) => lines.push([l, m, f]) }, { server: "http://h" }, false);
    w.throttled(LONG_THROTTLE_LATENCY_MS, "GET", url);
    expect(lines).toHaveLength(0);
    w.throttled(LONG_THROTTLE_LATENCY_MS + 1, "POST", url);
    w.throttled(5000, "POST", url);
    expect(lines).toHaveLength(1);
    const [level, message, fields] = lines[0]!;
    expect(level).toBe("warn");
    expect(message).toBe(
      "client-side throttling delayed a request by 1.0 s (client-side rate limit qps=5 burst=10); raise ClientConfig.qps and burst (loadClientConfig({ qps, burst }) or new KubeClient({ ...config, qps, burst })), or set qps to a negative value to disable client-side throttling. Logged once per client.",
    );
    expect(fields).toEqual({ verb: "POST", url: url.toString(), waitedMs: 1001, qps: 5, burst: 10 });
  });

  it("names a custom limiter instead of qps/burst", () => {
    const lines: string[] = [];
    const w = new ThrottleWarning({ log: (_l, m) => lines.push(m) }, { server: "http://h", qps: 50, burst: 100 }, true);
    w.throttled(2500, "GET", url);
    expect(lines[0]).toMatch(
      /by 2\.5 s \(the rate limiter given in KubeClientOptions\.rateLimiter\); pass a faster limiter/,
    );
  });
});
