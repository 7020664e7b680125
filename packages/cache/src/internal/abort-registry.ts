// The shared-listener registry lives in `@informer-ts/instrumentation` (one mechanism for every package: cache,
// workqueue, sim-apiserver). Re-exported here so the reflector's import keeps working.
export { onAbort } from "@informer-ts/instrumentation";
