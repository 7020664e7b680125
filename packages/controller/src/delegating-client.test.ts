import { isNotFound, type KubeList, type KubeObject } from "@informer-ts/apimachinery";
import { silentLogger } from "@informer-ts/cache";
import { type ConfigMap, type ResourceDescriptor, resources } from "@informer-ts/client";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { afterEach, describe, expect, expectTypeOf, it } from "vitest";
import { CacheNotStartedError } from "./cache-reader.js";
import { children, fakeSources, namespaces, obj, parents } from "./controller.test-util.js";
import { FakeObjectClient } from "./fake-object-client.test-util.js";
import { Manager, type ManagerEvent, type ManagerOptions } from "./manager.js";
import type { ObjectReader } from "./object-client.js";

async function turns(n = 30): Promise<void> {
  for (let i = 0; i < n; i++) await settle();
}

/** Lets a read that waits for a cache to sync finish: waitForCacheSync polls every 100 ms of the clock. */
async function until<T>(clock: FakeClock, p: Promise<T>): Promise<T> {
  let done = false;
  const tracked = p.finally(() => {
    done = true;
  });
  tracked.catch(() => {});
  for (let i = 0; i < 20 && !done; i++) {
    await turns();
    await clock.step(100);
  }
  return tracked;
}

/** A FakeObjectClient that can also list: an API reader. */
class ListingClient extends FakeObjectClient implements ObjectReader {
  readonly lists: string[] = [];
  async list<T = KubeObject>(r: ResourceDescriptor<T>, o: { namespace?: string } = {}): Promise<KubeList<T>> {
    this.lists.push(r.resource);
    const items = [...this.objects.values()].filter(
      (x) => o.namespace === undefined || x.metadata?.namespace === o.namespace,
    );
    return { metadata: { resourceVersion: "7" }, items: items as T[] };
  }
  override get<T = KubeObject>(r: ResourceDescriptor<T>, name: string, o: { namespace?: string } = {}): Promise<T> {
    return super.get(r as ResourceDescriptor, name, o) as Promise<T>;
  }
}

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

function running(extra: Partial<ManagerOptions> = {}) {
  const clock = new FakeClock(0);
  const sources = fakeSources(clock);
  const m = new Manager({
    quiet: true, // no log assertions here
    listerWatcherFor: (r) => sources.listerWatcherFor(r),
    clock,
    rand: seededRand(7),
    informerOptions: { reflector: { logger: silentLogger } },
    ...extra,
  });
  const events: ManagerEvent[] = [];
  m.events$.subscribe((e) => events.push(e));
  const ac = new AbortController();
  let run: Promise<void> | undefined;
  const start = async () => {
    run = m.run(ac.signal);
    await turns();
    await clock.step(100);
    await turns();
  };
  const stop = async () => {
    ac.abort();
    await clock.step(100);
    await run?.catch(() => {});
  };
  stops.push(stop);
  return { clock, sources, m, events, start, stop };
}

