// Named re-exports owned by the store work; consolidated into index.ts later.
export { indexFuncToKeyFuncAdapter, metaNamespaceIndexFunc, NamespaceIndex } from "./index-funcs.js";
export {
  deletionHandlingMetaNamespaceKeyFunc,
  type ExplicitKey,
  explicitKey,
  metaNamespaceKeyFunc,
  splitMetaNamespaceKey,
} from "./keys.js";
export {
  firstDifferencePath,
  MutationDetectedError,
  type MutationDetector,
  type MutationDetectorEvent,
  type MutationDetectorMode,
  type MutationDetectorOptions,
  type MutationReport,
  mutationDetectionEnabledFromEnv,
  newCacheMutationDetector,
  type ObjectMutation,
} from "./mutation-detector.js";
export {
  deletionHandlingObjectToName,
  metaObjectToName,
  newObjectName,
  ObjectName,
  objectToName,
  parseObjectName,
} from "./object-names.js";
export {
  newIndexer,
  newStore,
  type StoreOptions,
  type StoreWithTransactions,
  type TransformFunc,
} from "./store-impl.js";
export {
  type InformerMetricLabels,
  newThreadSafeStore,
  type StoreMetricsOptions,
  type ThreadSafeStore,
  type ThreadSafeStoreOptions,
} from "./thread-safe-store.js";
export { DeletedFinalStateUnknown, isDeletedFinalStateUnknown } from "./tombstone.js";
export {
  type ThreadSafeStoreTransaction,
  type Transaction,
  TransactionError,
  type TransactionStore,
  type TransactionType,
} from "./transaction.js";
