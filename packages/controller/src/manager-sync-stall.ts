// The manager's informer sync watch: while the caches have not synced, say which informers are stuck and why.
import type { KubeObject } from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import type { Clock, Timer } from "@informer-ts/clock";
import { type Logger, safeLog } from "@informer-ts/instrumentation";

/**
 * Why `informer` has not synced, as log fields: its reflector's phase and last error (`code`, `reason`, the phase it
 * failed in and the message), so a 403 reads differently from a resource the server does not serve (404).
 */
export function syncStallFields(key: string, informer: SharedIndexInformer<KubeObject>): Record<string, unknown> {
  const r = informer.status().reflector;
  const e = r?.lastError;
  return {
    informer: key,
    phase: r?.phase ?? "not started",
    ...(e !== undefined && {
      error: e.message,
      during: e.during,
      ...(e.code !== undefined && { code: e.code }),
      ...(e.reason !== undefined && { reason: e.reason }),
      ...(e.errno !== undefined && { errno: e.errno }),
    }),
  };
}

/**
 * Every `period` ms until stopped, logs one `warn` line (`Informer has not synced yet`) per started, unsynced
 * informer of `informers()` with {@link syncStallFields}. Returns the stop function.
 */
export function watchSyncStalls(
  informers: () => Iterable<[string, SharedIndexInformer<KubeObject>]>,
  clock: Clock,
  period: number,
  logger: Logger,
): () => void {
  let timer: Timer | undefined;
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    for (const [key, inf] of informers()) {
      if (inf.hasStarted() && !inf.hasSynced()) {
        safeLog(logger, "warn", "Informer has not synced yet", { ...syncStallFields(key, inf), waited: period });
      }
    }
    timer = clock.afterFunc(period, tick);
  };
  if (period > 0 && Number.isFinite(period)) timer = clock.afterFunc(period, tick);
  return () => {
    stopped = true;
    timer?.stop();
  };
}
