export {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  defaultItemBasedRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  type TypedRateLimiter,
  WithMaxWaitRateLimiter,
} from "./default-rate-limiters.js";
export {
  DelayingQueue,
  type DelayingQueueConfig,
  maxWait,
  type TypedDelayingInterface,
} from "./delaying-queue.js";
export { setProvider, workqueueMetrics } from "./metrics.js";
export { type DoWorkPieceFunc, type ParallelizeOptions, parallelizeUntil } from "./parallelizer.js";
export {
  type DrainSemantics,
  defaultQueue,
  defaultUnfinishedWorkUpdatePeriod,
  type GetResult,
  Queue,
  type QueueConfig,
  type QueueStorage,
  type TypedInterface,
} from "./queue.js";
export { every, Inf, InfDuration, Limiter, Reservation } from "./rate.js";
export {
  RateLimitingQueue,
  type RateLimitingQueueConfig,
  type TypedRateLimitingInterface,
} from "./rate-limiting-queue.js";
export { type ProcessItemFunc, type RunWorkersOptions, runWorkers } from "./run-workers.js";
