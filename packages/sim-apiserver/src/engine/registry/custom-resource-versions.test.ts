// Several versions of one CustomResourceDefinition (apiextensions-apiserver's crdHandler, the None converter, the
// storedVersions bookkeeping): every served version is served over one storage — written at the storage version,
// read, listed and watched at the requested one — with its own schema, defaults and subresources; a version no
// longer served is 404; storedVersions grows with the storage version and keeps versions from being removed; the
// version rows of TestValidateCustomResourceDefinition; and a property: an object written at any served version
// reads back equal, apiVersion aside, at every served version.
import type { KubeObject } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SimApiServer } from "../sim-apiserver.js";
import { failure } from "../status-failure.test-util.js";
import { resourcesFromCrd, validateCustomResourceDefinition } from "./custom-resource-definitions.js";
import { deprecationWarningOf } from "./custom-resource-versions.js";

const CRD = "customresourcedefinitions.apiextensions.k8s.io";
type Version = Record<string, unknown>;

const object = (properties: Record<string, unknown>) => ({ type: "object", properties });

/** v1beta1 (served, deprecated), v1 (served, storage), v2alpha1 (not served); each version's spec differs. */
function widgetsCrd(versions?: Version[]): KubeObject {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.org" },
    spec: {
      group: "example.org",
      names: { plural: "widgets", kind: "Widget" },
      scope: "Namespaced",
      versions: versions ?? [
        {
          name: "v1beta1",
          served: true,
          storage: false,
          deprecated: true,
          schema: {
            openAPIV3Schema: object({
              spec: object({ size: { type: "integer" }, color: { type: "string", default: "red" } }),
            }),
          },
        },
        {
          name: "v1",
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: object({
              spec: object({ size: { type: "integer", maximum: 10 } }),
              status: object({ ready: { type: "boolean" } }),
            }),
          },
        },
        { name: "v2alpha1", served: false, storage: false },
      ],
    },
  };
}

function engine() {
  const clock = new FakeClock(Date.parse("2026-04-01T00:00:00Z"));
  return new SimApiServer({ clock, rand: seededRand(5), progressNotifyIntervalMs: 0, compactionIntervalMs: 0 });
}

const V1BETA1 = "widgets.v1beta1.example.org";
const V1 = "widgets.v1.example.org";

