// The end of every generated case: the run under test was told to stop (its signal aborted); wait for it in virtual
// time, stop the engine, let armed timers run out, release the client's keep-alive sockets over HTTP, and report
// whether the run stopped in time and whether anything leaked.
import { type InvariantReport, noLeaks } from "../invariants.js";
import type { SimCluster } from "../sim-cluster.js";

/** What {@link stopCase} waits for. */
export interface StopCaseOptions {
  /** Names the run in the "stops" violation, e.g. "informer.run". */
  readonly what: string;
  /** True once the run's promise settled. */
  readonly stopped: () => boolean;
  /** Virtual ms the run may take to stop. */
  readonly withinMs: number;
  /** Also waited for before giving up the stop wait (e.g. every watch closed). Default: nothing more. */
  readonly alsoUntil?: () => boolean;
}

/**
 * Waits up to `withinMs` of virtual time for the run to stop (it may need virtual time: a slow handler sleeping on
 * the clock, so it is never awaited without moving time), then stops the engine and reports `stops` (when it did
 * not) and `noLeaks`. Timers already armed (a latency sleep, a backoff) may still run out: what is left after a
 * virtual minute leaked.
 */
export async function stopCase(cluster: SimCluster, o: StopCaseOptions): Promise<InvariantReport[]> {
  const reports: InvariantReport[] = [];
  const also = o.alsoUntil ?? (() => true);
  await cluster.settle({ maxMs: o.withinMs, until: () => o.stopped() && also() }).catch(() => undefined);
  if (!o.stopped()) {
    reports.push({
      name: "stops",
      ok: false,
      violations: [`${o.what} did not return within ${o.withinMs / 1000} s of virtual time after its signal aborted`],
    });
  }
  cluster.engine.stop();
  await cluster.settle({ maxMs: 60_000, noTimers: true }).catch(() => undefined);
  if (cluster.transport === "http") {
    // Idle keep-alive sockets belong to the client's pool, not to the run: close it, then let the server see.
    await cluster.client.close();
    for (let i = 0; i < 1000 && cluster.server.connections > 0; i++) {
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  reports.push(noLeaks(cluster));
  return reports;
}
