import type { KubeObject, WatchEvent } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { SimApiServer } from "../sim-apiserver.js";

const CRDS = "customresourcedefinitions.apiextensions.k8s.io";
const FOOS = "foos.tests.example.com";

const clocks = new WeakMap<SimApiServer, FakeClock>();

function engine(): SimApiServer {
  const clock = new FakeClock();
  const e = new SimApiServer({
    clock,
    rand: seededRand(7),
    compactionIntervalMs: 0,
    progressNotifyIntervalMs: 0,
  });
  clocks.set(e, clock);
  return e;
}

function crd(specProps: Record<string, unknown>): KubeObject {
  return {
    metadata: { name: FOOS },
    spec: {
      group: "tests.example.com",
      scope: "Namespaced",
      names: { plural: "foos", kind: "Foo" },
      versions: [
        {
          name: "v1beta1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: { spec: { type: "object", properties: specProps } },
            },
          },
        },
      ],
    },
  };
}

const foo = (name: string, spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "tests.example.com/v1beta1",
  kind: "Foo",
  metadata: { name },
  spec,
});

/** Replaces the stored definition's served version schema (a PUT, as the upstream test's `updateCRD`). */
async function setSchema(e: SimApiServer, specProps: Record<string, unknown>): Promise<void> {
  const current = await e.get(CRDS, "", FOOS);
  const next = structuredClone(current) as KubeObject & { spec: { versions: Array<Record<string, unknown>> } };
  next.spec.versions[0]!.schema = (crd(specProps).spec as { versions: Array<{ schema: unknown }> }).versions[0]!.schema;
  await e.update(CRDS, "", FOOS, next);
}

// Upstream: TestCustomResourceDefaulting (kubernetes/kubernetes
// staging/src/k8s.io/apiextensions-apiserver/test/integration/defaulting_test.go): defaults added to the schema after
// objects were stored appear on GET, LIST and WATCH without a write; writes default with the current schema.
describe("TestCustomResourceDefaulting (apiextensions-apiserver test/integration/defaulting_test.go)", () => {
  it("a default added after objects were stored shows on GET, LIST and WATCH; resourceVersions unchanged", async () => {
    const e = engine();
    await e.create(CRDS, "", crd({ a: { type: "string" } }));
    const stored = await e.create(FOOS, "default", foo("foo", { a: "x" }));
    expect(stored.spec).toEqual({ a: "x" });

    await setSchema(e, { a: { type: "string" }, b: { type: "string", default: "B" } });

    const got = await e.get(FOOS, "default", "foo");
    expect(got.spec).toEqual({ a: "x", b: "B" });
    expect(got.metadata?.resourceVersion).toBe(stored.metadata?.resourceVersion);
    const list = await e.list(FOOS, "default");
    expect(list.items.map((o) => o.spec)).toEqual([{ a: "x", b: "B" }]);
    const w = await e.watch(FOOS, "default", { resourceVersion: "0", timeoutSeconds: 60 });
    const first = (await w.next()).value as WatchEvent;
    expect([first.type, (first.object as KubeObject).spec]).toEqual(["ADDED", { a: "x", b: "B" }]);
    // A change made after the refresh comes through the watch defaulted too.
    await e.patch(FOOS, "default", "foo", "application/merge-patch+json", JSON.stringify({ spec: { a: "y" } }));
    const second = (await w.next()).value as WatchEvent;
    expect([second.type, (second.object as KubeObject).spec]).toEqual(["MODIFIED", { a: "y", b: "B" }]);
    w.stop();
  });

  it("the updated schema is the one writes are defaulted and validated with", async () => {
    const e = engine();
    await e.create(CRDS, "", crd({ a: { type: "string" } }));
    await setSchema(e, { a: { type: "string", maxLength: 3 }, c: { type: "integer", default: 5 } });
    const created = await e.create(FOOS, "default", foo("bar", { a: "ok" }));
    expect(created.spec).toEqual({ a: "ok", c: 5 });
    await expect(e.create(FOOS, "default", foo("baz", { a: "too long" }))).rejects.toMatchObject({
      status: { code: 422 },
    });
  });

  it("a watch opened before the schema changed ends (the old storage is torn down), a new one sees the defaults", async () => {
    const e = engine();
    await e.create(CRDS, "", crd({ a: { type: "string" } }));
    await e.create(FOOS, "default", foo("foo", { a: "x" }));
    const old = await e.watch(FOOS, "default", { resourceVersion: "0", timeoutSeconds: 60 });
    expect(((await old.next()).value as WatchEvent).type).toBe("ADDED");
    await setSchema(e, { a: { type: "string" }, b: { type: "string", default: "B" } });
    expect((await old.next()).done).toBe(true);
  });

  it("an update that leaves the served version as it was keeps the resource and its watches", async () => {
    const e = engine();
    await e.create(CRDS, "", crd({ a: { type: "string" } }));
    await e.create(FOOS, "default", foo("foo", { a: "x" }));
    const w = await e.watch(FOOS, "default", { resourceVersion: "0", timeoutSeconds: 60 });
    expect(((await w.next()).value as WatchEvent).type).toBe("ADDED");
    const current = await e.get(CRDS, "", FOOS);
    await e.update(CRDS, "", FOOS, { ...current, metadata: { ...current.metadata, labels: { touched: "yes" } } });
    await e.patch(FOOS, "default", "foo", "application/merge-patch+json", JSON.stringify({ spec: { a: "y" } }));
    const next = (await w.next()).value as WatchEvent;
    expect([next.type, (next.object as KubeObject).spec]).toEqual(["MODIFIED", { a: "y" }]);
    w.stop();
  });

  it("deleting the definition after a refresh deletes its objects and stops serving it", async () => {
    const e = engine();
    await e.create(CRDS, "", crd({ a: { type: "string" } }));
    await e.create(FOOS, "default", foo("foo", { a: "x" }));
    await setSchema(e, { a: { type: "string" }, b: { type: "string", default: "B" } });
    const w = await e.watch(FOOS, "default", { resourceVersion: "0", timeoutSeconds: 60 });
    await e.delete(CRDS, "", FOOS);
    // The CRD finalizer (delay 0) deletes the objects, then retires the resource.
    for (let i = 0; i < 5; i++) await clocks.get(e)!.step(0);
    const seen: string[] = [];
    for await (const ev of w) seen.push(`${ev.type} ${(ev.object as KubeObject).metadata?.name}`);
    expect(seen).toEqual(["ADDED foo", "DELETED foo"]);
    await expect(e.list(FOOS, "default")).rejects.toMatchObject({ status: { code: 404 } });
  });
});
