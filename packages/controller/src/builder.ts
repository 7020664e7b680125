import type { KubeObject } from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import type { ResourceDescriptor } from "@informer-ts/client";
import type { Clock } from "@informer-ts/clock";
import type { Logger, MetricsProvider } from "@informer-ts/instrumentation";
import { checkResource } from "./check-resource.js";
import { Controller, type ControllerOptions, type WatchSource } from "./controller.js";
import { containsFinalizer, patchAddFinalizer, patchRemoveFinalizer, validateFinalizerName } from "./finalizer.js";
import {
  type EnqueueRequestForOwnerOptions,
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsFromMapFunc,
  type MapFunc,
} from "./handler.js";
import type { ObjectClient } from "./object-client.js";
import type { Predicate } from "./predicate.js";
import type { ReconcileContext, Reconciler, Result } from "./reconciler.js";
import { type Request, requestKey } from "./request.js";

/**
 * What a {@link ControllerBuilder} builds on: the shared informers (one per resource), and the clock, metrics and client
 * its controllers use. A {@link Manager} is one; `add` registers the built controller so the manager runs it.
 */
export interface ControllerContext {
  /** The shared informer of a resource (the same one for every controller asking). */
  informerFor(resource: ResourceDescriptor): SharedIndexInformer<KubeObject>;
  readonly clock?: Clock;
  readonly metrics?: MetricsProvider;
  /** Needed by `finalize` (the finalizer patches). */
  readonly client?: ObjectClient;
  /** The controllers' logger unless their options name one (a {@link Manager}'s logger). */
  readonly logger?: Logger;
  /** Asked before every reconcile of a controller that needs leader election (the manager's leader fencing). */
  readonly admitReconcile?: () => boolean;
  /** Called with every controller `complete` builds. */
  add?(controller: Controller): void;
}

/** Options of a watch: its predicates (all must pass). */
export interface WatchOptions {
  readonly predicates?: readonly Predicate<KubeObject>[];
}

/** Options of `owns`. */
export interface OwnsOptions extends WatchOptions, EnqueueRequestForOwnerOptions {}

/** Controller options a builder passes through (`WithOptions`). */
export type BuilderControllerOptions = Omit<ControllerOptions, "name" | "reconciler" | "watches" | "clock" | "metrics">;

/**
 * Runs when the `for` object has a `deletionTimestamp` and still lists the builder's finalizer. When it resolves the
 * finalizer is removed by patch; when it throws, the key is retried with backoff and the finalizer stays.
 */
export type FinalizeHook = (object: KubeObject, ctx: ReconcileContext) => unknown;

/**
 * Builds a {@link Controller} (controller-runtime's `builder.Builder`): `for(resource)` is the reconciled resource,
 * `owns(resource)` enqueues the controlling owner of each child, `watches(resource, map)` maps any object to requests,
 * `withEventFilter` adds predicates to every watch, `finalize(name, hook)` adds finalizer handling, and
 * `complete(reconcile)` builds the controller (and registers it with the manager, if the context is one).
 *
 * Every resource is watched through the context's shared informer, so two controllers watching ConfigMaps share one
 * watch. Building validates everything and throws an `Error` naming what is missing or wrong.
 */
export class ControllerBuilder {
  private forResource: ResourceDescriptor | undefined;
  private forPredicates: readonly Predicate<KubeObject>[] = [];
  private readonly sources: {
    resource: ResourceDescriptor;
    handler: WatchSource["handler"];
    predicates: readonly Predicate<KubeObject>[];
    name: string;
  }[] = [];
  private readonly globalPredicates: Predicate<KubeObject>[] = [];
  private controllerName: string | undefined;
  private options: BuilderControllerOptions = {};
  private finalizer: { name: string; hook: FinalizeHook } | undefined;
  /** `owns` sources, resolved against the `for` resource (known only at `complete`). */
  private readonly pending: ((forR: ResourceDescriptor) => ControllerBuilder["sources"][number])[] = [];

  constructor(private readonly context: ControllerContext) {}

  /** The resource this controller reconciles (`For`); required, once. */
  for(resource: ResourceDescriptor, options: WatchOptions = {}): this {
    if (this.forResource !== undefined) {
      throw new Error(
        `for() was already called with ${this.forResource.resource}; a controller reconciles one resource`,
      );
    }
    checkResource(resource, "for()");
    this.forResource = resource;
    this.forPredicates = options.predicates ?? [];
    return this;
  }

  /**
   * A child resource (`Owns`): each change enqueues the child's controlling owner of the `for` resource's group and
   * kind (the owner's namespace is the child's).
   */
  owns(resource: ResourceDescriptor, options: OwnsOptions = {}): this {
    checkResource(resource, "owns()");
    this.pending.push((forR) => ({
      resource,
      handler: enqueueRequestForOwner(
        { group: forR.group, kind: forR.kind, namespaced: forR.namespaced },
        options.onlyControllerOwner === undefined ? {} : { onlyControllerOwner: options.onlyControllerOwner },
      ),
      predicates: options.predicates ?? [],
      name: `owns:${resource.resource}`,
    }));
    return this;
  }

