// @kubernetes/client-node 1.4 against the simulated apiserver: CoreV1Api list/create, Watch, and ListWatch (the
// client's informer) seeing add/update/delete; over plain HTTP and over HTTPS via the generated kubeconfig.
// The package is imported lazily (it costs ~0.5 s and ~75 MB).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configMap, type SimHandle, startSim } from "./sim.js";
import { interopRequired } from "./tools.js";

type ClientNode = typeof import("@kubernetes/client-node");

let k8s: ClientNode;
let importError: string | undefined;

beforeAll(async () => {
  try {
    k8s = await import("@kubernetes/client-node");
  } catch (err) {
    importError = err instanceof Error ? err.message : String(err);
  }
});

function requireClientNode(ctx: { skip: (note?: string) => void }) {
  if (importError === undefined) return;
  const msg = `interop test skipped: @kubernetes/client-node cannot be imported: ${importError}`;
  if (interopRequired()) throw new Error(msg);
  console.warn(msg);
  ctx.skip(msg);
}

function kubeConfig(sim: SimHandle) {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(sim.kubeconfig);
  return kc;
}

async function informerRoundTrip(sim: SimHandle) {
  const kc = kubeConfig(sim);
  const api = kc.makeApiClient(k8s.CoreV1Api);
  const path = "/api/v1/namespaces/default/configmaps";
  const seen: string[] = [];
  const errors: unknown[] = [];
  const lw = new k8s.ListWatch<import("@kubernetes/client-node").V1ConfigMap>(
    path,
    new k8s.Watch(kc),
    () => api.listNamespacedConfigMap({ namespace: "default" }),
    false,
  );
  lw.on("add", (o) => seen.push(`add:${o.metadata?.name}`));
  lw.on("update", (o) => seen.push(`update:${o.metadata?.name}:${o.data?.v}`));
  lw.on("delete", (o) => seen.push(`delete:${o.metadata?.name}`));
  lw.on("error", (e) => errors.push(e));
  const watchesBefore = sim.server.stats.openWatches;
  await lw.start();
  try {
    await expect.poll(() => seen).toContain("add:cn-existing");
    await expect.poll(() => sim.server.stats.openWatches).toBe(watchesBefore + 1);
    await api.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "cn-new" }, data: { v: "1" } },
    });
    await expect.poll(() => seen).toContain("add:cn-new");
    await api.replaceNamespacedConfigMap({
      name: "cn-new",
      namespace: "default",
      body: { metadata: { name: "cn-new" }, data: { v: "2" } },
    });
    await expect.poll(() => seen).toContain("update:cn-new:2");
    await api.deleteNamespacedConfigMap({ name: "cn-new", namespace: "default" });
    await expect.poll(() => seen).toContain("delete:cn-new");
    expect(lw.list("default").map((o) => o.metadata?.name)).toEqual(["cn-existing"]);
    expect(errors).toEqual([]);
  } finally {
    await lw.stop();
  }
  await expect.poll(() => sim.server.stats.openWatches).toBe(watchesBefore);
}

