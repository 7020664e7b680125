// The client's controller verbs against the simulated apiserver over HTTP: typed objects, patches of every type,
// server-side apply, delete options, metadata-only list/watch and discovery. Lives in test/
// because it joins two packages that may not import each other (client ↛ sim-apiserver).
import { isConflict, isNotFound, type WatchEvent } from "@informer-ts/apimachinery";
import {
  DiscoveryClient,
  KubeClient,
  metadataListWatchFor,
  NoResourceMatchError,
  type ObjectOf,
  type PartialObjectMetadata,
  resources,
} from "@informer-ts/client";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { EngineBackend, SimApiServer, SimHttpServer } from "@informer-ts/sim-apiserver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

type ConfigMap = ObjectOf<typeof resources.configMaps>;

let clock: FakeClock;
let engine: SimApiServer;
let sim: SimHttpServer;
let client: KubeClient;

beforeAll(async () => {
  clock = new FakeClock();
  engine = new SimApiServer({ clock, rand: seededRand(11) });
  sim = new SimHttpServer({ backend: new EngineBackend(engine), clock });
  const url = await sim.start();
  client = new KubeClient({ server: url }, { clock, rateLimiter: null, maxRetries: 0, quiet: true });
});

afterAll(async () => {
  await client?.close();
  engine?.stop();
  await sim?.close();
});

const cm = (name: string, data: Record<string, string> = { k: name }): ConfigMap => ({
  metadata: { name, namespace: "default", labels: { suite: "verbs" } },
  data,
});

describe("typed verbs against the simulator", () => {
  it("create/get/update return typed ConfigMaps", async () => {
    const created = await client.create(resources.configMaps, cm("typed-a"));
    expect(created.data?.k).toBe("typed-a");
    const got = await client.get(resources.configMaps, "typed-a", { namespace: "default" });
    expect(got.metadata?.uid).toBe(created.metadata?.uid);
    const updated = await client.update(
      resources.configMaps,
      { ...got, data: { k: "changed" } },
      { fieldManager: "t" },
    );
    expect(updated.data).toEqual({ k: "changed" });
  });

  it("merge, JSON and strategic merge patches", async () => {
    await client.create(resources.configMaps, cm("patch-a", { a: "1", b: "2" }));
    const merged = await client.patch(
      resources.configMaps,
      "patch-a",
      { data: { b: null, c: "3" } },
      { namespace: "default" },
    );
    expect(merged.data).toEqual({ a: "1", c: "3" });
    const json = await client.patch(
      resources.configMaps,
      "patch-a",
      [
        { op: "test", path: "/data/a", value: "1" },
        { op: "replace", path: "/data/a", value: "one" },
      ],
      { namespace: "default", patchType: "json" },
    );
    expect(json.data).toEqual({ a: "one", c: "3" });
    const smp = await client.patch(
      resources.configMaps,
      "patch-a",
      { data: { d: "4" } },
      { namespace: "default", patchType: "strategic-merge" },
    );
    expect(smp.data).toEqual({ a: "one", c: "3", d: "4" });
  });

  it("dryRun writes nothing", async () => {
    const dry = await client.create(resources.configMaps, cm("dry-a"), { dryRun: true });
    expect(dry.metadata?.name).toBe("dry-a");
    const err = await client.get(resources.configMaps, "dry-a", { namespace: "default" }).catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
  });

  it("server-side apply creates then updates the object", async () => {
    const first = await client.apply(resources.configMaps, cm("apply-a", { x: "1" }), { fieldManager: "ctl" });
    expect(first.data).toEqual({ x: "1" });
    const second = await client.apply(resources.configMaps, cm("apply-a", { x: "2" }), { fieldManager: "ctl" });
    expect(second.data?.x).toBe("2");
  });

  it("delete with a stale resourceVersion precondition is a 409 Conflict; a matching one deletes", async () => {
    const created = await client.create(resources.configMaps, cm("pre-a"));
    const err = await client
      .delete(resources.configMaps, "pre-a", { namespace: "default", preconditions: { resourceVersion: "1" } })
      .catch((e: unknown) => e);
    expect(isConflict(err)).toBe(true);
    await client.delete(resources.configMaps, "pre-a", {
      namespace: "default",
      preconditions: {
        uid: created.metadata?.uid as string,
        resourceVersion: created.metadata?.resourceVersion as string,
      },
      propagationPolicy: "Background",
      gracePeriodSeconds: 0,
    });
    const gone = await client.get(resources.configMaps, "pre-a", { namespace: "default" }).catch((e: unknown) => e);
    expect(isNotFound(gone)).toBe(true);
  });
});

