import { isConflict, type KubeObject, StatusError } from "@informer-ts/apimachinery";
import { FakeClock } from "@informer-ts/clock";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deepFreeze } from "../../object-util.js";
import { schemaFor } from "./builtin-schemas.js";
import { FieldSet } from "./field-set.js";
import { fieldElement } from "./path-element.js";
import { keepsOwnership, STRIPPED, StructuredMergeManager } from "./structured-merge-manager.js";

const T0 = Date.parse("2026-01-01T00:00:00Z");

function managerFor(group: string, kind: string, custom = false, version = "v1") {
  const clock = new FakeClock(T0);
  return {
    clock,
    fm: new StructuredMergeManager({ group, version, kind, schema: schemaFor(group, kind, custom), clock }),
  };
}

function cm(data: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "ns", ...extra }, data };
}

/** The fieldsV1 of the first managedFields entry. */
function fieldsOf(obj: KubeObject): unknown {
  return (obj.metadata?.managedFields as Array<{ fieldsV1?: unknown }> | undefined)?.[0]?.fieldsV1;
}

function thrown(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error("expected a StatusError");
}

describe("StructuredMergeManager.update (Update operations)", () => {
  it("records a create as an Update entry with '.' on added maps, metadata identity stripped", () => {
    const { fm } = managerFor("", "ConfigMap");
    const out = fm.update(undefined, cm({ a: "1" }, { labels: { app: "x" } }), "kubectl-create");
    expect(out.metadata?.managedFields).toEqual([
      {
        manager: "kubectl-create",
        operation: "Update",
        apiVersion: "v1",
        time: "2026-01-01T00:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { ".": {}, "f:a": {} }, "f:metadata": { "f:labels": { ".": {}, "f:app": {} } } },
      },
    ]);
  });

  it("an update by another manager takes the fields it changed and drops removed ones from their owners", async () => {
    const { fm, clock } = managerFor("", "ConfigMap");
    const created = fm.update(undefined, cm({ a: "1", b: "2" }), "creator");
    await clock.step(5000);
    const next = structuredClone(created);
    next.data = { a: "changed" }; // b removed
    const out = fm.update(created, next, "editor");
    const mf = out.metadata?.managedFields as Array<Record<string, unknown>>;
    expect(mf.map((e) => [e.manager, e.fieldsV1])).toEqual([
      ["creator", { "f:data": {} }], // still owns the map itself (a member without children)
      ["editor", { "f:data": { "f:a": {} } }],
    ]);
    expect(mf[1]!.time).toBe("2026-01-01T00:00:05Z");
  });

  it("an update that changes nothing keeps the entries; [] or [{}] clears them", () => {
    const { fm } = managerFor("", "ConfigMap");
    const created = fm.update(undefined, cm({ a: "1" }), "creator");
    expect(fm.update(created, structuredClone(created), "other").metadata?.managedFields).toEqual(
      created.metadata?.managedFields,
    );
    const reset = structuredClone(created);
    reset.metadata!.managedFields = [{}];
    expect(fm.update(created, reset, "other").metadata?.managedFields).toBeUndefined();
  });

  it("an object that does not fit the schema is stored without managed fields instead of failing", () => {
    const { fm } = managerFor("apps", "Deployment");
    const d: KubeObject = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d" },
      spec: { template: { spec: { containers: [{ image: "no-name" }] } } },
    };
    expect(fm.update(undefined, d, "m").metadata?.managedFields).toBeUndefined();
  });
});