  /** Any resource whose objects map to requests through `map` (`Watches` + `EnqueueRequestsFromMapFunc`). */
  watches(resource: ResourceDescriptor, map: MapFunc<KubeObject>, options: WatchOptions = {}): this {
    checkResource(resource, "watches()");
    if (typeof map !== "function") throw new TypeError(`watches(${resource.resource}): map must be a function`);
    this.sources.push({
      resource,
      handler: enqueueRequestsFromMapFunc(map),
      predicates: options.predicates ?? [],
      name: `watches:${resource.resource}`,
    });
    return this;
  }

  /** Predicates applied to every watch (`WithEventFilter`). */
  withEventFilter(predicate: Predicate<KubeObject>): this {
    this.globalPredicates.push(predicate);
    return this;
  }

  /** The controller's name (`Named`). Default: the lower-case kind of the `for` resource. */
  named(name: string): this {
    this.controllerName = name;
    return this;
  }

  /** Controller options (`WithOptions`): workers, rate limiter, timeouts. */
  withOptions(options: BuilderControllerOptions): this {
    this.options = { ...this.options, ...options };
    return this;
  }

  /**
   * Finalizer handling: while the `for` object is not being deleted, the finalizer is added (by patch) before the
   * reconcile runs; once it has a `deletionTimestamp` and still lists the finalizer, `hook` runs instead of the
   * reconcile, and on success the finalizer is removed. Needs `client` in the context. The name must be a qualified
   * name (`example.com/cleanup`).
   */
  finalize(finalizer: string, hook: FinalizeHook): this {
    validateFinalizerName(finalizer);
    if (typeof hook !== "function") throw new TypeError(`finalize(${finalizer}): hook must be a function`);
    this.finalizer = { name: finalizer, hook };
    return this;
  }

  /** Builds the controller, registers it with the context (`add`) and returns it (`Complete` / `Build`). */
  complete(reconciler: Reconciler): Controller {
    const forR = this.forResource;
    if (forR === undefined) throw new Error("must provide a resource for reconciliation: call for() before complete()");
    if (typeof reconciler !== "function") throw new TypeError("complete(): reconciler must be a function");
    const name = this.controllerName ?? forR.kind.toLowerCase();
    const global = this.globalPredicates;
    const forInformer = this.context.informerFor(forR);
    const watches: WatchSource[] = [
      {
        informer: forInformer,
        handler: enqueueRequestForObject(),
        predicates: [...global, ...this.forPredicates],
        keyFallback: true,
        name: `for:${forR.resource}`,
      },
      ...[...this.sources, ...this.pending.map((p) => p(forR))].map((s) => ({
        informer: this.context.informerFor(s.resource),
        handler: s.handler,
        predicates: [...global, ...s.predicates],
        name: s.name,
      })),
    ];
    let effective = reconciler;
    if (this.finalizer !== undefined) {
      const client = this.context.client;
      if (client === undefined)
        throw new Error(`controller ${name}: finalize() needs a client in the controller context`);
      effective = withFinalizer(
        reconciler,
        this.finalizer.name,
        this.finalizer.hook,
        forR,
        forInformer,
        client,
        this.context.clock,
      );
    }
    const controller = new Controller({
      ...this.options,
      name,
      reconciler: effective,
      watches,
      ...(this.context.clock !== undefined && { clock: this.context.clock }),
      ...(this.context.metrics !== undefined && { metrics: this.context.metrics }),
      forKind: { group: forR.group, kind: forR.kind },
      ...(this.options.needLeaderElection !== false &&
        this.context.admitReconcile !== undefined && { admit: this.context.admitReconcile }),
      ...(this.options.logger === undefined && this.context.logger !== undefined && { logger: this.context.logger }),
    });
    this.context.add?.(controller);
    return controller;
  }
}

/** Starts a builder on a context, usually a {@link Manager} (`builder.ControllerManagedBy`). */
export function newControllerManagedBy(context: ControllerContext): ControllerBuilder {
  return new ControllerBuilder(context);
}

/**
 * Wraps a reconciler with finalizer handling (see {@link ControllerBuilder.finalize}). The object is read from the
 * `for` informer's cache; a request for an object that is gone goes straight to the reconciler.
 */
function withFinalizer(
  reconciler: Reconciler,
  finalizer: string,
  hook: FinalizeHook,
  resource: ResourceDescriptor,
  informer: SharedIndexInformer<KubeObject>,
  client: ObjectClient,
  clock: Clock | undefined,
): Reconciler {
  return async (request: Request, ctx: ReconcileContext): Promise<Result | undefined> => {
    const obj = informer.getIndexer().getByKey(requestKey(request));
    if (obj === undefined) return (await reconciler(request, ctx)) ?? undefined;
    const patchOpts = { signal: ctx.signal, ...(clock !== undefined && { clock }) };
    if (typeof obj.metadata?.deletionTimestamp === "string" && obj.metadata.deletionTimestamp !== "") {
      if (!containsFinalizer(obj, finalizer)) return undefined;
      await hook(obj, ctx);
      await patchRemoveFinalizer(client, resource, obj, finalizer, patchOpts);
      return undefined;
    }
    if (!containsFinalizer(obj, finalizer)) await patchAddFinalizer(client, resource, obj, finalizer, patchOpts);
    return (await reconciler(request, ctx)) ?? undefined;
  };
}
