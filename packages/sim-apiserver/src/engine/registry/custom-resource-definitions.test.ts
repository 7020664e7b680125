// CustomResourceDefinitions in the engine (in-process, FakeClock): creating one serves its resource at once
// (resources(), list/create/watch), the stored definition carries the apiextensions defaults and Established
// status; deleting it deletes its objects (watchers see DELETED, then their stream ends) and the resource is 404;
// invalid definitions are 422 with upstream's messages and nothing is stored.
import { type KubeObject, StatusError } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BUILTIN_RESOURCES } from "../resources.js";
import { SimApiServer } from "../sim-apiserver.js";
import { resourceFromCrd, validateCustomResourceDefinition } from "./custom-resource-definitions.js";

const CRD = "customresourcedefinitions.apiextensions.k8s.io";

function gadgetsCrd(overrides: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "gadgets.example.org" },
    spec: {
      group: "example.org",
      names: { plural: "gadgets", kind: "Gadget", shortNames: ["gd"] },
      scope: "Namespaced",
      versions: [
        { name: "v1beta1", served: true, storage: false },
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      ],
      ...overrides,
    },
  };
}

const clocks = new WeakMap<SimApiServer, FakeClock>();

function engine() {
  const clock = new FakeClock(Date.parse("2026-04-01T00:00:00Z"));
  const e = new SimApiServer({ clock, rand: seededRand(3), progressNotifyIntervalMs: 0, compactionIntervalMs: 0 });
  clocks.set(e, clock);
  return e;
}

/** Lets the engine's controllers (delay 0) run their passes. */
async function settleControllers(e: SimApiServer): Promise<void> {
  for (let i = 0; i < 5; i++) await clocks.get(e)!.step(0);
}

async function rejected(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error("expected a rejection");
}

