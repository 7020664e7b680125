// The engine's request filters and models: faults (HTTP, in-process), accounting and audit, APF work
// estimation and the cost model with its calibration, request latency, traces, requests in flight. These are the
// names the other engine folders may use.
export { RequestAccounting, type RequestRecord } from "./accounting.js";
export {
  type CostInput,
  type CostModel,
  costModelFor,
  type RequestCost,
  requestCost,
  validateCostModel,
} from "./cost-model.js";
export { encodedSize, listEnvelopeSize } from "./encoded-size.js";
export {
  type HttpFault,
  HttpFaultInjector,
  type HttpFaultRule,
  type HttpFaultState,
  type HttpRequestDescriptor,
  parseHttpFaultRule,
} from "./http-faults.js";
export { inProcessFault, SimConnectionError } from "./in-process-faults.js";
export type { ResourceStats } from "./list-work-estimator.js";
export {
  MAX_WATCH_CHAN_SIZE_WITH_INDEX_AND_TRIGGER,
  MAX_WATCH_CHAN_SIZE_WITH_INDEX_WITHOUT_TRIGGER,
  MAX_WATCH_CHAN_SIZE_WITHOUT_INDEX,
  MIN_WATCH_CHAN_SIZE,
  TRACE_LOG_THRESHOLD_MS,
  WATCH_FIXED_OVERHEAD_BYTES,
  WATCH_INPUT_SLOT_BYTES,
  WATCH_RESULT_SLOT_BYTES,
} from "./model-calibration.js";
export { ObjectCountTracker } from "./object-count-tracker.js";
export {
  type FilteredRequest,
  type RequestEnd,
  type RequestFilterPorts,
  RequestFilters,
} from "./request-filters.js";
export type { RequestInFlight } from "./request-in-flight.js";
export { type LatencyRule, RequestLatency } from "./request-latency.js";
export { handlerSteps, newRequestTrace } from "./request-trace.js";
export { formatGoDuration, type Trace } from "./trace.js";
export { unansweredRequestStatus } from "./unanswered-request.js";
