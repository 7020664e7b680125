import type { KubeObject } from "@informer-ts/apimachinery";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createMergePatch, mergeFrom } from "./merge-patch.js";

/** RFC 7386 `MergePatch(target, patch)`, the server's side. */
function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === "object" && target !== null && !Array.isArray(target) ? { ...(target as object) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k], v);
  }
  return out;
}

const deployment = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "prod", resourceVersion: "7", labels: { app: "web" }, annotations: { a: "1" } },
  spec: { replicas: 1, template: { spec: { containers: [{ name: "c", image: "nginx:1" }] } } },
};

describe("createMergePatch (jsonpatch.CreateMergePatch)", () => {
  it.each([
    ["unchanged", { a: 1 }, { a: 1 }, {}],
    ["changed scalar", { a: 1 }, { a: 2 }, { a: 2 }],
    ["added field", { a: 1 }, { a: 1, b: "x" }, { b: "x" }],
    ["removed field", { a: 1, b: 2 }, { a: 1 }, { b: null }],
    ["nested change", { a: { b: 1, c: 2 } }, { a: { b: 1, c: 3 } }, { a: { c: 3 } }],
    ["arrays replaced whole", { a: [1, 2] }, { a: [1, 3] }, { a: [1, 3] }],
    ["object to scalar", { a: { b: 1 } }, { a: 5 }, { a: 5 }],
    ["undefined counts as absent", { a: 1, b: 2 }, { a: 1, b: undefined }, { b: null }],
  ])("%s", (_n, a, b, want) => {
    expect(createMergePatch<unknown>(a, b)).toEqual(want);
  });

  it("property: applying the patch to the original gives the modified object (JSON without nulls)", () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        fc.integer(),
        fc.string(),
        fc.boolean(),
        fc.array(tie("value"), { maxLength: 3 }),
        tie("object"),
      ),
      object: fc.dictionary(fc.constantFrom("a", "b", "c", "d"), tie("value"), { maxKeys: 4 }),
    }));
    fc.assert(
      fc.property(json.object, json.object, (a, b) => {
        expect(applyMergePatch(a, createMergePatch<unknown>(a, b))).toEqual(b);
      }),
    );
  });
});

describe("mergeFrom (client.MergeFrom)", () => {
  it("is the patch a user would write for the same edit", () => {
    const d = structuredClone(deployment);
    const patch = mergeFrom<KubeObject>(d);
    const { a: _drop, ...annotations } = d.metadata.annotations;
    const edited = {
      ...d,
      metadata: { ...d.metadata, labels: { ...d.metadata.labels, tier: "front" }, annotations },
      spec: { ...d.spec, replicas: 3 },
    };
    expect(patch.patchType).toBe("merge");
    expect(patch.data(edited)).toEqual({
      metadata: { labels: { tier: "front" }, annotations: { a: null } },
      spec: { replicas: 3 },
    });
  });

  it("property: for generated edits (set replicas, add and remove labels, change the image) it equals the hand-written patch", () => {
    fc.assert(
      fc.property(
        fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }),
        fc.dictionary(fc.constantFrom("x", "y", "z"), fc.string({ minLength: 1, maxLength: 3 }), { maxKeys: 3 }),
        fc.boolean(),
        fc.option(fc.constantFrom("nginx:2", "nginx:3"), { nil: undefined }),
        (replicas, addLabels, removeApp, image) => {
          const d = structuredClone(deployment);
          const patch = mergeFrom<KubeObject>(d);
          const edited = structuredClone(d);
          const want: Record<string, Record<string, unknown>> = {};
          if (replicas !== undefined && replicas !== d.spec.replicas) {
            edited.spec.replicas = replicas;
            want.spec = { replicas };
          }
          const labels: Record<string, string | null> = {};
          for (const [k, v] of Object.entries(addLabels)) {
            (edited.metadata.labels as Record<string, string>)[k] = v;
            labels[k] = v;
          }
          if (removeApp) {
            delete (edited.metadata.labels as Record<string, string | undefined>).app;
            labels.app = null;
          }
          if (Object.keys(labels).length > 0) want.metadata = { labels };
          if (image !== undefined) {
            edited.spec.template.spec.containers[0]!.image = image;
            // arrays are replaced whole by a merge patch: the user writes the whole containers list
            want.spec = { ...want.spec, template: { spec: { containers: [{ name: "c", image }] } } };
          }
          expect(patch.data(edited)).toEqual(want);
        },
      ),
    );
  });

  it("snapshots the original: editing it in place afterwards does not change the patch", () => {
    const d = structuredClone(deployment);
    const patch = mergeFrom<KubeObject>(d);
    d.spec.replicas = 9;
    expect(patch.data(d)).toEqual({ spec: { replicas: 9 } });
  });

  it("MergeFromWithOptimisticLock: the patch always carries the original's resourceVersion; none is an error", () => {
    const d = structuredClone(deployment);
    const edited = { ...d, metadata: { ...d.metadata, resourceVersion: "99" }, spec: { ...d.spec, replicas: 2 } };
    expect(mergeFrom<KubeObject>(d, { optimisticLock: true }).data(edited)).toEqual({
      metadata: { resourceVersion: "7" },
      spec: { replicas: 2 },
    });
    expect(mergeFrom<KubeObject>(d, { optimisticLock: true }).data(d)).toEqual({ metadata: { resourceVersion: "7" } });
    expect(() => mergeFrom({ metadata: { name: "x", namespace: "n" } }, { optimisticLock: true })).toThrow(
      /cannot use OptimisticLock, object n\/x does not have any resource version/,
    );
  });
});
