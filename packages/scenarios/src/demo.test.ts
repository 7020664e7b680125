// runDemo in-process: the same demo the CLI runs (real HTTP on 127.0.0.1, the real clock by design: the demo's own
// pacing is what is under test), at a small size so it stays a few seconds. The test itself never sleeps.
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { runDemo } from "./demo.js";

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
  it("converges: the store equals the server's storage after a dropped watch and a cache re-init", async () => {
    const lines: string[] = [];
    const result = await runDemo({ objects: 300, seconds: 2, rate: 100, seed: 3, out: (l) => lines.push(l) });
    expect(result.mismatch).toBeUndefined();
    expect(result.converged).toBe(true);
    expect(result.serverSize).toBe(result.storeSize);
    expect(result.changes).toBeGreaterThan(0);
    // The re-initialization empties the watch cache's history: the reflector's RV is too old (410) and it relists.
    expect(result.relists.expired ?? 0).toBeGreaterThanOrEqual(1);
    const watchRequests = Object.entries(result.serverRequests)
      .filter(([key]) => key.startsWith("watch "))
      .reduce((sum, [, n]) => sum + n, 0);
    expect(watchRequests).toBeGreaterThanOrEqual(1);
    expect(lines).toContain(
      `converged: store holds ${result.storeSize} objects, equal to the apiserver's (${result.changes} changes applied)`,
    );
    // Everything was closed: the server no longer accepts connections.
    await expect(get(result.url)).rejects.toThrow(/ECONNREFUSED/);
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
