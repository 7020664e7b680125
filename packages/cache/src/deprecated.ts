// The deprecated names of @informer-ts/cache, in one place: each is an alias of the name that replaced it and
// is listed in docs/api-surface.md. They stay until the next minor release.
import type { KubeObject } from "@informer-ts/apimachinery";
import type { InformerScope } from "./informer-factory.js";
import type { ListerWatcher } from "./listwatch.js";
import type { ChangePredicate } from "./operators/predicate-filter.js";
import type { ReflectorOptions } from "./reflector/options.js";
import { Reflector } from "./reflector/reflector.js";
import type { ReflectorStore } from "./store.js";
import {
  FakeControllerSource as FakeControllerSourceClass,
  FakeWatch as FakeWatchClass,
} from "./testing/fake-controller-source.js";
import { RecordingStore as RecordingStoreClass } from "./testing/recording-store.js";
import { runUntilSettled as runUntilSettledFn } from "./testing/run-until-settled.js";
import { startRun as startRunFn } from "./testing/start-run.js";

// Reflector constructors: the Go variants that differ only by defaults. `new Reflector(lw, expectedType,
// store, options)` is the one constructor; `newNamespaceKeyedIndexerAndReflector` (it also builds the indexer)
// stays.

/**
 * `NewReflector`: a reflector named after the caller's `file:line`, with `resyncPeriod` (ms, 0 = none).
 *
 * @deprecated Use `new Reflector(lw, expectedType, store, { resyncPeriod })`.
 */
export function newReflector<T>(
  lw: ListerWatcher<T>,
  expectedType: KubeObject | undefined,
  store: ReflectorStore<T>,
  resyncPeriod: number,
): Reflector<T> {
  return new Reflector(lw, expectedType, store, { resyncPeriod });
}

/**
 * `NewNamedReflector`.
 *
 * @deprecated Use `new Reflector(lw, expectedType, store, { name, resyncPeriod })`.
 */
export function newNamedReflector<T>(
  name: string,
  lw: ListerWatcher<T>,
  expectedType: KubeObject | undefined,
  store: ReflectorStore<T>,
  resyncPeriod: number,
): Reflector<T> {
  return new Reflector(lw, expectedType, store, { name, resyncPeriod });
}

/**
 * `NewReflectorWithOptions`.
 *
 * @deprecated Use `new Reflector(lw, expectedType, store, options)`.
 */
export function newReflectorWithOptions<T>(
  lw: ListerWatcher<T>,
  expectedType: KubeObject | undefined,
  store: ReflectorStore<T>,
  options: ReflectorOptions<T>,
): Reflector<T> {
  return new Reflector(lw, expectedType, store, options);
}

// Test doubles: they moved to the `@informer-ts/cache/testing` entry point.

/**
 * The in-memory list/watch source of `@informer-ts/cache/testing`.
 *
 * @deprecated Import `FakeControllerSource` from `@informer-ts/cache/testing`.
 */
export const FakeControllerSource = FakeControllerSourceClass;
/** @deprecated Import `FakeControllerSource` from `@informer-ts/cache/testing`. */
export type FakeControllerSource<T extends KubeObject = KubeObject> = FakeControllerSourceClass<T>;

/**
 * The in-memory watch of `@informer-ts/cache/testing`.
 *
 * @deprecated Import `FakeWatch` from `@informer-ts/cache/testing`.
 */
export const FakeWatch = FakeWatchClass;
/** @deprecated Import `FakeWatch` from `@informer-ts/cache/testing`. */
export type FakeWatch<T> = FakeWatchClass<T>;

/**
 * The call-recording reflector store of `@informer-ts/cache/testing`.
 *
 * @deprecated Import `RecordingStore` from `@informer-ts/cache/testing`.
 */
export const RecordingStore = RecordingStoreClass;
/** @deprecated Import `RecordingStore` from `@informer-ts/cache/testing`. */
export type RecordingStore<T = KubeObject> = RecordingStoreClass<T>;

/**
 * Steps a fake clock until a promise settles (`@informer-ts/cache/testing`).
 *
 * @deprecated Import `runUntilSettled` from `@informer-ts/cache/testing`.
 */
export const runUntilSettled = runUntilSettledFn;

/**
 * Starts a component's `run(signal)` and returns a handle that stops it (`@informer-ts/cache/testing`).
 *
 * @deprecated Import `startRun` from `@informer-ts/cache/testing`.
 */
export const startRun = startRunFn;

// Renamed so that each name means one thing across the packages.

/**
 * What `predicateFilter` compares between two versions of an object.
 *
 * @deprecated Renamed {@link ChangePredicate}: `Predicate` is `@informer-ts/controller`'s event filter
 * (controller-runtime `predicate.Predicate`).
 */
export type Predicate<T> = ChangePredicate<T>;

/**
 * Where an informer of the factory lists and watches.
 *
 * @deprecated Renamed {@link InformerScope}: a ListerWatcher's own scope is apimachinery's `ListWatchScope`.
 */
export type ListerWatcherScope = InformerScope;
