// Waits until an external client (kubectl, the Python client) has its watch open on the simulated apiserver, so a
// test writes only after the watch can see the write. The client is a real process on real time, so this polls the
// engine's state; it fails with the state it saw rather than waiting forever.
import type { SimHandle } from "./sim.js";

function openWatches(sim: SimHandle, resource: string): number {
  const caches = sim.engine.state().caches as Record<string, { watchers?: number } | undefined>;
  return caches[resource]?.watchers ?? 0;
}

/** Resolves once the `resource` (group-resource string, e.g. "configmaps") cache has more than `before` watchers. */
export async function watchOpened(sim: SimHandle, resource: string, before = 0, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (openWatches(sim, resource) <= before) {
    if (Date.now() > deadline)
      throw new Error(
        `no watch on ${resource} opened within ${timeoutMs} ms (cache state: ${JSON.stringify(sim.engine.state().caches)})`,
      );
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