describe("several served versions of one CustomResourceDefinition", () => {
  it("every served version is served, the preferred one first; a version not served is not", async () => {
    const e = engine();
    await e.create(CRD, "", widgetsCrd());
    const served = e.resources().filter((r) => r.group === "example.org");
    expect(served.map((r) => r.version)).toEqual(["v1", "v1beta1"]);
    expect(e.resource("widgets.example.org").version).toBe("v1");
    expect(
      await failure(Promise.resolve().then(() => e.list("widgets.v2alpha1.example.org", "default"))),
    ).toMatchObject({ code: 404 });
  });

  it("an object written at one version is stored once and read, listed and watched at each", async () => {
    const e = engine();
    await e.create(CRD, "", widgetsCrd());
    const w = await e.watch(V1BETA1, "default", { resourceVersion: String(e.currentResourceVersion) });
    const made = await e.create(V1, "default", {
      apiVersion: "example.org/v1",
      kind: "Widget",
      metadata: { name: "w1" },
      spec: { size: 3 },
    });
    const old = await e.get(V1BETA1, "default", "w1");
    expect(old.apiVersion).toBe("example.org/v1beta1");
    expect([old.metadata?.uid, old.metadata?.resourceVersion]).toEqual([
      made.metadata?.uid,
      made.metadata?.resourceVersion,
    ]);
    // Read at v1beta1, the object gets v1beta1's defaults.
    expect(old.spec).toEqual({ size: 3, color: "red" });
    expect((await e.list(V1BETA1, "default")).items.map((o) => o.apiVersion)).toEqual(["example.org/v1beta1"]);
    const ev = await w.next();
    expect(ev.done).toBe(false);
    const seen = (ev as IteratorYieldResult<{ type: string; object: KubeObject }>).value;
    expect([seen.type, seen.object.apiVersion, seen.object.metadata?.name]).toEqual([
      "ADDED",
      "example.org/v1beta1",
      "w1",
    ]);
    w.stop();
    // Written at v1beta1, read at v1: one object, the storage version's apiVersion through v1.
    await e.update(V1BETA1, "default", "w1", { ...old, spec: { size: 4, color: "blue" } });
    const now = await e.get(V1, "default", "w1");
    expect([now.apiVersion, now.spec]).toEqual(["example.org/v1", { size: 4 }]);
  });

  it("each version validates with its own schema and has its own subresources", async () => {
    const e = engine();
    await e.create(CRD, "", widgetsCrd());
    const tooBig = await failure(
      e.create(V1, "default", {
        apiVersion: "example.org/v1",
        kind: "Widget",
        metadata: { name: "a" },
        spec: { size: 11 },
      }),
    );
    expect(tooBig.code).toBe(422);
    expect(tooBig.message).toContain(
      "spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10",
    );
    // v1beta1 has no maximum: the same object is admitted there.
    await e.create(V1BETA1, "default", {
      apiVersion: "example.org/v1beta1",
      kind: "Widget",
      metadata: { name: "a" },
      spec: { size: 11 },
    });
    expect(e.resource(V1).subresources).toEqual(["status"]);
    expect(e.resource(V1BETA1).subresources).toBeUndefined();
  });

  it("a version changed to served: false stops being served; the others keep their objects", async () => {
    const e = engine();
    const crd = await e.create(CRD, "", widgetsCrd());
    await e.create(V1, "default", { apiVersion: "example.org/v1", kind: "Widget", metadata: { name: "k" } });
    const versions = (crd.spec as { versions: Version[] }).versions.map((v) =>
      v.name === "v1beta1" ? { ...v, served: false } : v,
    );
    await e.update(CRD, "", "widgets.example.org", { ...crd, spec: { ...(crd.spec as object), versions } });
    expect(await failure(Promise.resolve().then(() => e.get(V1BETA1, "default", "k")))).toMatchObject({ code: 404 });
    expect((await e.get(V1, "default", "k")).metadata?.name).toBe("k");
  });

  it("storedVersions gains a new storage version, and a stored version cannot be removed from spec.versions", async () => {
    const e = engine();
    const crd = await e.create(CRD, "", widgetsCrd());
    expect((crd.status as { storedVersions: string[] }).storedVersions).toEqual(["v1"]);
    const spec = crd.spec as { versions: Version[] };
    const toBeta: Version[] = spec.versions.map((v) => ({ ...v, storage: v.name === "v1beta1" }));
    const moved = await e.update(CRD, "", "widgets.example.org", { ...crd, spec: { ...spec, versions: toBeta } });
    expect((moved.status as { storedVersions: string[] }).storedVersions).toEqual(["v1", "v1beta1"]);
    // v1 is still a stored version: dropping it from spec.versions is invalid, nothing changes.
    const withoutV1 = toBeta.filter((v) => v.name !== "v1");
    const err = await failure(
      e.update(CRD, "", "widgets.example.org", { ...moved, spec: { ...spec, versions: withoutV1 } }),
    );
    expect(err.code).toBe(422);
    expect(err.message).toContain('status.storedVersions[0]: Invalid value: "v1": must appear in spec.versions');
    expect((await e.get(CRD, "", "widgets.example.org")).metadata?.resourceVersion).toBe(
      moved.metadata?.resourceVersion,
    );
    // Once the migration removed v1 from storedVersions (a /status write), v1 can go.
    const status = { ...(moved.status as object), storedVersions: ["v1beta1"] };
    const migrated = await e.update(CRD, "", "widgets.example.org", { ...moved, status }, { subresource: "status" });
    const gone = await e.update(CRD, "", "widgets.example.org", {
      ...migrated,
      spec: { ...spec, versions: withoutV1 },
    });
    expect((gone.status as { storedVersions: string[] }).storedVersions).toEqual(["v1beta1"]);
    expect(
      e
        .resources()
        .filter((r) => r.group === "example.org")
        .map((r) => r.version),
    ).toEqual(["v1beta1"]);
  });

  it("an update that changes nothing any version serves keeps every version's watch open", async () => {
    const e = engine();
    const crd = await e.create(CRD, "", widgetsCrd());
    const w = await e.watch(V1BETA1, "default", { resourceVersion: String(e.currentResourceVersion) });
    await e.update(CRD, "", "widgets.example.org", { ...crd, metadata: { ...crd.metadata, labels: { a: "b" } } });
    await e.create(V1, "default", { apiVersion: "example.org/v1", kind: "Widget", metadata: { name: "still" } });
    const ev = (await w.next()) as IteratorYieldResult<{ type: string; object: KubeObject }>;
    expect([ev.value.type, ev.value.object.metadata?.name]).toEqual(["ADDED", "still"]);
    w.stop();
  });

  it("a deprecated version carries its warning: the given one, or the default naming a newer served version", () => {
    const crd = widgetsCrd();
    const [beta] = (crd.spec as { versions: Version[] }).versions;
    expect(deprecationWarningOf(crd, beta!)).toBe(
      "example.org/v1beta1 Widget is deprecated; use example.org/v1 Widget",
    );
    expect(deprecationWarningOf(crd, { ...beta!, deprecationWarning: "use v1" })).toBe("use v1");
    const alone = widgetsCrd([{ name: "v1beta1", served: true, storage: true, deprecated: true }]);
    expect(deprecationWarningOf(alone, { name: "v1beta1", deprecated: true })).toBe(
      "example.org/v1beta1 Widget is deprecated",
    );
    expect(resourcesFromCrd(crd).map((r) => r.deprecationWarning)).toEqual([
      undefined,
      "example.org/v1beta1 Widget is deprecated; use example.org/v1 Widget",
    ]);
  });
});

