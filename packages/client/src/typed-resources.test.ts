// Compile-time tests of the typed descriptors (tsd-style): this file is type-checked by `pnpm run typecheck`, so
// every `@ts-expect-error` below fails the build if the line it marks ever compiles. The runtime assertions check
// that the typed objects are the decoded JSON the server sent.
import type { KubeList, KubeObject } from "@informer-ts/apimachinery";
import { type GenericLister, type ListerWatcher, newGenericLister, newSharedIndexInformer } from "@informer-ts/cache";
import { newMetadataSharedInformerFactory, newTypedSharedInformerFactory } from "@informer-ts/controller";
import type { V1ConfigMap } from "@kubernetes/client-node";
import { afterEach, describe, expect, expectTypeOf, it } from "vitest";
import { type builtinResources, resources } from "./builtin-resources.js";
import { sendJSON, startServer, type TestServer, until } from "./internal/test-server.test-util.js";
import { listWatchFor, metadataListWatchFor } from "./listwatch.js";
import type { DeepPartial, JsonOf, PartialObjectMetadata, Scale } from "./object-types.js";
import { customResource, type ObjectOf, type ResourceDescriptor } from "./resources.js";
import { KubeClient } from "./rest-client.js";

type ConfigMap = ObjectOf<typeof resources.configMaps>;

interface Widget extends KubeObject {
  spec?: { size: number; color?: string };
}

let servers: TestServer[] = [];
let clients: KubeClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  clients = [];
});

describe("typed descriptors (compile-time)", () => {
  it("a misspelled V1ConfigMap field is a type error; timestamps are strings as in JSON", () => {
    const ok: ConfigMap = { metadata: { name: "a", creationTimestamp: "2026-01-01T00:00:00Z" }, data: { k: "v" } };
    // @ts-expect-error `dta` is not a field of ConfigMap
    const misspelled: ConfigMap = { metadata: { name: "a" }, dta: { k: "v" } };
    // @ts-expect-error `nmae` is not a field of ObjectMeta
    const misspelledMeta: ConfigMap = { metadata: { nmae: "a" } };
    // @ts-expect-error data values are strings
    const wrongValue: ConfigMap = { data: { k: 1 } };
    // @ts-expect-error client-node's Date is the JSON string here
    const date: ConfigMap = { metadata: { creationTimestamp: new Date() } };
    expectTypeOf<ConfigMap>().toEqualTypeOf<JsonOf<V1ConfigMap>>();
    expectTypeOf<ObjectOf<typeof builtinResources.configmaps>>().toEqualTypeOf<ConfigMap>();
    expect([ok, misspelled, misspelledMeta, wrongValue, date]).toHaveLength(5);
  });

  it("verbs take and return the descriptor's type; custom resources take a type parameter", () => {
    const c = new KubeClient({ server: "http://127.0.0.1:1" }, { quiet: true });
    clients.push(c);
    // Type-level only: the calls below are never made (a function that is not called).
    const typeOnly = () => {
      expectTypeOf(c.get(resources.configMaps, "a", { namespace: "n" })).resolves.toEqualTypeOf<ConfigMap>();
      expectTypeOf(c.list(resources.pods)).resolves.toEqualTypeOf<KubeList<ObjectOf<typeof resources.pods>>>();
      expectTypeOf(c.getScale(resources.deployments, "d", { namespace: "n" })).resolves.toEqualTypeOf<Scale>();
      expectTypeOf(c.listMetadata(resources.secrets)).resolves.toHaveProperty("items");
      const widgets = customResource<Widget>({
        group: "example.com",
        version: "v1",
        resource: "widgets",
        kind: "Widget",
      });
      expectTypeOf(c.get(widgets, "w", { namespace: "n" })).resolves.toEqualTypeOf<Widget>();
      expectTypeOf(customResource({ group: "g.io", version: "v1", resource: "xs", kind: "X" })).toEqualTypeOf<
        ResourceDescriptor<KubeObject>
      >();
      const typedCreate = () =>
        // @ts-expect-error a Widget's size is a number
        c.create(widgets, { metadata: { name: "w", namespace: "n" }, spec: { size: "big" } });
      const wrongKind = () =>
        // @ts-expect-error a ConfigMap has no spec.replicas
        c.update(resources.configMaps, { metadata: { name: "a" }, spec: { replicas: 1 } });
      expect([typedCreate, wrongKind]).toHaveLength(2);
    };
    expect(typeof typeOnly).toBe("function");
    // A typed descriptor is accepted where an untyped one is expected (the KubeObject default keeps old code compiling).
    const untyped: ResourceDescriptor = resources.deployments;
    expectTypeOf(listWatchFor<KubeObject>(c, resources.configMaps)).toEqualTypeOf<ListerWatcher<KubeObject>>();
    expectTypeOf(listWatchFor(c, resources.configMaps)).toEqualTypeOf<ListerWatcher<ConfigMap>>();
    expectTypeOf(metadataListWatchFor(c, untyped)).toEqualTypeOf<ListerWatcher<PartialObjectMetadata>>();
    expectTypeOf(newTypedSharedInformerFactory(c, 0).informerFor(resources.leases).getIndexer().list()).toEqualTypeOf<
      ObjectOf<typeof resources.leases>[]
    >();
    expectTypeOf(newMetadataSharedInformerFactory(c, 0).informerFor(resources.pods).getIndexer().list()).toEqualTypeOf<
      PartialObjectMetadata[]
    >();
  });
});

