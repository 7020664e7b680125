// Named re-exports owned by the fifo work; consolidated into index.ts later.
export {
  FilteringResourceEventHandler,
  type FilteringResourceEventHandlerOptions,
  newQueueFIFO,
  type ProcessLoopOptions,
  processDeltas,
  processDeltasInBatch,
  processLoop,
  type QueueFIFOOptions,
  type ResourceEventHandler,
  ResourceEventHandlerDetailedFuncs,
  type ResourceEventHandlerDetailedFuncsOptions,
  ResourceEventHandlerFuncs,
  type ResourceEventHandlerFuncsOptions,
} from "./controller.js";
export {
  type BookmarkInfo,
  type Delta,
  type Deltas,
  DeltaType,
  isDelta,
  newest,
  oldest,
  type ReplacedAllInfo,
  type SyncAllInfo,
} from "./delta.js";
export { DeltaFIFO, type DeltaFIFOOptions, dedupDeltas } from "./delta-fifo.js";
export {
  ErrFIFOClosed,
  FIFOClosedError,
  isFIFOClosedError,
  type KeyListerGetter,
  type PopProcessFunc,
  type ProcessBatchFunc,
  type Queue,
  type QueueWithBatch,
  type TransformingStore,
} from "./fifo.js";
export type { FIFOEvent } from "./internal/fifo-core.js";
export {
  defaultBatchSize,
  type FIFOMetricsOptions,
  informerProcessingLatencyBuckets,
  RealFIFO,
  type RealFIFOOptions,
} from "./the-real-fifo.js";
