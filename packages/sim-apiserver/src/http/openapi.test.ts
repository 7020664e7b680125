// The served OpenAPI documents: Kubernetes' published definitions for the built-in kinds (with the extensions
// kubectl's client-side apply needs), CustomResourceDefinition schemas per apiextensions' builder (its
// builder_test.go TestNewBuilder / TestBuildOpenAPIV2 cases and v2/conversion_test.go TestToStructuralOpenAPIV2,
// ported as the behaviours they check) and the handlers' hash, ETag and Accept rules.
import { describe, expect, it } from "vitest";
import { BUILTIN_RESOURCES, type SimResource } from "../engine/resources.js";
import { DEFAULT_VERBS } from "../engine/served-resource.js";
import { customResourceDefinitionName, customResourceSchema } from "./openapi/custom-resource-schema.js";
import { kubernetesDefinitions } from "./openapi/kubernetes-definitions.js";
import { PUBLISHED_OPENAPI_KUBE_VERSION, PUBLISHED_OPENAPI_STATS } from "./openapi/published-definitions.js";
import { toV3Schema } from "./openapi/v3-schema.js";
import { buildOpenApiV2, buildOpenApiV3, openApiV2Doc, openApiV3GroupVersionDoc } from "./openapi.js";

type Doc = {
  paths: Record<
    string,
    Record<string, { requestBody?: { content: Record<string, unknown> } } & Record<string, unknown>>
  >;
  components: { schemas: Record<string, Record<string, unknown>> };
};
const v3Of = (rs: readonly SimResource[]) => openApiV3GroupVersionDoc(rs) as unknown as Doc;
const prop = (s: unknown, ...path: string[]): Record<string, unknown> => {
  let cur = s as Record<string, unknown>;
  for (const p of path) cur = (cur.properties as Record<string, Record<string, unknown>>)[p] as Record<string, unknown>;
  return cur;
};

const widget = (schema?: Record<string, unknown>): SimResource => ({
  group: "stable.example.com",
  version: "v1",
  resource: "widgets",
  kind: "Widget",
  listKind: "WidgetList",
  singularName: "widget",
  namespaced: true,
  verbs: DEFAULT_VERBS,
  custom: true,
  ...(schema !== undefined && { openAPIV3Schema: schema }),
});

describe("the published definitions (openapi/kubernetes-v1.34.0-definitions.json.br)", () => {
  it("hold Kubernetes v1.34.0's definitions unchanged: descriptions, GVKs, patch and list extensions", () => {
    expect(PUBLISHED_OPENAPI_KUBE_VERSION).toBe("v1.34.0");
    const d = kubernetesDefinitions().definitions;
    expect(Object.keys(d)).toHaveLength(PUBLISHED_OPENAPI_STATS.definitions);
    const containers = prop(d["io.k8s.api.core.v1.PodSpec"], "containers");
    expect(containers).toMatchObject({
      "x-kubernetes-patch-merge-key": "name",
      "x-kubernetes-patch-strategy": "merge",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
    });
    expect(String(containers.description)).toContain("List of containers belonging to the pod.");
    expect(prop(d["io.k8s.api.core.v1.Container"], "ports")).toMatchObject({
      "x-kubernetes-patch-merge-key": "containerPort",
      "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
    });
    expect(d["io.k8s.api.apps.v1.Deployment"]?.["x-kubernetes-group-version-kind"]).toEqual([
      { group: "apps", kind: "Deployment", version: "v1" },
    ]);
  });

  it("cover every built-in kind the simulator serves (and its List, where it has one)", () => {
    const k8s = kubernetesDefinitions();
    const missing = BUILTIN_RESOURCES.filter((r) => k8s.definitionOf(r.group, r.version, r.kind) === undefined);
    expect(missing.map((r) => `${r.group}/${r.version}/${r.kind}`)).toEqual([]);
    const listed = BUILTIN_RESOURCES.filter((r) => r.verbs.includes("list"));
    const noList = listed.filter((r) => k8s.definitionOf(r.group, r.version, `${r.kind}List`) === undefined);
    expect(noList.map((r) => r.kind)).toEqual([]);
  });
});

