// Public surface of @informer-ts/testing: named exports only.
export {
  InProcessDispatcher,
  type InProcessDispatcherOptions,
  type InProcessExchange,
} from "./in-process-dispatcher.js";
export {
  createSimCluster,
  type SettleOptions,
  type SimCluster,
  type SimClusterOptions,
  type SimFaults,
  type SimPending,
  type SimTransport,
} from "./sim-cluster.js";
