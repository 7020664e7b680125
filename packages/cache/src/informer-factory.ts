import type { GroupVersionResource, KubeObject, ListOptions } from "@informer-ts/apimachinery";
import { newConsoleLogger, runAsObservable, SignalLink, safeLog } from "@informer-ts/instrumentation";
import type { Observable } from "rxjs";
import { metaNamespaceIndexFunc, NamespaceIndex } from "./index-funcs.js";
import { describeValue } from "./internal/meta-accessor.js";
import type { ListerWatcher } from "./listwatch.js";
import {
  newSharedIndexInformer,
  type SharedIndexInformer,
  type SharedIndexInformerOptions,
} from "./shared-informer.js";
import type { TransformFunc } from "./transform-func.js";
import { waitFor } from "./wait-for-cache-sync.js";

/**
 * What a factory keys its informers by: a {@link GroupVersionResource} (apimachinery), optionally with its kind.
 * `group` is "" for the core API. apimachinery's `ResourceDescriptor` (the client's `resources` table) and the
 * simulated server's resources fit this shape.
 */
export interface InformerResource extends GroupVersionResource {
  /** e.g. `"Pod"`; used for type checks and names when present. */
  readonly kind?: string;
}

/**
 * The identity an {@link SharedInformerFactory} keys informers by: `resource.version.group` (kubectl style),
 * or `resource.version` for the core group, e.g. `"pods.v1"`, `"deployments.v1.apps"`.
 */
export function resourceKey(resource: InformerResource): string {
  const base = `${resource.resource}.${resource.version}`;
  return resource.group === "" ? base : `${base}.${resource.group}`;
}

/** Where an informer of the factory lists and watches: `namespace` is "" for all namespaces. */
export interface InformerScope {
  readonly namespace: string;
}

/**
 * Builds the {@link ListerWatcher} of a resource in a namespace (for example `@informer-ts/client`'s
 * `listWatchFor`, or the simulated server's in-process lister-watcher). The factory applies
 * `withTweakListOptions` on top, so this function does not need to.
 */
export type ListerWatcherFor<R extends InformerResource, T> = (resource: R, scope: InformerScope) => ListerWatcher<T>;

/** `internalinterfaces.TweakListOptionsFunc`: edits (or returns a replacement for) every list and watch request's options. */
export type TweakListOptionsFunc = (options: ListOptions) => ListOptions | undefined;

/** Creates the informer for a resource (`internalinterfaces.NewInformerFunc`); see {@link SharedInformerFactory.informerFor}. */
export type NewInformerFunc<R extends InformerResource, T> = (
  listerWatcher: ListerWatcher<T>,
  resource: R,
  resyncPeriod: number,
) => SharedIndexInformer<T>;

/** The settings {@link SharedInformerOption}s edit. */
export interface SharedInformerFactoryConfig<T> {
  namespace: string;
  tweakListOptions: TweakListOptionsFunc | undefined;
  /** Resync period per {@link resourceKey}, overriding the default. */
  customResync: Map<string, number>;
  transform: TransformFunc<T> | undefined;
  /** The `name` label of the informers' metrics (`WithInformerName`). */
  informerName: string | undefined;
  /** Options given to every informer the factory creates (clock, rand, metrics, fifo, error policy…). */
  informerOptions: SharedIndexInformerOptions<T>;
}

/** A functional option of {@link newSharedInformerFactoryWithOptions} (`informers.SharedInformerOption`). */
export type SharedInformerOption<T = unknown> = (config: SharedInformerFactoryConfig<T>) => void;

/** `WithNamespace`: limits every informer to `namespace` ("" = all namespaces, the default). */
export function withNamespace<T = unknown>(namespace: string): SharedInformerOption<T> {
  if (typeof namespace !== "string") throw new TypeError(`namespace must be a string, got ${describeValue(namespace)}`);
  return (c) => {
    c.namespace = namespace;
  };
}