describe("toV3Schema (kube-openapi's v2 to v3 form)", () => {
  it("points references into components and wraps a reference with siblings in allOf", () => {
    expect(toV3Schema({ $ref: "#/definitions/io.k8s.api.apps.v1.DeploymentStrategy" })).toEqual({
      $ref: "#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy",
    });
    expect(
      toV3Schema({
        $ref: "#/definitions/io.k8s.api.apps.v1.DeploymentStrategy",
        description: "The deployment strategy",
        "x-kubernetes-patch-strategy": "retainKeys",
      }),
    ).toEqual({
      allOf: [{ $ref: "#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy" }],
      description: "The deployment strategy",
      "x-kubernetes-patch-strategy": "retainKeys",
    });
    // Property names are not keywords: a property called "default" or "enum" is a schema like any other.
    expect(
      toV3Schema({
        properties: { default: { $ref: "#/definitions/X" }, enum: { items: { $ref: "#/definitions/Y" } } },
      }),
    ).toEqual({
      properties: { default: { $ref: "#/components/schemas/X" }, enum: { items: { $ref: "#/components/schemas/Y" } } },
    });
  });
});

describe("OpenAPI v3 group version documents", () => {
  const apps = BUILTIN_RESOURCES.filter((r) => r.group === "apps");

  it("carry each served kind's schema with everything it references", () => {
    const doc = v3Of(apps);
    const s = doc.components.schemas;
    for (const name of [
      "Deployment",
      "DeploymentList",
      "StatefulSet",
      "DaemonSet",
      "ReplicaSet",
      "ControllerRevision",
    ]) {
      expect(s[`io.k8s.api.apps.v1.${name}`], name).toBeDefined();
    }
    expect(s["io.k8s.api.core.v1.PodSpec"]).toBeDefined();
    expect(s["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]).toBeDefined();
    expect(s["io.k8s.apimachinery.pkg.apis.meta.v1.Status"]).toBeDefined();
    // No dangling reference.
    const refs = JSON.stringify(doc).match(/#\/components\/schemas\/[^"]+/g) ?? [];
    for (const r of new Set(refs)) expect(s[r.slice("#/components/schemas/".length)], r).toBeDefined();
    expect(prop(s["io.k8s.api.apps.v1.DeploymentSpec"], "strategy")).toMatchObject({
      allOf: [{ $ref: "#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy" }],
      "x-kubernetes-patch-strategy": "retainKeys",
    });
  });

  it("a built-in kind's patch accepts strategic merge patches, a custom resource's does not", () => {
    const deploy = v3Of(apps).paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]?.patch;
    expect(deploy?.operationId).toBe("patchAppsV1NamespacedDeployment");
    expect(deploy?.["x-kubernetes-group-version-kind"]).toEqual({ group: "apps", kind: "Deployment", version: "v1" });
    expect(Object.keys(deploy?.requestBody?.content ?? {})).toContain("application/strategic-merge-patch+json");
    const cr = v3Of([widget({ type: "object" })]).paths[
      "/apis/stable.example.com/v1/namespaces/{namespace}/widgets/{name}"
    ]?.patch;
    expect(cr?.operationId).toBe("patchNamespacedWidget");
    expect(Object.keys(cr?.requestBody?.content ?? {}).sort()).toEqual([
      "application/apply-patch+yaml",
      "application/json-patch+json",
      "application/merge-patch+json",
    ]);
  });
});

describe("custom resource schemas (apiextensions-apiserver controller/openapi/builder)", () => {
  const foo = {
    type: "object",
    description: "Foo CRD",
    properties: {
      spec: {
        type: "object",
        properties: {
          replicas: { type: "integer", minimum: 1 },
          port: { "x-kubernetes-int-or-string": true },
          maybe: { type: "object", nullable: true, properties: { a: { type: "string" } } },
          free: { type: "object", "x-kubernetes-preserve-unknown-fields": true, properties: { b: { type: "string" } } },
          tags: { type: "array", "x-kubernetes-preserve-unknown-fields": true, items: { type: "string" } },
          template: {
            type: "object",
            "x-kubernetes-embedded-resource": true,
            properties: { spec: { type: "object" } },
          },
        },
        required: ["replicas", "maybe"],
      },
    },
  };
  const name = customResourceDefinitionName("stable.example.com", "v1", "Widget");

  it("TestNewBuilder: the name reverses the group; metadata, apiVersion, kind and the GVK are added", () => {
    expect(name).toBe("com.example.stable.v1.Widget");
    const s = customResourceSchema({ ...widget(foo), plural: "widgets", listKind: "WidgetList" }, "v3");
    expect(s["x-kubernetes-group-version-kind"]).toEqual([
      { group: "stable.example.com", kind: "Widget", version: "v1" },
    ]);
    expect(prop(s, "metadata")).toEqual({
      $ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
      description: expect.stringContaining("Standard object's metadata."),
    });
    expect(prop(s, "apiVersion")).toMatchObject({ type: "string" });
    expect(prop(s, "spec", "replicas")).toEqual({ type: "integer", minimum: 1 });
    // v3 keeps nullable and unfolds int-or-string.
    expect(prop(s, "spec", "maybe").nullable).toBe(true);
    expect(prop(s, "spec", "port").anyOf).toEqual([{ type: "integer" }, { type: "string" }]);
    // An embedded resource gets apiVersion/kind/metadata and requires the first two.
    expect(Object.keys(prop(s, "spec", "template").properties as object).sort()).toEqual([
      "apiVersion",
      "kind",
      "metadata",
      "spec",
    ]);
    expect(prop(s, "spec", "template").required).toEqual(["kind", "apiVersion"]);
  });

  it("TestToStructuralOpenAPIV2: v2 drops what it cannot say (nullable types, preserved fields' schemas, junctors)", () => {
    const s = customResourceSchema({ ...widget(foo), plural: "widgets", listKind: "WidgetList" }, "v2");
    expect(prop(s, "metadata").$ref).toBe("#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    expect(prop(s, "spec", "maybe")).toEqual({});
    expect(prop(s, "spec", "free")).toEqual({ type: "object", "x-kubernetes-preserve-unknown-fields": true });
    // An array left without items loses its type.
    expect(prop(s, "spec", "tags")).toEqual({ "x-kubernetes-preserve-unknown-fields": true });
    expect(prop(s, "spec", "port")).toEqual({ "x-kubernetes-int-or-string": true });
    // A nullable property is no longer required.
    expect(prop(s, "spec").required).toEqual(["replicas"]);
  });

  it("TestBuildOpenAPIV2: no schema, or one preserving unknown fields at the root, publishes {type: object} in v2", () => {
    const gvk = [{ group: "stable.example.com", kind: "Widget", version: "v1" }];
    const cr = { ...widget(), plural: "widgets", listKind: "WidgetList" };
    expect(customResourceSchema(cr, "v2")).toEqual({ type: "object", "x-kubernetes-group-version-kind": gvk });
    const root = {
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
      properties: { a: { type: "string" } },
    };
    expect(customResourceSchema({ ...cr, openAPIV3Schema: root }, "v2")).toEqual({
      type: "object",
      "x-kubernetes-group-version-kind": gvk,
    });
    // v3 keeps the schema.
    expect(prop(customResourceSchema({ ...cr, openAPIV3Schema: root }, "v3"), "a")).toEqual({ type: "string" });
  });

  it("the v2 document and the v3 index follow the served resources: a CRD's kind appears, changes and leaves", () => {
    const core = BUILTIN_RESOURCES.filter((r) => r.group === "");
    const defs = (rs: readonly SimResource[]) =>
      (openApiV2Doc(rs) as { definitions: Record<string, unknown> }).definitions;
    expect(defs(core)[name]).toBeUndefined();
    expect(defs([...core, widget(foo)])[name]).toBeDefined();
    expect(defs([...core, widget(foo)])["com.example.stable.v1.WidgetList"]).toBeDefined();
    const before = buildOpenApiV3([...core, widget(foo)]);
    const changed = buildOpenApiV3([...core, widget({ ...foo, description: "changed" })]);
    expect(changed.hashes.get("apis/stable.example.com/v1")).not.toBe(before.hashes.get("apis/stable.example.com/v1"));
    expect(changed.hashes.get("api/v1")).toBe(before.hashes.get("api/v1"));
    expect(buildOpenApiV3(core).docs.has("apis/stable.example.com/v1")).toBe(false);
    expect(buildOpenApiV2(core).etag).toMatch(/^"[0-9A-F]{128}"$/);
  });
});