describe("StructuredMergeManager.apply", () => {
  it("an apply that creates records an Apply entry without '.' on struct fields", () => {
    const { fm } = managerFor("", "ConfigMap");
    const out = fm.apply(undefined, cm({ a: "1" }, { labels: { app: "x" } }), "mgr", false);
    expect(out.data).toEqual({ a: "1" });
    expect(out.metadata?.managedFields).toEqual([
      {
        manager: "mgr",
        operation: "Apply",
        apiVersion: "v1",
        time: "2026-01-01T00:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { "f:a": {} }, "f:metadata": { "f:labels": { "f:app": {} } } },
      },
    ]);
  });

  it("conflicts with an Update owner: 409 with upstream's message and causes; same value is shared ownership", () => {
    const { fm } = managerFor("", "ConfigMap");
    const live = fm.update(undefined, cm({ a: "1", b: "2" }), "kubectl-create");
    const err = thrown(() => fm.apply(live, cm({ a: "other" }), "mgr", false));
    expect(isConflict(err)).toBe(true);
    expect(err.status.message).toBe('Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.a');
    expect(err.status.details).toEqual({
      causes: [
        { reason: "FieldManagerConflict", message: 'conflict with "kubectl-create" using v1', field: ".data.a" },
      ],
    });
    const shared = fm.apply(live, cm({ a: "1" }), "mgr", false);
    expect(shared.metadata?.resourceVersion).toBe(live.metadata?.resourceVersion);
    const mf = shared.metadata?.managedFields as Array<Record<string, unknown>>;
    expect(mf.map((e) => e.manager)).toEqual(["mgr", "kubectl-create"]);
    expect(mf[0]!.time).toBeUndefined(); // nothing changed: no timestamp for the new co-owner
  });

  it("several conflicts are grouped by manager in identifier order", () => {
    const { fm } = managerFor("", "ConfigMap");
    let live = fm.apply(undefined, cm({ a: "1" }), "zeta", false);
    live = fm.apply(live, cm({ b: "1", c: "1" }), "alpha", false);
    const err = thrown(() => fm.apply(live, cm({ a: "2", b: "2", c: "2" }), "mgr", false));
    expect(err.status.message).toBe(
      'Apply failed with 3 conflicts: conflicts with "alpha":\n- .data.b\n- .data.c\nconflicts with "zeta":\n- .data.a',
    );
    expect(err.status.details?.causes?.map((c) => c.field)).toEqual([".data.b", ".data.c", ".data.a"]);
  });

  it("force takes the conflicting fields from their owner", () => {
    const { fm } = managerFor("", "ConfigMap");
    const live = fm.update(undefined, cm({ a: "1", b: "2" }), "kubectl-create");
    const out = fm.apply(live, cm({ a: "forced" }), "mgr", true);
    expect(out.data).toEqual({ a: "forced", b: "2" });
    const mf = out.metadata?.managedFields as Array<Record<string, unknown>>;
    expect(mf.map((e) => [e.manager, e.operation, e.fieldsV1])).toEqual([
      ["mgr", "Apply", { "f:data": { "f:a": {} } }],
      ["kubectl-create", "Update", { "f:data": { ".": {}, "f:b": {} } }],
    ]);
  });

  it("a field dropped from the applier's config is removed unless another manager owns it", () => {
    const { fm } = managerFor("", "ConfigMap");
    let live = fm.apply(undefined, cm({ a: "1", b: "1" }), "one", false);
    live = fm.apply(live, cm({ b: "1" }), "two", false); // two co-owns b
    const out = fm.apply(live, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } }, "one", false);
    expect(out.data).toEqual({ b: "1" });
    const gone = fm.apply(out, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } }, "two", false);
    expect(gone.data).toBeUndefined();
    expect(gone.metadata?.managedFields).toBeUndefined();
    // Applying an empty map owns the map itself: it stays, empty.
    const empty = fm.apply(gone, cm({}), "one", false);
    expect(fieldsOf(fm.apply(empty, cm({ z: "1" }), "two", false))).toEqual({
      "f:data": {},
    });
  });

  it("Deployment containers are keyed by name: another manager's container and fields survive", () => {
    const { fm } = managerFor("apps", "Deployment");
    const dep = (containers: unknown[], replicas?: number): KubeObject => ({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d" },
      spec: {
        ...(replicas !== undefined && { replicas }),
        selector: { matchLabels: { app: "d" } },
        template: { metadata: { labels: { app: "d" } }, spec: { containers } },
      },
    });
    let live = fm.apply(undefined, dep([{ name: "app", image: "app:1" }], 2), "ci", false);
    expect(fieldsOf(live)).toEqual({
      "f:spec": {
        "f:replicas": {},
        "f:selector": {},
        "f:template": {
          "f:metadata": { "f:labels": { "f:app": {} } },
          "f:spec": { "f:containers": { 'k:{"name":"app"}': { ".": {}, "f:image": {}, "f:name": {} } } },
        },
      },
    });
    live = fm.apply(live, dep([{ name: "sidecar", image: "proxy:1" }]), "mesh", false);
    const containers = (live.spec as { template: { spec: { containers: unknown[] } } }).template.spec.containers;
    expect(containers).toEqual([
      { name: "app", image: "app:1" },
      { name: "sidecar", image: "proxy:1" },
    ]);
    const err = thrown(() => fm.apply(live, dep([{ name: "app", image: "app:2" }], 2), "mesh", false));
    expect(err.status.message).toBe(
      'Apply failed with 1 conflict: conflict with "ci": .spec.template.spec.containers[name="app"].image',
    );
    // ci stops applying replicas: nobody else owns it, so it goes.
    live = fm.apply(live, dep([{ name: "app", image: "app:2" }]), "ci", false);
    expect((live.spec as { replicas?: number }).replicas).toBeUndefined();
    expect(JSON.stringify(live.spec)).toContain("proxy:1");
  });

  it("Secrets and Leases: data keys and lease spec fields are owned one by one", () => {
    const { fm: secrets } = managerFor("", "Secret");
    const secret = (data: Record<string, string>): KubeObject => ({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s" },
      type: "Opaque",
      data,
    });
    let live = secrets.apply(undefined, secret({ user: "dQ==" }), "a", false);
    live = secrets.apply(live, secret({ pass: "cA==" }), "b", false);
    expect(live.data).toEqual({ user: "dQ==", pass: "cA==" });
    expect(fieldsOf(live)).toEqual({ "f:data": { "f:user": {} }, "f:type": {} });
    const { fm: leases } = managerFor("coordination.k8s.io", "Lease");
    const lease = (spec: Record<string, unknown>): KubeObject => ({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "leader" },
      spec,
    });
    let l = leases.apply(undefined, lease({ holderIdentity: "pod-a", leaseDurationSeconds: 15 }), "pod-a", false);
    const err = thrown(() => leases.apply(l, lease({ holderIdentity: "pod-b" }), "pod-b", false));
    expect(err.status.message).toBe('Apply failed with 1 conflict: conflict with "pod-a": .spec.holderIdentity');
    l = leases.apply(l, lease({ holderIdentity: "pod-b" }), "pod-b", true);
    expect(l.spec).toEqual({ holderIdentity: "pod-b", leaseDurationSeconds: 15 });
  });

  it("schemaless custom resources are granular maps ('.' on every object) with atomic lists", () => {
    const { fm } = managerFor("example.com", "Widget", true);
    const w = (spec: unknown): KubeObject => ({
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w" },
      spec,
    });
    let live = fm.apply(undefined, w({ size: 1, tags: ["a", "b"], nested: { x: 1 } }), "a", false);
    expect(fieldsOf(live)).toEqual({
      "f:spec": { ".": {}, "f:nested": { ".": {}, "f:x": {} }, "f:size": {}, "f:tags": {} },
    });
    live = fm.apply(live, w({ color: "red" }), "b", false);
    expect(live.spec).toEqual({ size: 1, tags: ["a", "b"], nested: { x: 1 }, color: "red" });
    const err = thrown(() => fm.apply(live, w({ tags: ["c"] }), "b", false));
    expect(err.status.details?.causes?.[0]?.field).toBe(".spec.tags");
  });

  it("rejects a configuration of another kind, one with managedFields, and one that does not fit the schema", () => {
    const { fm } = managerFor("", "ConfigMap");
    expect(thrown(() => fm.apply(undefined, { metadata: { name: "c" } }, "m", false)).status.message).toBe(
      "invalid object type: /, Kind=",
    );
    expect(
      thrown(() => fm.apply(undefined, { apiVersion: "apps/v1", kind: "Deployment" }, "m", false)).status.message,
    ).toBe("invalid object type: apps/v1, Kind=Deployment");
    const withMf = cm({}, { managedFields: [] });
    expect(thrown(() => fm.apply(undefined, withMf, "m", false)).status.message).toBe(
      "metadata.managedFields must be nil",
    );
    const { fm: dfm } = managerFor("apps", "Deployment");
    const bad = thrown(() =>
      dfm.apply(
        undefined,
        { apiVersion: "apps/v1", kind: "Deployment", spec: { template: { spec: { containers: [{ image: "i" }] } } } },
        "m",
        false,
      ),
    );
    expect(bad.code).toBe(400);
    expect(bad.status.message).toBe(
      'failed to create typed patch object (apps/v1, Kind=Deployment): .spec.template.spec.containers: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
    );
  });

  it("ignored (reset) fields are never owned", () => {
    const clock = new FakeClock(T0);
    const fm = new StructuredMergeManager({
      group: "apps",
      version: "v1",
      kind: "Deployment",
      schema: schemaFor("apps", "Deployment", false),
      clock,
      ignoredFields: FieldSet.of([fieldElement("status")]),
    });
    const out = fm.apply(
      undefined,
      { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d" }, spec: { replicas: 1 }, status: { x: 1 } },
      "m",
      false,
    );
    expect(fieldsOf(out)).toEqual({ "f:spec": { "f:replicas": {} } });
  });
});

