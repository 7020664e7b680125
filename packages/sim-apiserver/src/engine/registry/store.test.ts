import { isConflict, type KubeObject, type StatusError, statusOf, type WatchEvent } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { WIDGETS } from "../resources.test-util.js";
import { SimApiServer } from "../sim-apiserver.js";

function setup() {
  const clock = new FakeClock();
  const engine = new SimApiServer({ clock, rand: seededRand(9), compactionIntervalMs: 0, progressNotifyIntervalMs: 0 });
  return { clock, engine };
}

async function failure(p: Promise<unknown>): Promise<{ code: number; reason: string; message: string }> {
  try {
    await p;
  } catch (err) {
    const s = statusOf(err);
    if (s === undefined) throw err;
    return { code: s.code ?? 0, reason: s.reason ?? "", message: s.message ?? "" };
  }
  throw new Error("expected a failure");
}

async function events(engine: SimApiServer, resource: string, rv: number, n: number): Promise<string[]> {
  const w = await engine.watch(resource, "", { resourceVersion: String(rv), timeoutSeconds: 60 });
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await w.next();
    const e = r.value as WatchEvent;
    out.push(`${e.type} ${(e.object as KubeObject).metadata?.name}`);
  }
  w.stop();
  return out;
}

describe("RegistryStore: create", () => {
  it("system namespaces exist at start, Active with the kubernetes finalizer, at the initial revision", async () => {
    const { engine } = setup();
    const list = await engine.list("namespaces", "");
    expect(list.items.map((n) => n.metadata?.name)).toEqual([
      "default",
      "kube-node-lease",
      "kube-public",
      "kube-system",
    ]);
    expect(list.items[0]).toMatchObject({ spec: { finalizers: ["kubernetes"] }, status: { phase: "Active" } });
    expect(engine.currentResourceVersion).toBe(1);
  });

  it("uid, creationTimestamp on the server clock, generateName with 5 characters of the upstream alphabet", async () => {
    const { clock, engine } = setup();
    await clock.step(61_500);
    const o = await engine.create("configmaps", "default", { metadata: { generateName: "gen-" } });
    expect(o.metadata?.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(o.metadata?.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(o.metadata?.creationTimestamp).toBe("2026-01-01T00:01:01Z");
    expect(o.metadata?.generation).toBeUndefined();
  });

  it("namespace lifecycle: 404 for a missing namespace, 403 with a NamespaceTerminating cause for a terminating one", async () => {
    const { engine } = setup();
    expect(await failure(engine.create("configmaps", "nope", { metadata: { name: "a" } }))).toEqual({
      code: 404,
      reason: "NotFound",
      message: 'namespaces "nope" not found',
    });
    await engine.create("namespaces", "", { metadata: { name: "t" } });
    await engine.create("configmaps", "t", { metadata: { name: "held", finalizers: ["example.com/x"] } });
    await engine.delete("namespaces", "", "t");
    try {
      await engine.create("configmaps", "t", { metadata: { name: "late" } });
      expect.unreachable();
    } catch (err) {
      expect((err as StatusError).status).toMatchObject({
        code: 403,
        reason: "Forbidden",
        message:
          'configmaps "late" is forbidden: unable to create new content in namespace t because it is being terminated',
        details: { causes: [{ reason: "NamespaceTerminating", field: "metadata.namespace" }] },
      });
    }
    expect(await failure(engine.delete("namespaces", "", "kube-system"))).toMatchObject({
      code: 403,
      message: 'namespaces "kube-system" is forbidden: this namespace may not be deleted',
    });
  });

  it("bad input is 422 with upstream's message and writes nothing", async () => {
    const { engine } = setup();
    const rv = engine.currentResourceVersion;
    expect(
      await failure(engine.create("configmaps", "default", { metadata: { name: "a", finalizers: ["not ok"] } })),
    ).toMatchObject({ code: 422, reason: "Invalid" });
    expect(
      (await failure(engine.create("configmaps", "default", { metadata: { name: "a", finalizers: ["custom"] } })))
        .message,
    ).toBe(
      'ConfigMap "a" is invalid: metadata.finalizers[0]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
    );
    const noUid = { apiVersion: "v1", kind: "ConfigMap", name: "o", uid: "" };
    expect(
      (await failure(engine.create("configmaps", "default", { metadata: { name: "a", ownerReferences: [noUid] } })))
        .message,
    ).toBe('ConfigMap "a" is invalid: metadata.ownerReferences.uid: Invalid value: "": must not be empty');
    expect(engine.currentResourceVersion).toBe(rv);
  });

  it("dryRun validates and answers with uid but stores nothing", async () => {
    const { engine } = setup();
    const rv = engine.currentResourceVersion;
    const o = await engine.create("configmaps", "default", { metadata: { name: "d" } }, { dryRun: true });
    expect(o.metadata?.uid).toEqual(expect.any(String));
    expect(o.metadata?.resourceVersion).toBeUndefined();
    expect(engine.currentResourceVersion).toBe(rv);
    expect(await failure(engine.get("configmaps", "default", "d"))).toMatchObject({ code: 404 });
  });
});

describe("RegistryStore: status subresource and generation", () => {
  const dep = (replicas: number): KubeObject => ({
    metadata: { name: "d" },
    spec: {
      replicas,
      selector: { matchLabels: { app: "d" } },
      template: { metadata: { labels: { app: "d" } }, spec: { containers: [{ name: "c", image: "x" }] } },
    },
    status: { replicas: 7 },
  });

  it("deployments: create drops status, updates keep it, /status changes only it; generation on spec/annotations", async () => {
    const { engine } = setup();
    const c = await engine.create("deployments.apps", "default", dep(1));
    expect(c.status).toBeUndefined();
    expect(c.metadata?.generation).toBe(1);
    const u = await engine.update("deployments.apps", "default", "d", dep(2));
    expect([u.metadata?.generation, u.status]).toEqual([2, undefined]);
    const s = await engine.update(
      "deployments.apps",
      "default",
      "d",
      { ...dep(5), status: { replicas: 2 }, metadata: { name: "d", labels: { x: "y" } } },
      { subresource: "status" },
    );
    expect([s.spec, s.status, s.metadata?.generation, s.metadata?.labels]).toEqual([
      u.spec,
      { replicas: 2 },
      2,
      undefined,
    ]);
    const a = await engine.patch(
      "deployments.apps",
      "default",
      "d",
      "application/merge-patch+json",
      '{"metadata":{"annotations":{"k":"v"}}}',
    );
    expect(a.metadata?.generation).toBe(3);
  });

  it("/status of a resource without it is 404, nothing written; custom resources follow their definition", async () => {
    const { engine } = setup();
    await engine.create("configmaps", "default", { metadata: { name: "c" } });
    const rv = engine.currentResourceVersion;
    expect(
      await failure(
        engine.update("configmaps", "default", "c", { metadata: { name: "c" } }, { subresource: "status" }),
      ),
    ).toEqual({ code: 404, reason: "NotFound", message: "the server could not find the requested resource" });
    expect(engine.currentResourceVersion).toBe(rv);
    const withStatus = engine.register({
      ...WIDGETS,
      resource: "gadgets",
      kind: "Gadget",
      subresources: ["status"],
    });
    await engine.create(withStatus, "default", { metadata: { name: "g" }, spec: { a: 1 }, status: { s: 1 } });
    const g = await engine.get(withStatus, "default", "g");
    expect([g.status, g.metadata?.generation]).toEqual([undefined, 1]);
    const st = await engine.update(
      withStatus,
      "default",
      "g",
      { metadata: { name: "g", labels: { l: "1" } }, spec: { a: 2 }, status: { s: 2 } },
      { subresource: "status" },
    );
    expect([st.spec, st.status, st.metadata?.labels, st.metadata?.generation]).toEqual([
      { a: 1 },
      { s: 2 },
      undefined,
      1,
    ]);
    const sp = await engine.update(withStatus, "default", "g", {
      metadata: { name: "g" },
      spec: { a: 3 },
      status: { s: 9 },
    });
    expect([sp.status, sp.metadata?.generation]).toEqual([{ s: 2 }, 2]);
  });
});

describe("RegistryStore: patch", () => {
  it("strategic merge merges containers by name; JSON patch with a failing test op is upstream's 422", async () => {
    const { engine } = setup();
    await engine.create("pods", "default", {
      metadata: { name: "p" },
      spec: {
        containers: [
          { name: "a", image: "1" },
          { name: "b", image: "1" },
        ],
      },
    });
    const p = await engine.patch(
      "pods",
      "default",
      "p",
      "application/strategic-merge-patch+json",
      '{"spec":{"containers":[{"name":"b","image":"2"}]}}',
    );
    const containers = (p.spec as { containers: Array<{ name: string; image: string }> }).containers;
    expect(containers.map(({ name, image }) => ({ name, image }))).toEqual([
      { name: "a", image: "1" },
      { name: "b", image: "2" },
    ]);
    // Merged by name, a new container is an added one, which a pod update may not do (ValidatePodUpdate).
    const added = '{"spec":{"containers":[{"name":"c","image":"3"}]}}';
    await expect(
      engine.patch("pods", "default", "p", "application/strategic-merge-patch+json", added),
    ).rejects.toMatchObject({
      status: { code: 422, message: expect.stringContaining("may not add or remove containers") },
    });
    const rv = engine.currentResourceVersion;
    const bad = '[{"op":"test","path":"/metadata/name","value":"q"},{"op":"add","path":"/metadata/labels","value":{}}]';
    expect(await failure(engine.patch("pods", "default", "p", "application/json-patch+json", bad))).toEqual({
      code: 422,
      reason: "Invalid",
      message: "the server rejected our request due to an error in our request",
    });
    expect(engine.currentResourceVersion).toBe(rv);
    const w = engine.register(WIDGETS);
    await engine.create(w, "default", { metadata: { name: "w" } });
    expect(await failure(engine.patch(w, "default", "w", "application/strategic-merge-patch+json", "{}"))).toEqual({
      code: 415,
      reason: "UnsupportedMediaType",
      message:
        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
    });
  });
});

describe("RegistryStore: delete and finalizers", () => {
  it("a finalizer holds the object (MODIFIED with deletionTimestamp), the update removing it deletes it (DELETED)", async () => {
    const { clock, engine } = setup();
    await engine.create("configmaps", "default", { metadata: { name: "f", finalizers: ["example.com/f"] } });
    const rv = engine.currentResourceVersion;
    await clock.step(5000);
    const ctx: { deleted?: boolean } = {};
    const held = await engine.delete("configmaps", "default", "f", {}, ctx);
    expect(ctx.deleted).toBe(false);
    expect(held.metadata).toMatchObject({ deletionTimestamp: "2026-01-01T00:00:05Z", deletionGracePeriodSeconds: 0 });
    const add = await failure(
      engine.update("configmaps", "default", "f", {
        metadata: { name: "f", finalizers: ["example.com/f", "example.com/g"] },
      }),
    );
    expect(add.message).toBe(
      'ConfigMap "f" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/g"}',
    );
    const gone = await engine.update("configmaps", "default", "f", { metadata: { name: "f", finalizers: [] } });
    expect(gone.metadata?.deletionTimestamp).toBe("2026-01-01T00:00:05Z");
    expect(await failure(engine.get("configmaps", "default", "f"))).toMatchObject({ code: 404 });
    expect(await events(engine, "configmaps", rv, 2)).toEqual(["MODIFIED f", "DELETED f"]);
  });

  it("preconditions: 409 with upstream's messages; propagation policy 422 for an unknown value", async () => {
    const { engine } = setup();
    const o = await engine.create("configmaps", "default", { metadata: { name: "p" } });
    const uid = await failure(engine.delete("configmaps", "default", "p", { preconditions: { uid: "x" } }));
    expect(uid).toMatchObject({ code: 409, reason: "Conflict" });
    expect(uid.message).toBe(
      `Operation cannot be fulfilled on configmaps "p": Precondition failed: UID in precondition: x, UID in object meta: ${o.metadata?.uid}`,
    );
    expect(await failure(engine.delete("configmaps", "default", "p", { propagationPolicy: "Sideways" }))).toMatchObject(
      {
        code: 422,
      },
    );
    const err = await engine
      .update("configmaps", "default", "p", { metadata: { name: "p", resourceVersion: "1" } })
      .catch((e) => e);
    expect(isConflict(err)).toBe(true);
    await engine.delete("configmaps", "default", "p", { dryRun: true });
    expect((await engine.get("configmaps", "default", "p")).metadata?.name).toBe("p");
  });

  it("a deleted namespace goes Terminating; the namespace controller deletes its content, then the namespace", async () => {
    const { clock, engine } = setup();
    await engine.create("namespaces", "", { metadata: { name: "n" } });
    await engine.create("configmaps", "n", { metadata: { name: "a" } });
    await engine.create("secrets", "n", { metadata: { name: "s", finalizers: ["example.com/s"] } });
    const ns = await engine.delete("namespaces", "", "n");
    expect(ns.status).toEqual({ phase: "Terminating" });
    await clock.step(0);
    expect(await failure(engine.get("configmaps", "n", "a"))).toMatchObject({ code: 404 });
    expect((await engine.get("secrets", "n", "s")).metadata?.deletionTimestamp).toEqual(expect.any(String));
    const terminating = (await engine.get("namespaces", "", "n")).status as { phase: string; conditions: unknown[] };
    expect(terminating.phase).toBe("Terminating");
    expect(terminating.conditions).toContainEqual(
      expect.objectContaining({
        type: "NamespaceContentRemaining",
        status: "True",
        message: "Some resources are remaining: secrets. has 1 resource instances",
      }),
    );
    await engine.update("secrets", "n", "s", { metadata: { name: "s" } });
    await clock.step(0);
    expect(await failure(engine.get("namespaces", "", "n"))).toMatchObject({ code: 404 });
  });
});

describe("RegistryStore: generation on deletion", () => {
  it("the delete that first sets deletionTimestamp bumps a tracked generation once (markAsDeleting); later deletes do not", async () => {
    const { engine } = setup();
    engine.register(WIDGETS);
    await engine.create("widgets.example.com", "default", {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w", finalizers: ["example.com/w"] },
      spec: { size: 1 },
    });
    expect((await engine.get("widgets.example.com", "default", "w")).metadata?.generation).toBe(1);
    const held = await engine.delete("widgets.example.com", "default", "w");
    expect(held.metadata).toMatchObject({ generation: 2, deletionTimestamp: expect.any(String) });
    const again = await engine.delete("widgets.example.com", "default", "w");
    expect(again.metadata?.generation).toBe(2);
    // A ConfigMap tracks no generation: nothing to bump.
    await engine.create("configmaps", "default", { metadata: { name: "c", finalizers: ["example.com/c"] } });
    expect((await engine.delete("configmaps", "default", "c")).metadata?.generation).toBeUndefined();
  });
});

describe("SimApiServer.deleteCollection", () => {
  it("deletes what the selectors match through the delete path: finalizers hold (MODIFIED), others go (DELETED)", async () => {
    const { engine } = setup();
    await engine.create("namespaces", "", { metadata: { name: "other" } });
    await engine.create("configmaps", "default", { metadata: { name: "a", labels: { app: "x" } } });
    await engine.create("configmaps", "default", {
      metadata: { name: "b", labels: { app: "x" }, finalizers: ["example.com/b"] },
    });
    await engine.create("configmaps", "default", { metadata: { name: "c", labels: { app: "y" } } });
    await engine.create("configmaps", "other", { metadata: { name: "d", labels: { app: "x" } } });
    const rv = engine.currentResourceVersion;
    const list = await engine.deleteCollection("configmaps", "default", { labelSelector: "app=x" });
    // The answer is the list as selected, before the deletes (upstream's DeleteCollection returns its List).
    expect(list.items.map((o) => o.metadata?.name)).toEqual(["a", "b"]);
    expect(list.items[1]?.metadata?.deletionTimestamp).toBeUndefined();
    expect(await failure(engine.get("configmaps", "default", "a"))).toMatchObject({ code: 404 });
    expect((await engine.get("configmaps", "default", "b")).metadata?.deletionTimestamp).toEqual(expect.any(String));
    expect((await engine.get("configmaps", "default", "c")).metadata?.name).toBe("c");
    expect((await engine.get("configmaps", "other", "d")).metadata?.name).toBe("d");
    expect(await events(engine, "configmaps", rv, 2)).toEqual(["DELETED a", "MODIFIED b"]);
  });

  it("field selector, dryRun and propagationPolicy; 422 for bad delete options, 400 for a bad selector, 405 for namespaces", async () => {
    const { engine } = setup();
    await engine.create("configmaps", "default", { metadata: { name: "a" } });
    await engine.create("configmaps", "default", { metadata: { name: "b" } });
    const rv = engine.currentResourceVersion;
    const dry = await engine.deleteCollection("configmaps", "default", {}, { dryRun: true });
    expect(dry.items).toHaveLength(2);
    expect(engine.currentResourceVersion).toBe(rv);
    await engine.deleteCollection(
      "configmaps",
      "default",
      { fieldSelector: "metadata.name=a" },
      {
        propagationPolicy: "Orphan",
      },
    );
    // Orphan adds the orphan finalizer: the object is held until the garbage collector orphans its dependents.
    const a = await engine.get("configmaps", "default", "a");
    expect(a.metadata).toMatchObject({ finalizers: ["orphan"], deletionTimestamp: expect.any(String) });
    expect((await engine.get("configmaps", "default", "b")).metadata?.deletionTimestamp).toBeUndefined();
    expect(
      await failure(engine.deleteCollection("configmaps", "default", {}, { propagationPolicy: "Sideways" })),
    ).toMatchObject({ code: 422 });
    expect(await failure(engine.deleteCollection("configmaps", "default", { labelSelector: "a in (" }))).toMatchObject({
      code: 400,
    });
    expect((await engine.get("configmaps", "default", "b")).metadata?.name).toBe("b");
    expect(await failure(engine.deleteCollection("namespaces", ""))).toMatchObject({
      code: 405,
      message: 'deletecollection is not supported on resources of kind "namespaces"',
    });
  });
});

describe("RegistryStore: seed", () => {
  it("seeded objects get the create path's defaulting: a Namespace is Active with the kubernetes finalizer", async () => {
    const { engine } = setup();
    const nsr = engine.resource("namespaces");
    const seeded = engine.registry.seed(nsr, "", { apiVersion: "v1", kind: "Namespace", metadata: { name: "s" } });
    const created = await engine.create("namespaces", "", { metadata: { name: "c" } });
    expect(seeded.status).toEqual({ phase: "Active" });
    expect(seeded.spec).toEqual({ finalizers: ["kubernetes"] });
    expect({ status: seeded.status, spec: seeded.spec }).toEqual({ status: created.status, spec: created.spec });
    expect(seeded.metadata?.uid).toEqual(expect.any(String));
    expect(seeded.metadata?.managedFields).toBeUndefined();
  });

  it("keeps a given status, defaults a missing one, converts a Secret's stringData, needs no declared namespace", async () => {
    const { engine } = setup();
    const pods = engine.resource("pods");
    const spec = { containers: [{ name: "c", image: "nginx" }] };
    const running = engine.registry.seed(pods, "default", {
      metadata: { name: "running" },
      spec,
      status: { phase: "Running" },
    });
    expect(running.status).toEqual({ phase: "Running" });
    expect(running.metadata?.generation).toBe(1);
    expect(engine.registry.seed(pods, "default", { metadata: { name: "fresh" }, spec }).status).toEqual({
      phase: "Pending",
      qosClass: "BestEffort",
    });
    const secret = engine.registry.seed(engine.resource("secrets"), "undeclared", {
      metadata: { name: "s", namespace: "undeclared" },
      stringData: { k: "v" },
    });
    expect(secret.data).toEqual({ k: Buffer.from("v").toString("base64") });
    expect(secret).not.toHaveProperty("stringData");
    expect(() => engine.registry.seed(pods, "default", { metadata: { name: "Bad_Name" } })).toThrow(/Invalid value/);
  });
});