/** `WithTweakListOptions`: applied to the options of every list and watch request (label selectors…). */
export function withTweakListOptions<T = unknown>(tweak: TweakListOptionsFunc): SharedInformerOption<T> {
  if (typeof tweak !== "function") throw new TypeError(`tweakListOptions is not a function: ${describeValue(tweak)}`);
  return (c) => {
    c.tweakListOptions = tweak;
  };
}

/** `WithCustomResyncConfig`: resync periods (ms) per resource, overriding the factory default. */
export function withCustomResyncConfig<T = unknown>(
  config: ReadonlyMap<InformerResource | string, number> | Readonly<Record<string, number>>,
): SharedInformerOption<T> {
  const entries: [InformerResource | string, number][] =
    config instanceof Map ? [...config.entries()] : Object.entries(config as Record<string, number>);
  for (const [, ms] of entries) {
    if (!(ms >= 0) || !Number.isFinite(ms)) throw new RangeError(`custom resync period must be ≥ 0 ms, got ${ms}`);
  }
  return (c) => {
    for (const [r, ms] of entries) c.customResync.set(typeof r === "string" ? r : resourceKey(r), ms);
  };
}

/** `WithTransform`: sets the transform of every informer the factory creates. */
export function withTransform<T>(transform: TransformFunc<T>): SharedInformerOption<T> {
  if (typeof transform !== "function") throw new TypeError(`transform is not a function: ${describeValue(transform)}`);
  return (c) => {
    c.transform = transform;
  };
}

/** `WithInformerName`: the `name` label of the informers' metrics (needs `metrics` in `withInformerOptions`). */
export function withInformerName<T = unknown>(name: string): SharedInformerOption<T> {
  return (c) => {
    c.informerName = name;
  };
}

/** Options passed to every informer the factory creates (clock, rand, metrics, fifo mode, handler error policy…). */
export function withInformerOptions<T>(options: SharedIndexInformerOptions<T>): SharedInformerOption<T> {
  return (c) => {
    c.informerOptions = { ...c.informerOptions, ...options };
  };
}

/** `cache.SyncResult`: what {@link SharedInformerFactory.waitForCacheSync} found. */
export interface SyncResult {
  /** `undefined` when every started informer synced; otherwise why waiting stopped (the signal's reason). */
  readonly err: unknown;
  /** {@link resourceKey} → synced, for every started informer. */
  readonly synced: ReadonlyMap<string, boolean>;
}

/** `SyncResult.AsError`: `undefined` if all synced, else an error naming the unsynced informers. */
export function syncResultAsError(result: SyncResult): Error | undefined {
  if (result.err === undefined) return undefined;
  const unsynced = [...result.synced].filter(([, ok]) => !ok).map(([k]) => k);
  unsynced.sort();
  const reason = result.err instanceof Error ? result.err.message : String(result.err);
  return new Error(`failed to sync all caches: ${unsynced.join(", ")}: ${reason}`, { cause: result.err });
}

const defaultLogger = newConsoleLogger("informer-factory");

/**
 * Shares one informer per resource (`informers.SharedInformerFactory` and the dynamic factory, X1–X5).
 *
 * - {@link SharedInformerFactory.informerFor} returns the existing informer for a resource, or creates one with
 *   the resource's custom resync (else the default), the factory's transform, namespace and list tweak (X1, X2).
 * - {@link SharedInformerFactory.start} runs every informer not yet started; informers created later need another
 *   `start`; a no-op after `shutdown` (X3).
 * - {@link SharedInformerFactory.waitForCacheSync} waits for the **started** informers only (X4).
 * - {@link SharedInformerFactory.shutdown} refuses further starts and resolves once every started informer has
 *   stopped, which happens when the signals they were started with abort (X5).
 *
 * Usage:
 * ```ts
 * const factory = newSharedInformerFactory(
 *   (r: ResourceDescriptor, { namespace }) => listWatchFor(client, r, { namespace }), // @informer-ts/client
 *   0,
 * );
 * const pods = factory.informerFor(builtinResources.pods);
 * const reg = pods.addEventHandler(handler);
 * factory.start(signal);
 * const result = await factory.waitForCacheSync(signal);
 * if (syncResultAsError(result)) throw syncResultAsError(result);
 * await waitForCacheSync(signal, reg.hasSynced);
 * ```
 *
 * Differences from client-go: informers are keyed by {@link resourceKey} (Go keys typed factories by Go type);
 * the lister-watcher comes from a function instead of a clientset; informers get the namespace index by
 * default, as client-go's generated informers do; `waitForCacheSync` returns the v0.36 `SyncResult`.
 */
