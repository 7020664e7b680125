// runDemo in-process: the same demo the CLI runs (real HTTP on 127.0.0.1, the real clock by design: the demo's own
// pacing is what is under test), at a small size so it stays a few seconds. The test itself never sleeps.
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { DemoInterruptedError, runDemo } from "./demo.js";

/** Resolves with the HTTP status of GET `url`, or rejects with the connection error (e.g. ECONNREFUSED). */
function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

describe("runDemo", () => {
  it("checks each fault's outcome right after it, converges, explains its counts, and closes everything", async () => {
    const lines: string[] = [];
    // downtimeMs 2000: a margin for a loaded machine, where the re-watch must still meet the unready cache (429).
    const result = await runDemo({
      objects: 300,
      seconds: 2,
      rate: 100,
      seed: 3,
      downtimeMs: 2000,
      out: (l) => lines.push(l),
    });
    expect(result.checks.map((c) => [c.name, c.ok])).toEqual([
      ["rewatch-after-drop", true],
      ["relist-after-reinit", true],
      ["converged", true],
    ]);
    expect(result.ok).toBe(true);
    expect(result.mismatch).toBeUndefined();
    expect(result.converged).toBe(true);
    expect(result.serverSize).toBe(result.storeSize);
    // The re-initialization empties the watch cache's history: the reflector's RV is too old (410) and it relists.
    expect(result.relists).toEqual({ expired: 1 });
    const watchRequests = Object.entries(result.serverRequests)
      .filter(([key]) => key.startsWith("watch "))
      .reduce((sum, [, n]) => sum + n, 0);
    expect(watchRequests).toBeGreaterThanOrEqual(1);
    expect(result.serverRequests["watch 429 from cache"]).toBeGreaterThanOrEqual(1);

    // Each fault line is followed by its checked outcome, in order, then the verdict.
    const at = (re: RegExp) => {
      const i = lines.findIndex((l) => re.test(l));
      expect(i, `a line matching ${re}`).toBeGreaterThanOrEqual(0);
      return i;
    };
    const order = [
      at(/^ {2}fault 1: [1-9]\d* watch connection\(s\) dropped at RV \d+ \(expect a re-watch/),
      at(/^ {2}✓ re-watched from RV \d+, no relist$/),
      at(/^ {2}fault 2: configmaps watch cache re-initialized, unready for 2000 ms/),
      at(/^ {2}✓ [1-9]\d*× 429 while unready, then 410 and exactly one relist \(a watch-list of \d+ objects\)$/),
      at(/^✓ converged: the store holds \d+ objects, equal to the apiserver's/),
      at(/^all 3 checks passed$/),
    ];
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    const rewatchedFrom = Number(/re-watched from RV (\d+)/.exec(lines.join("\n"))?.[1]);
    const droppedAt = Number(/dropped at RV (\d+)/.exec(lines.join("\n"))?.[1]);
    expect(rewatchedFrom).toBeGreaterThanOrEqual(droppedAt);

    // The chart is what the informer received: one line per second, the relist's initial events shown apart.
    const chartAt = at(/^ {2}watch events the informer received per second/);
    const chart = lines.slice(chartAt + 1, chartAt + 1 + result.eventsPerSecond.length);
    expect(chart).toHaveLength(result.eventsPerSecond.length);
    for (const [i, row] of result.eventsPerSecond.entries()) {
      expect(chart[i]).toMatch(new RegExp(`^ {4} *${i}s [█ ]{40} +${row.live}(  |$)`));
    }
    const replayed = result.eventsPerSecond.reduce((sum, r) => sum + r.initial, 0);
    expect(replayed).toBeGreaterThan(0);
    expect(chart.join("\n")).toContain(`initial events of a relist`);
    expect(chart.join("\n")).toContain("◀ watches dropped");

    // Counts explained, and they add up.
    const { adds, updates, deletes, initialAdds, replayedUpdates, replayedDeletes } = result.handlerCalls;
    expect(initialAdds).toBe(300);
    expect(lines).toContain(
      `    adds    ${String(adds).padStart(3)} = 300 from the initial list + ${adds - 300} new objects ` +
        "(from watch events or found by the relist)",
    );
    expect(lines.join("\n")).toContain(
      `updates ${String(updates).padStart(3)} = ${updates - replayedUpdates} changes + ${replayedUpdates} unchanged`,
    );
    expect(lines.join("\n")).toContain(
      `deletes ${String(deletes).padStart(3)} = ${deletes - replayedDeletes} from watch events + ${replayedDeletes}`,
    );
    const { updates: u, creates, deletes: d } = result.writes;
    expect(u + creates + d).toBe(result.changes);
    expect(lines.join("\n")).toMatch(
      new RegExp(`the writer: ${result.changes} changes in [0-9.]+ s = ${u} updates \\+ ${creates} creates`),
    );
    // Numbers are rounded: no float noise anywhere.
    expect(lines.filter((l) => /\d\.\d{5,}/.test(l))).toEqual([]);
    expect(lines.join("\n")).toMatch(/informer_processing_latency_seconds_sum \d+(\.\d{1,3})?$/m);
    // Everything was closed: the server no longer accepts connections.
    await expect(get(result.url)).rejects.toThrow(/ECONNREFUSED/);
  }, 60_000);

  it("a fault whose expectation fails (no downtime, so no 429) fails that check and the verdict", async () => {
    const lines: string[] = [];
    const result = await runDemo({
      objects: 100,
      seconds: 1,
      rate: 100,
      seed: 2,
      downtimeMs: 0,
      out: (l) => lines.push(l),
    });
    expect(result.ok).toBe(false);
    const failed = result.checks.filter((c) => !c.ok);
    expect(failed.map((c) => c.name)).toEqual(["relist-after-reinit"]);
    // Without downtime the cache is ready again at once: no 429 (and, depending on timing, no 410 or relist either).
    expect(failed[0]?.detail).toMatch(/^no 429 while the cache was unready.* \(seen: 0× 429, /);
    expect(lines).toContain(`  ✗ ${failed[0]?.detail}`);
    expect(lines.at(-1)).toBe("1 of 3 checks FAILED: relist-after-reinit");
    expect(result.converged).toBe(true);
  }, 60_000);

  it("an aborted signal stops the demo: everything is closed, then it rejects with DemoInterruptedError", async () => {
    const ac = new AbortController();
    let url: string | undefined;
    const out = (line: string) => {
      url ??= /simulated kube-apiserver at (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
      if (line.startsWith("  synced ")) ac.abort();
    };
    const run = runDemo({ objects: 50, seconds: 30, rate: 10, seed: 1, signal: ac.signal, out });
    await expect(run).rejects.toBeInstanceOf(DemoInterruptedError);
    await expect(run).rejects.toThrow("demo interrupted");
    expect(url).toBeDefined();
    await expect(get(url ?? "")).rejects.toThrow(/ECONNREFUSED/);
    const before = new AbortController();
    before.abort();
    await expect(runDemo({ objects: 1, seconds: 1, rate: 1, seed: 1, signal: before.signal })).rejects.toBeInstanceOf(
      DemoInterruptedError,
    );
  }, 60_000);

  it("a sync that does not happen in time fails with a message naming it, after closing everything", async () => {
    const lines: string[] = [];
    // syncTimeoutMs 0: the deadline has passed at the first check, before any response could have arrived.
    const run = runDemo({ objects: 50, seconds: 1, rate: 10, seed: 1, syncTimeoutMs: 0, out: (l) => lines.push(l) });
    await expect(run).rejects.toThrow(/did not sync the 50 ConfigMaps from http:\/\/127\.0\.0\.1:\d+ within 0 ms/);
    await expect(run).rejects.toThrow(/last error: none/);
    const url = /simulated kube-apiserver at (http:\/\/127\.0\.0\.1:\d+)/.exec(lines.join("\n"))?.[1];
    expect(url).toBeDefined();
    await expect(get(url ?? "")).rejects.toThrow(/ECONNREFUSED/);
  }, 30_000);

  it("an error raised mid-run (here by the output sink) still closes the server", async () => {
    let url: string | undefined;
    const out = (line: string) => {
      url ??= /simulated kube-apiserver at (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
      if (line.startsWith("  synced ")) throw new Error("sink broke");
    };
    await expect(runDemo({ objects: 20, seconds: 1, rate: 10, seed: 1, out })).rejects.toThrow("sink broke");
    expect(url).toBeDefined();
    await expect(get(url ?? "")).rejects.toThrow(/ECONNREFUSED/);
  }, 60_000);

  it("rejects a bad option with a message naming it", async () => {
    await expect(runDemo({ objects: -1, seconds: 1, rate: 1, seed: 1, out: () => {} })).rejects.toThrow(
      "runDemo: objects must be a finite number ≥ 0, got -1",
    );
  });
});