describe("StructuredMergeManager properties", () => {
  const key = fc.constantFrom("a", "b", "c", "d", "e", "f");
  const data = fc.dictionary(key, fc.string({ maxLength: 3 }), { maxKeys: 6 });

  it("applying the same configuration twice changes nothing the second time", async () => {
    await fc.assert(
      fc.asyncProperty(data, data, async (first, second) => {
        const { fm, clock } = managerFor("", "ConfigMap");
        let live = fm.apply(undefined, cm(first), "m", false);
        live = fm.apply(live, cm(second), "m", false);
        await clock.step(60_000);
        const again = fm.apply(live, cm(second), "m", false);
        expect(again).toEqual(live);
        expect(live.data ?? {}).toEqual(second);
      }),
    );
  });

  it("two managers applying disjoint fields both keep theirs; each owns exactly its own", () => {
    fc.assert(
      fc.property(data, data, (x, y) => {
        const mine = Object.fromEntries(Object.entries(x).map(([k, v]) => [`x${k}`, v]));
        const theirs = Object.fromEntries(Object.entries(y).map(([k, v]) => [`y${k}`, v]));
        const { fm } = managerFor("", "ConfigMap");
        let live = fm.apply(undefined, cm(mine), "one", false);
        live = fm.apply(live, cm(theirs), "two", false);
        live = fm.apply(live, cm(mine), "one", false); // re-apply: nothing of "two" is pruned
        expect(live.data ?? {}).toEqual({ ...mine, ...theirs });
        for (const e of (live.metadata?.managedFields ?? []) as Array<{ manager: string; fieldsV1: unknown }>) {
          const own = e.manager === "one" ? mine : theirs;
          expect(Object.keys((e.fieldsV1 as Record<string, Record<string, unknown>>)["f:data"] ?? {}).sort()).toEqual(
            Object.keys(own)
              .map((k) => `f:${k}`)
              .sort(),
          );
        }
      }),
    );
  });
});

