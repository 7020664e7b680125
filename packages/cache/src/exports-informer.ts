// Named re-exports owned by the informer work; consolidated into index.ts later.
export {
  type InformerResource,
  type ListerWatcherFor,
  type ListerWatcherScope,
  type NewInformerFunc,
  newSharedInformerFactory,
  newSharedInformerFactoryWithOptions,
  resourceKey,
  SharedInformerFactory,
  type SharedInformerFactoryConfig,
  type SharedInformerOption,
  type SyncResult,
  syncResultAsError,
  type TweakListOptionsFunc,
  withCustomResyncConfig,
  withInformerName,
  withInformerOptions,
  withNamespace,
  withTransform,
  withTweakListOptions,
} from "./informer-factory.js";
export {
  type HandlerErrorCallback,
  type HandlerErrorInfo,
  handlerErrorBackoffMs,
  initialBufferSize,
  type ListenerEvent,
  type ListenerEventSink,
  type ListenerHandler,
  type ListenerStats,
  type Notification,
  ProcessorListener,
  type ProcessorListenerOptions,
  type ResourceEventHandlerRegistration,
} from "./processor-listener.js";
export {
  type HandlerOptions,
  type InformerFifoMode,
  type InformerReflectorOptions,
  newSharedIndexInformer,
  newSharedInformer,
  type SharedIndexInformer,
  type SharedIndexInformerOptions,
  type SharedInformer,
  type SharedInformerEvent,
  type SharedInformerStatus,
  shutDownEventHandler,
} from "./shared-informer.js";
export { determineResyncPeriod, minimumResyncPeriod, SharedProcessor } from "./shared-processor.js";
export { AsyncTracker, type DoneChecker, DoneLatch, SingleFileTracker, SyncTrackerError } from "./synctrack.js";
export {
  type InformerSynced,
  syncedPollPeriod,
  type WaitForCacheSyncOptions,
  waitFor,
  waitForCacheSync,
} from "./wait-for-cache-sync.js";