describe("CustomResourceDefinition lifecycle", () => {
  it("creating a definition serves its resource (storage version) with the defaults and Established status", async () => {
    const e = engine();
    const stored = await e.create(CRD, "", gadgetsCrd());
    expect(stored.spec).toMatchObject({ names: { singular: "gadget", listKind: "GadgetList" } });
    expect((stored.status as { conditions: Array<{ type: string; status: string }> }).conditions).toEqual([
      expect.objectContaining({ type: "NamesAccepted", status: "True" }),
      expect.objectContaining({ type: "Established", status: "True" }),
    ]);
    expect((stored.status as { storedVersions: string[] }).storedVersions).toEqual(["v1"]);
    const r = e.resource("gadgets.example.org");
    expect([r.version, r.kind, r.namespaced, r.shortNames, r.custom]).toEqual(["v1", "Gadget", true, ["gd"], true]);
    const g = await e.create("gadgets.example.org", "default", {
      apiVersion: "example.org/v1",
      kind: "Gadget",
      metadata: { name: "g1" },
      spec: { size: 3 },
    });
    expect(g.metadata?.uid).toBeDefined();
    expect((await e.list("gadgets.example.org", "default")).items.map((o) => o.metadata?.name)).toEqual(["g1"]);
  });

  it("deleting the definition marks it Terminating with the cleanup finalizer, deletes its objects (DELETED to watchers, then the watch ends), then the definition", async () => {
    const e = engine();
    await e.create(CRD, "", gadgetsCrd({ scope: "Cluster" }));
    await e.create("gadgets.example.org", "", { metadata: { name: "a" } });
    await e.create("gadgets.example.org", "", { metadata: { name: "b", finalizers: ["example.org/hold"] } });
    const w = await e.watch("gadgets.example.org", "", { resourceVersion: String(e.currentResourceVersion) });
    const ctx: { deleted?: boolean } = {};
    const marked = await e.delete(CRD, "", "gadgets.example.org", undefined, ctx);
    expect(ctx.deleted).toBe(false);
    expect(marked.metadata?.finalizers).toEqual(["customresourcecleanup.apiextensions.k8s.io"]);
    expect(marked.metadata?.deletionTimestamp).toBeDefined();
    const terminating = (c: KubeObject) =>
      (c.status as { conditions: Array<{ type: string; reason: string }> }).conditions.find(
        (x) => x.type === "Terminating",
      )?.reason;
    expect(terminating(marked)).toBe("InstanceDeletionPending");
    await settleControllers(e);
    // b's finalizer holds it, and the definition with it.
    const held = await e.get(CRD, "", "gadgets.example.org");
    expect(terminating(held)).toBe("InstanceDeletionInProgress");
    expect((await e.list("gadgets.example.org", "")).items.map((o) => o.metadata?.name)).toEqual(["b"]);
    await e.patch("gadgets.example.org", "", "b", "application/merge-patch+json", '{"metadata":{"finalizers":null}}');
    await settleControllers(e);
    const seen: string[] = [];
    for await (const ev of w) seen.push(`${ev.type} ${(ev.object as KubeObject).metadata?.name}`);
    expect(seen).toEqual(["DELETED a", "MODIFIED b", "DELETED b"]);
    expect(await rejected(e.get(CRD, "", "gadgets.example.org"))).toMatchObject({ code: 404 });
    const gone = await rejected(Promise.resolve().then(() => e.list("gadgets.example.org", "")));
    expect([gone.code, gone.status.message]).toEqual([
      404,
      "the server could not find the requested resource (gadgets.example.org)",
    ]);
    expect(e.resources().some((r) => r.group === "example.org")).toBe(false);
    // Defined again: served again, empty.
    await e.create(CRD, "", gadgetsCrd({ scope: "Cluster" }));
    expect((await e.list("gadgets.example.org", "")).items).toEqual([]);
  });

  it("a stall rule naming the resource outlives it: it then matches nothing, later watches open and are not stalled", async () => {
    const e = engine();
    await e.create(CRD, "", gadgetsCrd());
    expect(e.faults.stallWatchers({ resource: "gadgets.example.org" }, true)).toBe(0);
    const w = await e.watch("gadgets.example.org", "", { resourceVersion: "0" });
    expect(e.caches.watcherInfo().map((i) => [i.resource, i.stalled])).toEqual([["gadgets.example.org", true]]);
    await e.delete(CRD, "", "gadgets.example.org");
    await settleControllers(e);
    for await (const _ of w);
    // Before the fix every watch opened after this failed with the gone resource's 404 (and leaked its watcher).
    const cm = await e.watch("configmaps", "default", { resourceVersion: "0" });
    expect(e.caches.watcherInfo().map((i) => [i.resource, i.stalled])).toEqual([["configmaps", false]]);
    // Defined again, the rule applies again (it names the resource, not one incarnation of it).
    await e.create(CRD, "", gadgetsCrd());
    const again = await e.watch("gadgets.example.org", "", { resourceVersion: "0" });
    expect(e.caches.watcherInfo("gadgets.example.org").map((i) => i.stalled)).toEqual([true]);
    cm.stop();
    again.stop();
    e.stop();
  });

  it("a definition for a resource already served leaves that resource alone, also when deleted", async () => {
    const e = engine();
    const crd = gadgetsCrd({ group: "coordination.k8s.io", names: { plural: "leases", kind: "Lease" } });
    crd.metadata = { name: "leases.coordination.k8s.io" };
    await e.create(CRD, "", crd);
    await e.delete(CRD, "", "leases.coordination.k8s.io");
    await settleControllers(e);
    expect(await rejected(e.get(CRD, "", "leases.coordination.k8s.io"))).toMatchObject({ code: 404 });
    expect(e.resource("leases.coordination.k8s.io").custom).toBeUndefined();
  });

  it("invalid definitions: 422 with upstream's messages, nothing stored", async () => {
    const e = engine();
    const rv = e.currentResourceVersion;
    const bad = gadgetsCrd();
    bad.metadata = { name: "gadgets" };
    const err = await rejected(e.create(CRD, "", bad));
    expect([err.code, err.status.message]).toEqual([
      422,
      'CustomResourceDefinition.apiextensions.k8s.io "gadgets" is invalid: metadata.name: Invalid value: "gadgets": must be spec.names.plural+"."+spec.group',
    ]);
    expect(err.status.details?.causes).toEqual([
      {
        reason: "FieldValueInvalid",
        message: 'Invalid value: "gadgets": must be spec.names.plural+"."+spec.group',
        field: "metadata.name",
      },
    ]);
    expect(e.currentResourceVersion).toBe(rv);
    expect(() => e.resource("gadgets.example.org")).toThrow();
  });

  it("a definition whose x-kubernetes-validations rule does not compile is 422, nothing stored (TestValidateCustomResourceDefinition: invalid rule)", async () => {
    const e = engine();
    const rv = e.currentResourceVersion;
    const bad = gadgetsCrd();
    const version = (bad.spec as { versions: Array<Record<string, unknown>> }).versions[0]!;
    version.schema = {
      openAPIV3Schema: {
        type: "object",
        properties: {
          spec: {
            type: "object",
            properties: { replicas: { type: "integer" } },
            "x-kubernetes-validations": [
              { rule: "self.replicas >= 0" },
              { rule: "self.replicas >", message: "m" },
              { rule: "self.replicas < 10", messageExpression: "'too many ' +" },
              { rule: " " },
            ],
          },
        },
      },
    };
    const err = await rejected(e.create(CRD, "", bad));
    expect(err.code).toBe(422);
    const at = "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations";
    expect(err.status.details?.causes?.map((c) => c.field)).toEqual([
      `${at}[1].rule`,
      `${at}[2].messageExpression`,
      `${at}[3].rule`,
    ]);
    expect(err.status.message).toContain(
      `${at}[1].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.replicas >", Message:"m", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:`,
    );
    expect(err.status.message).toContain(`${at}[2].messageExpression: Invalid value: `);
    expect(err.status.message).toContain("messageExpression compilation failed: ERROR: ");
    expect(err.status.message).toContain(`${at}[3].rule: Required value`);
    expect(e.currentResourceVersion).toBe(rv);
  });

  it("a definition whose rule exceeds the estimated cost limit is 422 on create and on update, nothing changed", async () => {
    const e = engine();
    const withTags = (bounded: boolean) => {
      const crd = gadgetsCrd();
      (crd.spec as { versions: Array<Record<string, unknown>> }).versions[0]!.schema = {
        openAPIV3Schema: {
          type: "object",
          properties: {
            spec: {
              type: "object",
              properties: {
                tags: {
                  type: "array",
                  ...(bounded ? { maxItems: 16 } : {}),
                  items: { type: "string", ...(bounded ? { maxLength: 63 } : {}) },
                  "x-kubernetes-validations": [{ rule: "self.all(t, self.exists(u, u.startsWith(t)))" }],
                },
              },
            },
          },
        },
      };
      return crd;
    };
    const rv = e.currentResourceVersion;
    const err = await rejected(e.create(CRD, "", withTags(false)));
    expect(err.code).toBe(422);
    const rule =
      "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[tags].x-kubernetes-validations[0].rule";
    expect(err.status.details?.causes?.[0]).toEqual({
      reason: "FieldValueForbidden",
      message:
        "Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
      field: rule,
    });
    expect(e.currentResourceVersion).toBe(rv);
    // Bounded, the same rule is admissible; an update that drops the bounds again is refused and changes nothing.
    const created = (await e.create(CRD, "", withTags(true))) as KubeObject;
    const stored = e.currentResourceVersion;
    const update = { ...withTags(false), metadata: { ...created.metadata } };
    expect((await rejected(e.update(CRD, "", created.metadata?.name as string, update))).code).toBe(422);
    expect(e.currentResourceVersion).toBe(stored);
  });

  it("validation covers group, scope, versions and names", () => {
    const messages = (crd: KubeObject) =>
      validateCustomResourceDefinition(crd).map((x) => `${x.field}: ${x.type}${x.detail ? ` ${x.detail}` : ""}`);
    expect(messages(gadgetsCrd())).toEqual([]);
    const crd = gadgetsCrd({
      group: "nodot",
      scope: "Global",
      versions: [
        { name: "v1", storage: true },
        { name: "v2", storage: true },
      ],
      names: { plural: "Gadgets" },
    });
    crd.metadata = { name: "Gadgets.nodot" };
    expect(messages(crd)).toEqual([
      expect.stringMatching(/^metadata.name: FieldValueInvalid a lowercase RFC 1123 subdomain/),
      "spec.group: FieldValueInvalid should be a domain with at least one dot",
      'spec.scope: FieldValueNotSupported supported values: "Cluster", "Namespaced"',
      "spec.versions: FieldValueInvalid must have exactly one version marked as storage version",
      expect.stringMatching(/^spec.names.plural: FieldValueInvalid a lowercase RFC 1123 label/),
      "spec.names.kind: FieldValueRequired",
    ]);
    expect(() => resourceFromCrd({ spec: { group: "g.io", names: { plural: "xs", kind: "X" } } })).toThrow(
      "CustomResourceDefinition: spec.versions needs a served version",
    );
  });
});

