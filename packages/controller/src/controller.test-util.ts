// Test environment of the controller package: a FakeClock, one FakeControllerSource per resource behind a shared
// informer factory, and a ControllerContext on them. Cross-package tests against the simulated apiserver live in
// test/controller.
import type { KubeObject } from "@informer-ts/apimachinery";
import {
  type InformerResource,
  newSharedInformerFactoryWithOptions,
  type SharedInformerFactory,
  silentLogger,
  syncResultAsError,
  withInformerOptions,
} from "@informer-ts/cache";
import { FakeControllerSource, runUntilSettled } from "@informer-ts/cache/testing";
import type { ResourceDescriptor } from "@informer-ts/client";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { InMemoryMetrics } from "@informer-ts/instrumentation";
import type { ControllerContext } from "./builder.js";
import type { Controller } from "./controller.js";

export const parents: ResourceDescriptor = {
  group: "example.com",
  version: "v1",
  resource: "parents",
  kind: "Parent",
  namespaced: true,
};
export const children: ResourceDescriptor = {
  group: "",
  version: "v1",
  resource: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
};
export const namespaces: ResourceDescriptor = {
  group: "",
  version: "v1",
  resource: "namespaces",
  kind: "Namespace",
  namespaced: false,
};

export interface TypedSource {
  add(obj: KubeObject): KubeObject;
  modify(obj: KubeObject): KubeObject;
  delete(obj: KubeObject): KubeObject;
  readonly raw: FakeControllerSource<KubeObject>;
}

export interface TestEnv {
  readonly clock: FakeClock;
  readonly metrics: InMemoryMetrics;
  readonly factory: SharedInformerFactory<InformerResource, KubeObject>;
  readonly context: ControllerContext & { controllers: Controller[] };
  /** The fake source of a resource; `add`/`modify`/`delete` stamp `apiVersion`/`kind` as the apiserver does. */
  source(r: ResourceDescriptor): TypedSource;
  /** Starts the factory's informers and waits for them to sync. */
  start(): Promise<void>;
  readonly ac: AbortController;
  /** Aborts and waits for the informers (call after every controller's run resolved). */
  stop(): Promise<void>;
}

/** One FakeControllerSource per resource on `clock`, and typed views that stamp apiVersion/kind. */
export function fakeSources(clock: FakeClock): {
  listerWatcherFor: (r: InformerResource) => FakeControllerSource<KubeObject>;
  source: (r: ResourceDescriptor) => TypedSource;
} {
  const sources = new Map<string, FakeControllerSource<KubeObject>>();
  const listerWatcherFor = (r: InformerResource): FakeControllerSource<KubeObject> => {
    let s = sources.get(r.resource);
    if (s === undefined) {
      s = new FakeControllerSource<KubeObject>({
        clock,
        rand: seededRand(1),
        initialResourceVersion: 1,
        ...(r.kind !== undefined && {
          bookmarkKind: { apiVersion: r.group === "" ? r.version : `${r.group}/${r.version}`, kind: r.kind },
        }),
      });
      sources.set(r.resource, s);
    }
    return s;
  };
  const source = (r: ResourceDescriptor): TypedSource => {
    const raw = listerWatcherFor(r);
    const stamp = (o: KubeObject): KubeObject => ({
      ...o,
      apiVersion: r.group === "" ? r.version : `${r.group}/${r.version}`,
      kind: r.kind,
    });
    return {
      raw,
      add: (o) => raw.add(stamp(o)),
      modify: (o) => raw.modify(stamp(o)),
      delete: (o) => raw.delete(stamp(o)),
    };
  };
  return { listerWatcherFor, source };
}

export function testEnv(): TestEnv {
  const clock = new FakeClock(0);
  const metrics = new InMemoryMetrics();
  const { listerWatcherFor, source } = fakeSources(clock);
  const factory = newSharedInformerFactoryWithOptions<InformerResource, KubeObject>(
    (r) => listerWatcherFor(r),
    0,
    withInformerOptions<KubeObject>({ clock, rand: seededRand(2), reflector: { logger: silentLogger } }),
  );
  const controllers: Controller[] = [];
  const context = {
    controllers,
    clock,
    metrics,
    informerFor: (r: ResourceDescriptor) => factory.informerFor(r),
    add: (c: Controller) => controllers.push(c),
  };
  const ac = new AbortController();
  return {
    clock,
    metrics,
    factory,
    context,
    source,
    ac,
    async start() {
      factory.start(ac.signal);
      const res = await runUntilSettled(clock, factory.waitForCacheSync(ac.signal));
      const err = syncResultAsError(res);
      if (err !== undefined) throw err;
    },
    async stop() {
      ac.abort();
      await factory.shutdown();
    },
  };
}

let uid = 0;
export function obj(name: string, extra: Partial<KubeObject> & { metadata?: KubeObject["metadata"] } = {}): KubeObject {
  return { ...extra, metadata: { namespace: "default", uid: `uid-${name}-${uid++}`, ...extra.metadata, name } };
}

/** Lets promise chains settle without moving time. */
export async function turns(n = 20): Promise<void> {
  for (let i = 0; i < n; i++) await settle();
}