describe("the status subresource against the simulator", () => {
  const deployment = (name: string): ObjectOf<typeof resources.deployments> => ({
    metadata: { name, namespace: "default" },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "nginx" }] } },
    },
  });

  it("updateStatus writes only the status; update of the main resource ignores status; generation counts spec changes", async () => {
    const created = await client.create(resources.deployments, deployment("st-a"));
    expect(created.metadata?.generation).toBe(1);
    const withStatus = await client.updateStatus(resources.deployments, {
      ...created,
      spec: { ...created.spec!, replicas: 5 },
      status: { replicas: 1, readyReplicas: 1, observedGeneration: 1 },
    });
    expect(withStatus.status?.readyReplicas).toBe(1);
    expect(withStatus.spec?.replicas).toBe(1); // the /status write ignored the spec change
    expect(withStatus.metadata?.generation).toBe(1);
    const got = await client.getStatus(resources.deployments, "st-a", { namespace: "default" });
    expect(got.status?.observedGeneration).toBe(1);
    const scaled = await client.update(resources.deployments, {
      ...got,
      spec: { ...got.spec!, replicas: 3 },
      status: {},
    });
    expect(scaled.spec?.replicas).toBe(3);
    expect(scaled.status?.readyReplicas).toBe(1); // the main resource's update ignored the status change
    expect(scaled.metadata?.generation).toBe(2);
    const patched = await client.patchStatus(
      resources.deployments,
      "st-a",
      { status: { readyReplicas: 3 } },
      { namespace: "default" },
    );
    expect(patched.status?.readyReplicas).toBe(3);
  });
});

describe("metadata-only list and watch against the simulator", () => {
  it("lists PartialObjectMetadata and watches metadata-only events", async () => {
    await client.create(resources.configMaps, cm("meta-a", { big: "x".repeat(1000) }));
    const lw = metadataListWatchFor(client, resources.configMaps, { namespace: "default" });
    const list = await lw.list({});
    const item = list.items.find((o) => o.metadata?.name === "meta-a");
    expect(item).toEqual({ kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: expect.any(Object) });
    expect(item).not.toHaveProperty("data");
    const w = await lw.watch({ resourceVersion: list.metadata.resourceVersion, timeoutSeconds: 60 });
    try {
      const it = w[Symbol.asyncIterator]();
      const next = it.next();
      await client.create(resources.configMaps, cm("meta-b", { big: "y".repeat(1000) }));
      const ev = (await next).value as WatchEvent<PartialObjectMetadata>;
      expect(ev.type).toBe("ADDED");
      expect(ev.object).toMatchObject({ kind: "PartialObjectMetadata", metadata: { name: "meta-b" } });
      expect(ev.object).not.toHaveProperty("data");
    } finally {
      w.stop();
    }
  });
});

describe("discovery against the simulator", () => {
  it("resolves built-in names and refuses unknown ones", async () => {
    const d = new DiscoveryClient(client, { clock });
    expect(await d.resolve("cm")).toMatchObject({
      group: "",
      version: "v1",
      resource: "configmaps",
      kind: "ConfigMap",
    });
    expect(await d.resolve("deployments.apps")).toMatchObject({ group: "apps", namespaced: true });
    expect(await d.resolve("Lease")).toMatchObject({ group: "coordination.k8s.io", resource: "leases" });
    await expect(d.resolve("no-such-things")).rejects.toThrow(NoResourceMatchError);
  });
});

describe("deleteCollection against the simulator", () => {
  it("deletes what the label selector matches, answers the selected list; dryRun deletes nothing", async () => {
    await client.create(resources.configMaps, {
      metadata: { name: "dc-a", namespace: "default", labels: { dc: "1" } },
    });
    await client.create(resources.configMaps, {
      metadata: { name: "dc-b", namespace: "default", labels: { dc: "1" } },
    });
    await client.create(resources.configMaps, {
      metadata: { name: "dc-c", namespace: "default", labels: { dc: "2" } },
    });
    const dry = await client.deleteCollection(resources.configMaps, {
      namespace: "default",
      labelSelector: "dc=1",
      dryRun: true,
    });
    expect("items" in dry && dry.items.length).toBe(2);
    expect((await client.list(resources.configMaps, { namespace: "default", labelSelector: "dc" })).items).toHaveLength(
      3,
    );
    const out = await client.deleteCollection(resources.configMaps, {
      namespace: "default",
      labelSelector: "dc=1",
      propagationPolicy: "Background",
    });
    expect("items" in out ? out.items.map((o) => o.metadata?.name) : out).toEqual(["dc-a", "dc-b"]);
    const left = await client.list(resources.configMaps, { namespace: "default", labelSelector: "dc" });
    expect(left.items.map((o) => o.metadata?.name)).toEqual(["dc-c"]);
    await expect(
      client.deleteCollection(resources.configMaps, { namespace: "default", fieldSelector: "nope=1" }),
    ).rejects.toMatchObject({ code: 400 });
  });
});