// TestValidateCustomResourceDefinition (pkg/apis/apiextensions/validation/validation_test.go): the rows about versions.
describe("TestValidateCustomResourceDefinition: versions", () => {
  const messages = (versions: Version[]) =>
    validateCustomResourceDefinition(widgetsCrd(versions)).map((x) => `${x.field}: ${x.type} ${x.detail ?? ""}`.trim());
  const rows: Array<[string, Version[], string[]]> = [
    [
      "no_storage_version",
      [{ name: "v1", served: true, storage: false }],
      ["spec.versions: FieldValueInvalid must have exactly one version marked as storage version"],
    ],
    [
      "multiple_storage_version",
      [
        { name: "v1", served: true, storage: true },
        { name: "v2", served: true, storage: true },
      ],
      ["spec.versions: FieldValueInvalid must have exactly one version marked as storage version"],
    ],
    [
      "duplicate version",
      [
        { name: "v1", served: true, storage: true },
        { name: "v1", served: true, storage: false },
      ],
      ["spec.versions: FieldValueInvalid must contain unique version names"],
    ],
    [
      "invalid version name",
      [{ name: "V1.0", served: true, storage: true }],
      [
        expect.stringMatching(
          /^spec\.versions\[0\]\.name: FieldValueInvalid a DNS-1035 label must consist of/,
        ) as unknown as string,
      ],
    ],
    [
      "deprecationWarning on a version not deprecated",
      [{ name: "v1", served: true, storage: true, deprecationWarning: "old" }],
      ["spec.versions[0].deprecationWarning: FieldValueInvalid can only be set for deprecated versions"],
    ],
    [
      "deprecationWarning too long",
      [{ name: "v1", served: true, storage: true, deprecated: true, deprecationWarning: "x".repeat(257) }],
      ["spec.versions[0].deprecationWarning: FieldValueTooLong must have at most 256 bytes"],
    ],
    [
      "deprecationWarning with a control character",
      [{ name: "v1", served: true, storage: true, deprecated: true, deprecationWarning: "a\tb" }],
      ["spec.versions[0].deprecationWarning: FieldValueInvalid must only contain printable UTF-8 characters"],
    ],
    [
      "printer column with an unsupported type and no jsonPath",
      [{ name: "v1", served: true, storage: true, additionalPrinterColumns: [{ name: "x", type: "bogus" }] }],
      [
        'spec.versions[0].additionalPrinterColumns[0].type: FieldValueNotSupported supported values: "boolean", "date", "integer", "number", "string"',
        "spec.versions[0].additionalPrinterColumns[0].jsonPath: FieldValueRequired",
      ],
    ],
    [
      "a served and an unserved version",
      [
        { name: "v1", served: true, storage: true },
        { name: "v2", served: false, storage: false },
      ],
      [],
    ],
  ];
  for (const [name, versions, want] of rows) {
    it(name, () => {
      expect(messages(versions)).toEqual(want);
    });
  }
});

describe("property: an object reads back the same at every served version", () => {
  it("written at any served version, read at every served version: equal but for apiVersion", async () => {
    const versions: Version[] = ["v1", "v1beta1", "v2", "v1alpha1"].map((name, i) => ({
      name,
      served: true,
      storage: i === 0,
      schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
    }));
    const value = fc.jsonValue({ maxDepth: 2 }).filter((v) => v !== null);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 3 }),
        fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), value),
        async (at, spec) => {
          const e = engine();
          await e.create(CRD, "", widgetsCrd(versions));
          const written = versions[at]!.name as string;
          await e.create(`widgets.${written}.example.org`, "default", {
            apiVersion: `example.org/${written}`,
            kind: "Widget",
            metadata: { name: "p" },
            spec,
          });
          const reads = await Promise.all(
            versions.map((v) => e.get(`widgets.${v.name as string}.example.org`, "default", "p")),
          );
          const { apiVersion: _a, ...first } = reads[0]!;
          reads.forEach((o, i) => {
            const { apiVersion, ...rest } = o;
            expect(apiVersion).toBe(`example.org/${versions[i]!.name as string}`);
            expect(rest).toEqual(first);
          });
          expect(first.spec).toEqual(JSON.parse(JSON.stringify(spec)));
        },
      ),
      { numRuns: 40 },
    );
  });
});