describe("interop: @kubernetes/client-node", () => {
  let sim: SimHandle;
  beforeAll(async () => {
    sim = await startSim();
    await sim.create(configMap("cn-existing"));
  });
  afterAll(async () => {
    await sim.close();
  });

  it("CoreV1Api list returns the typed list with its resourceVersion", async (ctx) => {
    requireClientNode(ctx);
    const api = kubeConfig(sim).makeApiClient(k8s.CoreV1Api);
    const list = await api.listNamespacedConfigMap({ namespace: "default" });
    expect(list.items.map((i) => i.metadata?.name)).toEqual(["cn-existing"]);
    expect(list.metadata?.resourceVersion).toMatch(/^\d+$/);
  });

  it("Watch receives ADDED for an object created after the watch started", async (ctx) => {
    requireClientNode(ctx);
    const kc = kubeConfig(sim);
    const api = kc.makeApiClient(k8s.CoreV1Api);
    const rv = (await api.listNamespacedConfigMap({ namespace: "default" })).metadata?.resourceVersion ?? "";
    const events: string[] = [];
    const before = sim.server.stats.openWatches;
    const req = await new k8s.Watch(kc).watch(
      "/api/v1/namespaces/default/configmaps",
      { resourceVersion: rv },
      (type: string, obj: { metadata?: { name?: string } }) => events.push(`${type}:${obj.metadata?.name}`),
      () => {},
    );
    try {
      await expect.poll(() => sim.server.stats.openWatches).toBe(before + 1);
      await sim.create(configMap("cn-watched"));
      await expect.poll(() => events).toEqual(["ADDED:cn-watched"]);
    } finally {
      req.abort();
    }
    await api.deleteNamespacedConfigMap({ name: "cn-watched", namespace: "default" });
  });

  it("Watch from an expired resourceVersion gets the ERROR event with the 410 Status, then done", async (ctx) => {
    requireClientNode(ctx);
    await sim.create(configMap("cn-old"));
    const old = sim.engine.currentResourceVersion;
    await sim.create(configMap("cn-newer"));
    sim.engine.faults.reinitializeCache("configmaps");
    const events: Array<{ type: string; obj: Record<string, unknown> }> = [];
    const done = new Promise<unknown>((resolve) => {
      void new k8s.Watch(kubeConfig(sim)).watch(
        "/api/v1/namespaces/default/configmaps",
        { resourceVersion: String(old - 1) },
        (type: string, obj: Record<string, unknown>) => events.push({ type, obj }),
        (err: unknown) => resolve(err),
      );
    });
    expect(await done).toBeNull();
    expect(events).toEqual([
      {
        type: "ERROR",
        obj: expect.objectContaining({ kind: "Status", code: 410, reason: "Expired" }),
      },
    ]);
    const api = kubeConfig(sim).makeApiClient(k8s.CoreV1Api);
    await api.deleteNamespacedConfigMap({ name: "cn-old", namespace: "default" });
    await api.deleteNamespacedConfigMap({ name: "cn-newer", namespace: "default" });
  });

  it("AppsV1Api reads and replaces a Deployment's /status; the main resource's spec and generation are untouched", async (ctx) => {
    requireClientNode(ctx);
    const apps = kubeConfig(sim).makeApiClient(k8s.AppsV1Api);
    const labels = { app: "cn-status" };
    const created = await apps.createNamespacedDeployment({
      namespace: "default",
      body: {
        metadata: { name: "cn-status" },
        spec: {
          replicas: 2,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "busybox" }] } },
        },
      },
    });
    const read = await apps.readNamespacedDeploymentStatus({ name: "cn-status", namespace: "default" });
    expect(read.metadata?.name).toBe("cn-status");
    read.status = { ...read.status, observedGeneration: 1, readyReplicas: 2, replicas: 2 };
    if (read.spec !== undefined) read.spec.replicas = 5; // ignored by /status
    const replaced = await apps.replaceNamespacedDeploymentStatus({
      name: "cn-status",
      namespace: "default",
      body: read,
    });
    expect(replaced.status?.readyReplicas).toBe(2);
    expect(replaced.spec?.replicas).toBe(2);
    expect(replaced.metadata?.generation).toBe(created.metadata?.generation);
    const after = await apps.readNamespacedDeployment({ name: "cn-status", namespace: "default" });
    expect(after.status?.readyReplicas).toBe(2);
    await apps.deleteNamespacedDeployment({ name: "cn-status", namespace: "default" });
  });

  it("a metadata-only list (PartialObjectMetadataList) through the kubeconfig's fetch options", async (ctx) => {
    requireClientNode(ctx);
    const kc = kubeConfig(sim);
    const init = await kc.applyToFetchOptions({});
    const server = kc.getCurrentCluster()?.server ?? "";
    // client-node hands out node-fetch options: copy its headers (auth, if any) into a plain object for fetch().
    const headers: Record<string, string> = {};
    const given = init.headers as { forEach?: (fn: (value: string, key: string) => void) => void } | undefined;
    given?.forEach?.((value, key) => {
      headers[key] = value;
    });
    headers.accept = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
    const res = await fetch(`${server}/api/v1/namespaces/default/configmaps`, { headers });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      kind: string;
      apiVersion: string;
      items: Array<{ kind?: string; metadata: { name: string }; data?: unknown }>;
    };
    expect(body.kind).toBe("PartialObjectMetadataList");
    expect(body.apiVersion).toBe("meta.k8s.io/v1");
    expect(body.items.map((i) => i.metadata.name)).toContain("cn-existing");
    for (const item of body.items) expect(item.data).toBeUndefined();
  });

  it("ListWatch (informer) sees add, update, delete", async (ctx) => {
    requireClientNode(ctx);
    await informerRoundTrip(sim);
  });
});

describe("interop: @kubernetes/client-node over HTTPS", () => {
  it("ListWatch through the generated kubeconfig (token + CA)", async (ctx) => {
    requireClientNode(ctx);
    const sim = await startSim({ tls: true, token: "cn-token" });
    try {
      await sim.create(configMap("cn-existing"));
      await informerRoundTrip(sim);
    } finally {
      await sim.close();
    }
  });
});