describe("Manager.getClient: reads from the cache, writes to the API", () => {
  it("get: a deep copy carrying the descriptor's apiVersion/kind; NotFound when the cache lacks it; typed", async () => {
    // A LIST (not watch-list) start: list items carry no apiVersion/kind, as from a real apiserver.
    const { clock, sources, m, start } = running({
      informerOptions: { reflector: { logger: silentLogger, useWatchList: false } },
    });
    m.informerFor(children);
    sources.source(children).raw.add(obj("a", { data: { k: "v" } }));
    await start();
    const client = m.getClient();
    const cm = await until(clock, client.get(resources.configMaps, "a", { namespace: "default" }));
    expectTypeOf(cm).toEqualTypeOf<ConfigMap>();
    expect(cm).toMatchObject({ apiVersion: "v1", kind: "ConfigMap", data: { k: "v" } });
    cm.data = { k: "changed" };
    const cached = m.informerFor(children).getIndexer().getByKey("default/a");
    expect(cached?.data).toEqual({ k: "v" });
    expect(cached?.apiVersion).toBeUndefined();
    const missing = await client.get(children, "nope", { namespace: "default" }).catch((e: unknown) => e);
    expect(isNotFound(missing)).toBe(true);
    expect((missing as Error).message).toBe('configmaps "nope" not found');
    await expect(client.get(children, "a")).rejects.toThrow(
      "get configmaps a: the resource is namespaced, options.namespace is required",
    );
  });

  it("the first read of a resource starts its informer and waits for it to sync", async () => {
    const { clock, sources, m, start } = running();
    m.informerFor(parents);
    await start();
    sources.source(namespaces).add({ metadata: { name: "kube-system" } });
    expect(m.factory.list().has("namespaces.v1")).toBe(false);
    const list = await until(clock, m.getClient().list(namespaces));
    expect(m.informerFor(namespaces).hasStarted()).toBe(true);
    expect(list.items.map((n) => n.metadata?.name)).toEqual(["kube-system"]);
    expect(list).toMatchObject({ apiVersion: "v1", kind: "NamespaceList" });
    expect(list.metadata.resourceVersion).toBe(m.informerFor(namespaces).lastSyncResourceVersion());
    // Cluster-scoped get: by name alone.
    const ns = await m.getClient().get(namespaces, "kube-system");
    expect(ns.metadata?.name).toBe("kube-system");
  });

  it("list: namespace, label selector, metadata.name/namespace fields, limit; refuses continue and non-exact fields", async () => {
    const { clock, sources, m, start } = running();
    const src = sources.source(children);
    src.add(obj("a", { metadata: { name: "a", namespace: "x", labels: { app: "web" } } }));
    src.add(obj("b", { metadata: { name: "b", namespace: "x", labels: { app: "db" } } }));
    src.add(obj("c", { metadata: { name: "c", namespace: "y", labels: { app: "web" } } }));
    m.informerFor(children);
    await start();
    const c = m.getClient();
    const names = async (o: Parameters<typeof c.list>[1]) =>
      (await until(clock, c.list(children, o))).items.map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`).sort();
    expect(await names({})).toEqual(["x/a", "x/b", "y/c"]);
    expect(await names({ namespace: "x" })).toEqual(["x/a", "x/b"]);
    expect(await names({ labelSelector: "app=web" })).toEqual(["x/a", "y/c"]);
    expect(await names({ labelSelector: "app in (web,db)", namespace: "x" })).toEqual(["x/a", "x/b"]);
    expect(await names({ fieldSelector: "metadata.name=c" })).toEqual(["y/c"]);
    expect(await names({ fieldSelector: "metadata.namespace==x,metadata.name=b" })).toEqual(["x/b"]);
    expect((await c.list(children, { limit: 2 })).items).toHaveLength(2);
    await expect(c.list(children, { continue: "abc" })).rejects.toThrow("continue is not supported by the cache");
    await expect(c.list(children, { fieldSelector: "metadata.name!=a" })).rejects.toThrow(
      "field selector metadata.name!=a is not supported by the cache: only exact matches (field=value)",
    );
    await expect(c.list(children, { fieldSelector: "spec.nodeName=n1" })).rejects.toThrow(
      'field selector spec.nodeName=n1 needs an index: getFieldIndexer().indexField(resource, "spec.nodeName", extract)',
    );
    await expect(c.list(children, { labelSelector: "app in (" })).rejects.toThrow();
  });

  it("field indexes answer field selectors, per namespace and across all; a throwing index function is reported", async () => {
    const { clock, sources, m, events, start } = running();
    const owner = (o: KubeObject) => (o.data as Record<string, string> | undefined)?.owner;
    m.getFieldIndexer().indexField(children, "data.owner", (o) => {
      if (owner(o) === "boom") throw new Error("bad object");
      return owner(o) === undefined ? [] : [owner(o)!];
    });
    expect(() => m.getFieldIndexer().indexField(children, "data.owner", () => [])).toThrow(
      "indexField: field data.owner is already indexed for this resource",
    );
    const src = sources.source(children);
    src.add(obj("a", { metadata: { name: "a", namespace: "x" }, data: { owner: "w1" } }));
    src.add(obj("b", { metadata: { name: "b", namespace: "y" }, data: { owner: "w1" } }));
    src.add(obj("c", { metadata: { name: "c", namespace: "x" }, data: { owner: "w2" } }));
    src.add(obj("d", { metadata: { name: "d", namespace: "x" }, data: { owner: "boom" } }));
    await start();
    const c = m.getClient();
    const names = async (o: Parameters<typeof c.list>[1]) =>
      (await until(clock, c.list(children, o))).items.map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`).sort();
    expect(await names({ fieldSelector: "data.owner=w1" })).toEqual(["x/a", "y/b"]);
    expect(await names({ fieldSelector: "data.owner=w1", namespace: "x" })).toEqual(["x/a"]);
    expect(await names({ fieldSelector: "data.owner=w1,metadata.name=b" })).toEqual(["y/b"]);
    expect(await names({ fieldSelector: "data.owner=boom" })).toEqual([]);
    expect(events).toContainEqual(expect.objectContaining({ type: "error", source: "index field:data.owner" }));
    const err = events.find((e) => e.type === "error")!;
    expect((err as { error: Error }).error.message).toBe("index field:data.owner of x/d: bad object");
    // Later changes reach the index.
    src.modify(obj("c", { metadata: { name: "c", namespace: "x" }, data: { owner: "w1" } }));
    await turns();
    expect(await names({ fieldSelector: "data.owner=w1", namespace: "x" })).toEqual(["x/a", "x/c"]);
  });

  it("writes go to the manager's client, not the cache; without a client they reject naming what is missing", async () => {
    const store = new FakeObjectClient();
    const { m, start } = running({ client: store });
    await start();
    const c = m.getClient();
    await c.create(children, obj("new"));
    await c.patch(children, "new", { data: { a: "b" } }, { namespace: "default" });
    await c.delete(children, "new", { namespace: "default" });
    expect(store.requests.map((r) => r.verb)).toEqual(["create", "patch", "delete"]);
    const bare = running();
    await bare.start();
    await expect(bare.m.getClient().create(children, obj("x"))).rejects.toThrow(
      "client create: writes need the manager's client option",
    );
    expect(() => bare.m.getAPIReader()).toThrow(
      "manager: getAPIReader needs a client that can get and list (a KubeClient)",
    );
  });

  it("getAPIReader, subresource reads and disableCacheFor read from the API server", async () => {
    const api = new ListingClient();
    await api.create(children, obj("direct"));
    const { clock, m, start } = running({ client: api, disableCacheFor: [children] });
    await start();
    expect(m.getAPIReader()).toBe(api);
    const c = m.getClient();
    expect((await c.get(children, "direct", { namespace: "default" })).metadata?.name).toBe("direct");
    expect((await c.list(children, { namespace: "default" })).metadata.resourceVersion).toBe("7");
    expect(api.lists).toEqual(["configmaps"]);
    expect(m.factory.list().has("configmaps.v1")).toBe(false); // never watched
    await c.get(parents, "p", { namespace: "default", subresource: "status" }).catch(() => {});
    expect(api.requests.filter((r) => r.verb === "get").map((r) => r.resource)).toEqual(["configmaps", "parents"]);
    // A cached read of another resource still comes from its informer.
    await expect(until(clock, c.get(parents, "p", { namespace: "default" }))).rejects.toThrow(
      'parents.example.com "p" not found',
    );
    expect(m.factory.list().has("parents.v1.example.com")).toBe(true);
  });

  it("reads before run or after it ended reject with CacheNotStartedError; an aborted read rejects with its reason", async () => {
    const { clock, sources, m, start, stop } = running();
    await expect(m.getClient().get(children, "a", { namespace: "default" })).rejects.toThrow(CacheNotStartedError);
    await expect(m.getCache().list(children)).rejects.toThrow(
      "the cache is not started, can not read objects: run the manager first",
    );
    await start();
    const down = () => new Error("apiserver down");
    const raw = sources.source(parents).raw;
    raw.failNextWatch(down(), down(), down());
    raw.listError = down();
    const ac = new AbortController();
    const read = m.getClient().list(parents, {}, ac.signal);
    read.catch(() => {});
    await turns();
    await clock.step(100);
    ac.abort(new Error("reconcile timed out"));
    await expect(read).rejects.toThrow("reconcile timed out");
    await stop();
    await expect(m.getClient().list(children)).rejects.toThrow(
      "the cache is stopped, can not read objects: the manager has stopped",
    );
  });
});