describe("keepsOwnership (the update's fast path for its writer)", () => {
  // Paths over fields that meet STRIPPED (metadata, its name and resourceVersion) and ones that do not.
  const name = fc.constantFrom("metadata", "name", "resourceVersion", "labels", "spec", "a", "b");
  const path = fc.array(name.map(fieldElement), { minLength: 1, maxLength: 3 });
  const paths = fc.array(path, { maxLength: 10 });

  it("holds only when the slow path's set (set − changed − removed) ∪ (changed − STRIPPED) is the set itself", () => {
    let held = 0;
    fc.assert(
      fc.property(paths, paths, paths, fc.boolean(), (own, changes, removals, ownsChanges) => {
        const changed = FieldSet.of(...changes);
        // Half the cases own what they change, so that the fast path is taken often.
        const set = ownsChanges ? FieldSet.of(...own).union(changed.difference(STRIPPED)) : FieldSet.of(...own);
        const removed = FieldSet.of(...removals);
        const slow = set.difference(changed).difference(removed).union(changed.difference(STRIPPED));
        if (keepsOwnership(set, changed, removed)) {
          held++;
          expect(slow.paths()).toEqual(set.paths());
        }
      }),
      { numRuns: 300 },
    );
    expect(held).toBeGreaterThan(0);
  });

  it("an update that rewrites a field its manager owns keeps the manager's set and FieldsV1 as they were", () => {
    const { fm } = managerFor("", "ConfigMap");
    const live = deepFreeze(fm.update(undefined, cm({ a: "1", b: "2" }), "m")); // as the storage keeps it
    const next = fm.update(live, cm({ a: "3", b: "2" }), "m");
    expect(next.metadata?.managedFields).toEqual(live.metadata?.managedFields);
    expect(fieldsOf(next)).toBe(fieldsOf(live));
  });
});
