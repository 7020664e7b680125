// Public surface of @informer-ts/testing: named exports only.

export {
  applyStep,
  describeStep,
  type FaultStep,
  faultStepArb,
  type HistoryOptions,
  historyArb,
  type ObjectStep,
  objectStepArb,
  prepareNamespaces,
  type SimStep,
  simStepArb,
  type TimeStep,
  timeStepArb,
} from "./arbitraries.js";
export {
  type CheckControllerOptions,
  type ControllerCase,
  type ControllerCaseInput,
  type ControllerCaseOutcome,
  type ConvergencePredicate,
  checkController,
  controllerConverges,
  formatControllerFailure,
  type ReconcileRecord,
  runControllerCase,
} from "./check-controller.js";
export {
  type CaseOutcome,
  type CheckInformerOptions,
  type CheckResult,
  checkInformer,
  formatFailure,
  type InformerCase,
  type InformerCaseInput,
  runInformerCase,
  type TimelineEntry,
} from "./check-informer.js";
export {
  type BystanderPlan,
  bystanderHandler,
  bystandersArb,
  describeBystander,
  type HandlerBehaviour,
  handlerBehaviourArb,
} from "./handler-behaviours.js";
export {
  InProcessDispatcher,
  type InProcessDispatcherOptions,
  type InProcessExchange,
} from "./in-process-dispatcher.js";
export {
  handlerViewConverges,
  type InvariantReport,
  noLeaks,
  notificationsOrdered,
  type RecordedNotification,
  replayNotifications,
  type SyncObservation,
  storeConverges,
  syncedHonest,
} from "./invariants.js";
export {
  type MemoryInformerContext,
  type MemoryReport,
  type MemorySample,
  type MemoryStaysBoundedOptions,
  memoryStaysBounded,
} from "./memory-stays-bounded.js";
export { type ServerState, type StateResource, serverState } from "./server-state.js";
export {
  createSimCluster,
  type SettleOptions,
  type SimCluster,
  type SimClusterOptions,
  type SimFaults,
  type SimPending,
  type SimTransport,
} from "./sim-cluster.js";