describe("writes take deep partials of the read types (compile-time)", () => {
  it("the spread edit of issue 22 compiles: { ...d, spec: { ...d.spec, replicas } } read through the client", () => {
    const c = {} as KubeClient;
    const typeOnly = async (replicas: number) => {
      const d = await c.get(resources.deployments, "web", { namespace: "ns" });
      // `d.spec` is optional on the read type and `selector`/`template` required inside it; the write takes it anyway.
      const updated = await c.update(resources.deployments, { ...d, spec: { ...d.spec, replicas } });
      expectTypeOf(updated).toEqualTypeOf<ObjectOf<typeof resources.deployments>>();
      await c.create(resources.deployments, { ...d, metadata: { name: "web-2", namespace: "ns" } });
      await c.updateStatus(resources.deployments, { ...d, status: { ...d.status, observedGeneration: 2 } });
      await c.apply(resources.deployments, { metadata: { name: "web" }, spec: { replicas } }, { fieldManager: "m" });
      // @ts-expect-error replicas is a number, also inside a spread edit
      await c.update(resources.deployments, { ...d, spec: { ...d.spec, replicas: "3" } });
      // @ts-expect-error a misspelt field of a fresh literal is still caught
      await c.update(resources.deployments, { ...d, spec: { ...d.spec, replicsa: replicas } });
    };
    expect(typeof typeOnly).toBe("function");
    // The read type keeps the schema's required markers: what the server always sends stays non-optional.
    expectTypeOf<NonNullable<ObjectOf<typeof resources.deployments>["spec"]>["selector"]>().not.toBeUndefined();
    expectTypeOf<DeepPartial<{ a: { b: string; c: number[] } }>>().toEqualTypeOf<{
      a?: { b?: string; c?: number[] };
    }>();
  });
});

describe("a typed informer's lister", () => {
  it("returns the typed objects the server sent", async () => {
    const item = {
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { name: "app", namespace: "n", resourceVersion: "4", creationTimestamp: "2026-01-01T00:00:00Z" },
      data: { mode: "fast" },
    };
    const s = await startServer((req, res) => {
      const url = req.url ?? "";
      if (!url.includes("watch=true")) {
        sendJSON(res, 200, {
          kind: "ConfigMapList",
          apiVersion: "v1",
          metadata: { resourceVersion: "5" },
          items: [item],
        });
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      if (url.includes("sendInitialEvents=true")) {
        // watch-list (the reflector's default): the initial events, then the bookmark that ends them; then idle.
        res.write(`${JSON.stringify({ type: "ADDED", object: item })}\n`);
        const end = { resourceVersion: "5", annotations: { "k8s.io/initial-events-end": "true" } };
        res.write(
          `${JSON.stringify({ type: "BOOKMARK", object: { kind: "ConfigMap", apiVersion: "v1", metadata: end } })}\n`,
        );
      }
    });
    servers.push(s);
    const c = new KubeClient({ server: s.url }, { rateLimiter: null, quiet: true });
    clients.push(c);
    const informer = newSharedIndexInformer(listWatchFor(c, resources.configMaps));
    const lister = newGenericLister(informer.getIndexer(), { group: "", resource: "configmaps" });
    expectTypeOf(lister).toEqualTypeOf<GenericLister<ConfigMap>>();
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    try {
      await until(() => informer.hasSynced(), "informer synced");
      const cm = lister.byNamespace("n").get("app");
      expectTypeOf(cm.data).toEqualTypeOf<{ [x: string]: string } | undefined>();
      expectTypeOf(cm.metadata?.creationTimestamp).toEqualTypeOf<string | undefined>();
      expect(cm.data?.mode).toBe("fast");
      expect(cm.metadata?.creationTimestamp).toBe("2026-01-01T00:00:00Z");
    } finally {
      ac.abort();
      await run;
    }
  });
});
