import { type CostModel, DEFAULT_COST_MODEL, type SimApiServerOptions } from "@informer-ts/sim-apiserver";

/**
 * How long things take in a simulated cluster's virtual time: `modelled` (the default of `createSimCluster` and every
 * runner) or `zero`.
 *
 * - `modelled`: every request through the cluster's client (and every direct call on `cluster.engine`) waits its
 *   latency from the simulator's request cost model ({@link DEFAULT_COST_MODEL}: the filter chain, etcd round trips
 *   and commits, keys read, watch-cache objects walked, bytes encoded — a create about 3.7 ms, a GET about 1.7 ms);
 *   a committed change reaches the watch caches, and so the open watches, one etcd round trip later
 *   ({@link watchDeliveryMs}); the simulator's own controllers (garbage collector, namespace controller) react
 *   {@link controllerReactionMs} after a change that concerns them. All of it is a pure function of the seed and the
 *   objects, so a case still replays exactly; virtual time moves only when something advances the clock (`settle`,
 *   `cluster.run`, a time step).
 * - `zero`: requests, watch delivery and the simulator's controllers take no virtual time, as before this option
 *   existed: a loop of requests (a controller re-creating what the garbage collector deletes) then runs at one
 *   virtual instant, and nothing bounds it but the runner's storm detection.
 *
 * Differences from a real cluster: the latencies are the cost model's calibrated means, without network time
 * between client and server or jitter; the client side (decoding, queues) takes no virtual time.
 */
export type SimLatency = "modelled" | "zero";

/** Virtual ms between a commit and the watch caches (and so the watches) seeing it: one etcd round trip. */
export function watchDeliveryMs(model: CostModel = DEFAULT_COST_MODEL): number {
  return model.storageRoundTripMs;
}

/**
 * Virtual ms the simulator's garbage collector and namespace controller take to act on a change: the change's watch
 * delivery to kube-controller-manager, a live GET (the collector reads an owner before deleting a dependent) and the
 * write that follows (overhead, round trip and commit) — about 6.4 ms with the default model.
 */
export function controllerReactionMs(model: CostModel = DEFAULT_COST_MODEL): number {
  const get = model.requestOverheadMs + model.storageRoundTripMs;
  const write = model.requestOverheadMs + model.storageRoundTripMs + model.storageWriteCommitMs;
  return watchDeliveryMs(model) + get + write;
}

/**
 * The engine options of a latency model (before the caller's own `engine` options, which win): for `modelled` the
 * cost model sleeping on the clock, the watch-delivery lag and the controllers' reaction delay; nothing for `zero`.
 * Throws a `RangeError` naming any other value.
 */
export function latencyEngineOptions(latency: SimLatency): Partial<SimApiServerOptions> {
  if (latency === "zero") return {};
  if (latency !== "modelled") {
    throw new RangeError(`latency must be "modelled" or "zero", got ${JSON.stringify(latency)}`);
  }
  return {
    costModel: DEFAULT_COST_MODEL,
    costModelLatency: "sleep",
    cacheLagMs: watchDeliveryMs(),
    controllers: { delayMs: controllerReactionMs() },
  };
}
