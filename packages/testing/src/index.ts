// Public surface of @informer-ts/testing: named exports only.

export {
  applyStep,
  type CustomStep,
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
  type CheckInformerOptions,
  checkInformer,
  formatFailure,
  type InformerCase,
  type InformerCaseInput,
  runInformerCase,
} from "./check-informer.js";
export {
  type CaseOutcome,
  type CheckResult,
  type CheckSubjectOptions,
  checkSubject,
  type FastCheckParameters,
  type NotificationSource,
  type PropertyOptions,
  runSubjectCase,
  type ServerView,
  type SubjectCase,
  type SubjectCaseInput,
  type SubjectUnderTest,
  type TimelineEntry,
} from "./check-subject.js";
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
  type ConvergenceTruth,
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
export { controllerReactionMs, type SimLatency, watchDeliveryMs } from "./latency-model.js";
export {
  type MemoryInformerContext,
  type MemoryReport,
  type MemorySample,
  type MemoryStaysBoundedOptions,
  memoryStaysBounded,
} from "./memory-stays-bounded.js";
export { itProperty, type PropertyTestOptions, propertyTest, type TestRegistrar } from "./property-test.js";
export type { HistoryResource, HistoryTarget, ResourceStep } from "./resource-steps.js";
export { type GeneratedSchema, type SchemaArbOptions, schemaArb } from "./schema-arbitrary.js";
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
