import { isConflict, type KubeObject } from "@informer-ts/apimachinery";
import type { ResourceDescriptor } from "@informer-ts/client";
import { FakeClock } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { FakeObjectClient } from "./fake-object-client.test-util.js";
import {
  addFinalizer,
  containsFinalizer,
  InvalidFinalizerError,
  patchAddFinalizer,
  patchRemoveFinalizer,
  removeFinalizer,
  validateFinalizerName,
} from "./finalizer.js";

const widgets: ResourceDescriptor = {
  group: "example.com",
  version: "v1",
  resource: "widgets",
  kind: "Widget",
  namespaced: true,
};
const F = "example.com/cleanup";

describe("finalizer names", () => {
  it("accepts qualified names and rejects others with an error naming the value", () => {
    for (const ok of [F, "cleanup", "a.b.c/x-y_z.1", "kubernetes"])
      expect(() => validateFinalizerName(ok)).not.toThrow();
    for (const bad of ["", "-x", "example.com/", "a/b/c", "Example.com!/x", "x".repeat(64), "/x"]) {
      expect(() => validateFinalizerName(bad)).toThrow(InvalidFinalizerError);
    }
    expect(() => validateFinalizerName("a/b/c")).toThrow(
      'invalid finalizer name "a/b/c": a valid label key must consist of',
    );
    expect(() => validateFinalizerName(42)).toThrow("finalizer name must be a string, got number");
    expect(() => addFinalizer({ metadata: {} }, "bad name")).toThrow(InvalidFinalizerError);
  });
});

describe("in-place helpers", () => {
  it("add is idempotent, remove reports whether it removed", () => {
    const o: KubeObject = { metadata: { name: "w" } };
    expect(addFinalizer(o, F)).toBe(true);
    expect(addFinalizer(o, F)).toBe(false);
    expect(addFinalizer(o, "other.io/x")).toBe(true);
    expect(o.metadata?.finalizers).toEqual([F, "other.io/x"]);
    expect(containsFinalizer(o, F)).toBe(true);
    expect(removeFinalizer(o, F)).toBe(true);
    expect(removeFinalizer(o, F)).toBe(false);
    expect(o.metadata?.finalizers).toEqual(["other.io/x"]);
  });
});

describe("patchAddFinalizer / patchRemoveFinalizer", () => {
  async function setup() {
    const client = new FakeObjectClient();
    const clock = new FakeClock(0);
    const w = await client.create(widgets, { metadata: { name: "w", namespace: "ns", finalizers: ["other.io/keep"] } });
    return { client, clock, w };
  }

  it("patches metadata.finalizers guarded by the resourceVersion, keeping other finalizers", async () => {
    const { client, clock, w } = await setup();
    const out = await patchAddFinalizer(client, widgets, w, F, { clock });
    expect(out.metadata?.finalizers).toEqual(["other.io/keep", F]);
    expect(client.requests.at(-1)).toMatchObject({
      verb: "patch",
      body: { metadata: { finalizers: ["other.io/keep", F], resourceVersion: w.metadata?.resourceVersion } },
    });
    const removed = await patchRemoveFinalizer(client, widgets, out, F, { clock });
    expect(removed?.metadata?.finalizers).toEqual(["other.io/keep"]);
  });

  it("a conflict re-reads the object and recomputes the patch (a concurrent finalizer is kept)", async () => {
    const { client, clock, w } = await setup();
    client.touch(widgets, "ns", "w", (o) => o.metadata!.finalizers!.push("third.io/party"));
    const p = patchAddFinalizer(client, widgets, w, F, { clock });
    await clock.step(10);
    const out = await p;
    expect(out.metadata?.finalizers).toEqual(["other.io/keep", "third.io/party", F]);
    expect(client.requests.map((r) => r.verb)).toEqual(["create", "patch", "get", "patch"]);
  });

  it("gives up after the retry steps with the last 409; a 404 on removal resolves undefined", async () => {
    const { client, clock, w } = await setup();
    client.fault = (req) => {
      if (req.verb === "patch") client.touch(widgets, "ns", "w", () => {});
    };
    const p = patchAddFinalizer(client, widgets, w, F, { clock });
    const settled = p.catch((e: unknown) => e);
    for (let i = 0; i < 5; i++) await clock.step(10);
    expect(isConflict(await settled)).toBe(true);
    expect(client.requests.filter((r) => r.verb === "patch")).toHaveLength(5);
    client.fault = undefined;
    await client.delete(widgets, "w", { namespace: "ns" });
    await expect(
      patchRemoveFinalizer(client, widgets, { ...w, metadata: { ...w.metadata, finalizers: [F] } }, F, { clock }),
    ).resolves.toBeUndefined();
  });

  it("nothing is written when there is nothing to change", async () => {
    const { client, clock, w } = await setup();
    const n = client.requests.length;
    await patchRemoveFinalizer(client, widgets, w, F, { clock });
    expect(client.requests.length).toBe(n);
  });
});