export class SharedInformerFactory<R extends InformerResource = InformerResource, T = unknown> {
  private readonly informers = new Map<string, SharedIndexInformer<T>>();
  private readonly startedInformers = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private shuttingDown = false;

  constructor(
    private readonly listerWatcherFor: ListerWatcherFor<R, T>,
    private readonly defaultResync: number,
    private readonly config: SharedInformerFactoryConfig<T>,
  ) {
    if (typeof listerWatcherFor !== "function") {
      throw new TypeError(`listerWatcherFor is not a function: ${describeValue(listerWatcherFor)}`);
    }
    if (!(defaultResync >= 0) || !Number.isFinite(defaultResync)) {
      throw new RangeError(`defaultResync must be ≥ 0 ms, got ${defaultResync}`);
    }
  }

  /** The namespace the factory's informers are limited to ("" = all). */
  get namespace(): string {
    return this.config.namespace;
  }

  /**
   * The informer for `resource`: the existing one, or a new one (not started) built by `newFunc` (default: a
   * shared index informer with the namespace index) from the scoped, tweaked lister-watcher.
   */
  informerFor(resource: R, newFunc?: NewInformerFunc<R, T>): SharedIndexInformer<T> {
    const key = resourceKey(resource);
    const existing = this.informers.get(key);
    if (existing !== undefined) return existing;
    const resync = this.config.customResync.get(key) ?? this.defaultResync;
    const lw = this.tweaked(this.listerWatcherFor(resource, { namespace: this.config.namespace }));
    const informer =
      newFunc !== undefined ? newFunc(lw, resource, resync) : this.defaultInformer(lw, resource, resync, key);
    if (this.config.transform !== undefined) informer.setTransform(this.config.transform);
    this.informers.set(key, informer);
    return informer;
  }

  /** The informers created so far, by {@link resourceKey}. */
  list(): ReadonlyMap<string, SharedIndexInformer<T>> {
    return new Map(this.informers);
  }

  /** Runs every informer not yet started until `signal` aborts (X3). Idempotent; a no-op after `shutdown`. */
  start(signal: AbortSignal): void {
    if (this.shuttingDown) return;
    for (const [key, informer] of this.informers) {
      if (this.startedInformers.has(key)) continue;
      this.startedInformers.add(key);
      // Each informer holds one shared-listener link on `signal` (SignalLink), so 50 informers started with
      // one signal leave a single listener on it, and none once they have stopped.
      const p: Promise<void> = informer
        .run(signal)
        .catch((err: unknown) => {
          safeLog(
            this.config.informerOptions.logger ?? defaultLogger,
            "error",
            `informer ${key} failed: ${err instanceof Error ? err.message : String(err)}`,
            { informer: key },
          );
        })
        .finally(() => this.running.delete(p));
      this.running.add(p);
    }
  }

  /**
   * Waits until every started informer has synced, or `signal` aborts (X4). Never rejects: the result lists each
   * started informer's state and, if some did not sync, the signal's reason as `err`.
   */
  async waitForCacheSync(signal?: AbortSignal): Promise<SyncResult> {
    const informers = [...this.informers].filter(([key]) => this.startedInformers.has(key));
    await waitFor(signal, ...informers.map(([, i]) => i.hasSyncedChecker()));
    const synced = new Map<string, boolean>();
    let failed = false;
    for (const [key, informer] of informers) {
      const ok = informer.hasSynced();
      if (!ok) failed = true;
      synced.set(key, ok);
    }
    const err = failed ? (signal?.reason ?? new Error("waiting for cache sync was stopped")) : undefined;
    return { err, synced };
  }