// One descriptor shape: `subresources` is the contract's list of names (apimachinery's ResourceDescriptor) and the
// `/scale` paths sit in `scale`; a resource names `scale` exactly when it has the paths.
describe("subresources as the descriptor's list of names", () => {
  it("a version's status and scale subresources become the names status/scale, the scale paths their own field", () => {
    const paths = fc.record(
      { specReplicasPath: fc.constant(".spec.size"), statusReplicasPath: fc.constant(".status.ready") },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.boolean(), fc.option(paths, { nil: undefined }), (status, scale) => {
        const subresources = { ...(status && { status: {} }), ...(scale !== undefined && { scale }) };
        const r = resourceFromCrd(
          gadgetsCrd({
            versions: [{ name: "v1", served: true, storage: true, subresources }],
          }),
        );
        const complete = scale?.specReplicasPath !== undefined && scale.statusReplicasPath !== undefined;
        const names = [...(status ? ["status"] : []), ...(complete ? ["scale"] : [])];
        expect(r.subresources ?? []).toEqual(names);
        expect(r.scale).toEqual(complete ? scale : undefined);
      }),
    );
  });

  it("every built-in names scale exactly when it has scale paths (pods' status, deployments' status and scale)", () => {
    for (const r of BUILTIN_RESOURCES) {
      expect([r.resource, r.subresources?.includes("scale") ?? false]).toEqual([r.resource, r.scale !== undefined]);
    }
    const byName = (name: string) => BUILTIN_RESOURCES.find((r) => r.resource === name);
    expect([byName("pods")?.subresources, byName("deployments")?.subresources]).toEqual([
      ["status"],
      ["status", "scale"],
    ]);
  });
});