  /**
   * The factory's lifecycle in one call: starts every informer created so far (as {@link SharedInformerFactory.start})
   * and resolves once `signal` has aborted and every started informer has stopped and released what it held.
   * Informers created while it runs need a {@link SharedInformerFactory.start} with the same signal.
   */
  async run(signal: AbortSignal): Promise<void> {
    this.start(signal);
    if (!signal.aborted) {
      const link = new SignalLink(signal);
      await new Promise<void>((resolve) => link.signal.addEventListener("abort", () => resolve(), { once: true }));
      link.release();
    }
    await this.shutdown();
  }

  /** {@link SharedInformerFactory.run} as an Observable: the subscription is the run; completes once stopped. */
  run$(): Observable<never> {
    return runAsObservable((signal) => this.run(signal));
  }

  /**
   * Marks the factory as shutting down (later `start` calls do nothing) and resolves once every started informer
   * has stopped (X5). Safe to call repeatedly and concurrently.
   */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  private defaultInformer(lw: ListerWatcher<T>, resource: R, resync: number, key: string): SharedIndexInformer<T> {
    const base = this.config.informerOptions;
    const objectType: KubeObject | undefined =
      resource.kind === undefined
        ? undefined
        : {
            kind: resource.kind,
            apiVersion: resource.group === "" ? resource.version : `${resource.group}/${resource.version}`,
          };
    const name = this.config.informerName;
    return newSharedIndexInformer<T>(lw, objectType, {
      ...base,
      name: base.name ?? key,
      resyncPeriod: resync,
      indexers: { [NamespaceIndex]: metaNamespaceIndexFunc, ...base.indexers },
      metricLabels:
        base.metricLabels ??
        (name === undefined
          ? undefined
          : { name, group: resource.group, version: resource.version, resource: resource.resource }),
    });
  }

  private tweaked(lw: ListerWatcher<T>): ListerWatcher<T> {
    const tweak = this.config.tweakListOptions;
    if (tweak === undefined) return lw;
    const apply = (options: ListOptions): ListOptions => {
      const copy: ListOptions = { ...options };
      return tweak(copy) ?? copy;
    };
    return {
      list: (options, signal) => lw.list(apply(options), signal),
      watch: (options, signal) => lw.watch(apply(options), signal),
      ...(lw.watchListSemanticsUnsupported === undefined
        ? {}
        : { watchListSemanticsUnsupported: lw.watchListSemanticsUnsupported }),
    };
  }
}

/** `informers.NewSharedInformerFactoryWithOptions`: a factory with a default resync period (ms) and options. */
export function newSharedInformerFactoryWithOptions<R extends InformerResource, T = unknown>(
  listerWatcherFor: ListerWatcherFor<R, T>,
  defaultResync: number,
  ...options: SharedInformerOption<T>[]
): SharedInformerFactory<R, T> {
  const config: SharedInformerFactoryConfig<T> = {
    namespace: "",
    tweakListOptions: undefined,
    customResync: new Map(),
    transform: undefined,
    informerName: undefined,
    informerOptions: {},
  };
  for (const opt of options) opt(config);
  return new SharedInformerFactory<R, T>(listerWatcherFor, defaultResync, config);
}

/** `informers.NewSharedInformerFactory`: all namespaces, no options. */
export function newSharedInformerFactory<R extends InformerResource, T = unknown>(
  listerWatcherFor: ListerWatcherFor<R, T>,
  defaultResync: number,
): SharedInformerFactory<R, T> {
  return newSharedInformerFactoryWithOptions<R, T>(listerWatcherFor, defaultResync);
}
