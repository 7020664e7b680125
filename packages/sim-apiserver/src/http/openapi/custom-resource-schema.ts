import { type JsonSchema, kubernetesDefinitions } from "./kubernetes-definitions.js";

/** Which document a custom resource's schema is built for: v2 (`/openapi/v2`) or v3 (`/openapi/v3/apis/<g>/<v>`). */
export type OpenApiVersion = "v2" | "v3";

const OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
const LIST_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";

/** What one served version of a CustomResourceDefinition publishes from. */
export interface CustomResourceVersion {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  /** The version's `schema.openAPIV3Schema`; absent: none (published as `{type: object}`). */
  readonly openAPIV3Schema?: Readonly<Record<string, unknown>>;
}

/**
 * The definition name of a custom resource kind (kube-openapi's `ToRESTFriendlyName` of `<group>/<version>/<kind>`:
 * the group's domain reversed): `com.example.stable.v1.CronTab`.
 */
export function customResourceDefinitionName(group: string, version: string, kind: string): string {
  return `${group.split(".").reverse().join(".")}.${version}.${kind}`;
}

const ref = (v: OpenApiVersion, name: string) => `${v === "v2" ? "#/definitions/" : "#/components/schemas/"}${name}`;

/** `apiVersion`, `kind` and `metadata` as the built-in kinds describe them (TypeMeta's and ObjectMeta's texts). */
function typeMeta(): { apiVersion: JsonSchema; kind: JsonSchema; metadata: string; listMetadata: string } {
  const d = kubernetesDefinitions().definitions;
  const pod = (d["io.k8s.api.core.v1.Pod"]?.properties ?? {}) as Record<string, JsonSchema>;
  const list = (d["io.k8s.api.core.v1.PodList"]?.properties ?? {}) as Record<string, JsonSchema>;
  return {
    apiVersion: { ...pod.apiVersion },
    kind: { ...pod.kind },
    metadata: String(pod.metadata?.description ?? ""),
    listMetadata: String(list.metadata?.description ?? ""),
  };
}

const isObj = (x: unknown): x is JsonSchema => typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * Applies `f` to every schema node below and including `s` (properties, items, additionalProperties), bottom-up:
 * `f` gets the node with its children already mapped, and the node as it was.
 */
function mapSchema(s: JsonSchema, f: (n: JsonSchema, original: JsonSchema) => JsonSchema): JsonSchema {
  const out: JsonSchema = { ...s };
  if (isObj(out.properties)) {
    out.properties = Object.fromEntries(
      Object.entries(out.properties).map(([k, v]) => [k, isObj(v) ? mapSchema(v, f) : v]),
    );
  }
  if (isObj(out.items)) out.items = mapSchema(out.items, f);
  if (isObj(out.additionalProperties)) out.additionalProperties = mapSchema(out.additionalProperties, f);
  return f(out, s);
}

/**
 * What OpenAPI v2 cannot say, removed (apiextensions' `ToStructuralOpenAPIV2`): the junctors `allOf`/`anyOf`/
 * `oneOf`/`not`; a `nullable` node loses its type, properties and items (kubectl breaks on typed nulls); a
 * `x-kubernetes-preserve-unknown-fields` node loses its properties and items (kubectl would reject the unknown ones);
 * an array left without items loses its type; a nullable property is no longer required.
 */
function toStructuralV2(s: JsonSchema): JsonSchema {
  return mapSchema(s, (n, original) => {
    const out = { ...n };
    for (const k of ["allOf", "anyOf", "oneOf", "not"]) delete out[k];
    if (out.nullable === true) {
      delete out.type;
      delete out.nullable;
      delete out.items;
      delete out.properties;
    }
    if (out["x-kubernetes-preserve-unknown-fields"] === true) {
      delete out.items;
      delete out.properties;
    }
    if (out.type === "array" && out.items === undefined) delete out.type;
    if (Array.isArray(out.required) && isObj(original.properties)) {
      const props = original.properties;
      const required = out.required.filter((f) => {
        const p = props[f as string];
        return !(isObj(p) && p.nullable === true);
      });
      if (required.length > 0) out.required = required;
      else delete out.required;
    }
    if (isObj(original.additionalProperties) && original.additionalProperties.nullable === true) delete out.required;
    return out;
  });
}

/**
 * `x-kubernetes-int-or-string` spelled out as the structural schema's `Unfold` does: `anyOf: [{type: integer},
 * {type: string}]` where the node has no `anyOf` of its own.
 */
function unfold(s: JsonSchema): JsonSchema {
  return mapSchema(s, (n) =>
    n["x-kubernetes-int-or-string"] === true && n.anyOf === undefined
      ? { ...n, anyOf: [{ type: "integer" }, { type: "string" }] }
      : n,
  );
}

/**
 * `x-kubernetes-embedded-resource` nodes get `apiVersion`, `kind` and `metadata` and require the first two
 * (apiextensions' `addEmbeddedProperties`); in v2 not below a node that preserves unknown fields.
 */
function addEmbedded(s: JsonSchema, v: OpenApiVersion): JsonSchema {
  const tm = typeMeta();
  const walk = (n: JsonSchema): JsonSchema => {
    if (v === "v2" && n["x-kubernetes-preserve-unknown-fields"] === true) return n;
    const out: JsonSchema = { ...n };
    if (isObj(out.properties)) {
      out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, c]) => [k, isObj(c) ? walk(c) : c]));
    }
    if (isObj(out.items)) out.items = walk(out.items);
    if (isObj(out.additionalProperties)) out.additionalProperties = walk(out.additionalProperties);
    if (out["x-kubernetes-embedded-resource"] === true) {
      out.properties = {
        ...(isObj(out.properties) ? out.properties : {}),
        apiVersion: { ...tm.apiVersion, description: EMBEDDED_API_VERSION },
        kind: { ...tm.kind, description: EMBEDDED_KIND },
        metadata: { $ref: ref(v, OBJECT_META), description: tm.metadata },
      };
      const req = Array.isArray(out.required) ? [...(out.required as string[])] : [];
      for (const f of ["kind", "apiVersion"]) if (!req.includes(f)) req.push(f);
      out.required = req;
    }
    return out;
  };
  return walk(s);
}

const EMBEDDED_API_VERSION =
  "apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
const EMBEDDED_KIND =
  "kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";

/**
 * The published schema of a custom resource kind (apiextensions-apiserver's OpenAPI builder, `buildKubeNative`): the
 * version's schema with `metadata` (a reference to ObjectMeta), `apiVersion` and `kind` set and
 * `x-kubernetes-group-version-kind`; without a schema — and in v2 when the root preserves unknown fields — just
 * `{type: object}` (anything more and kubectl's v2 validation would reject the unknown fields). In v2 the schema is
 * first cut to what v2 can express ({@link toStructuralV2}); in v3 `x-kubernetes-int-or-string` is unfolded.
 */
export function customResourceSchema(cr: CustomResourceVersion, v: OpenApiVersion): JsonSchema {
  const gvk = { "x-kubernetes-group-version-kind": [{ group: cr.group, kind: cr.kind, version: cr.version }] };
  const schema = cr.openAPIV3Schema === undefined ? undefined : (structuredClone(cr.openAPIV3Schema) as JsonSchema);
  if (schema === undefined || (v === "v2" && schema["x-kubernetes-preserve-unknown-fields"] === true)) {
    return { type: "object", ...gvk };
  }
  const tm = typeMeta();
  let out = v === "v2" ? toStructuralV2(schema) : unfold(schema);
  out = addEmbedded(out, v);
  out.properties = {
    ...(isObj(out.properties) ? out.properties : {}),
    metadata: { $ref: ref(v, OBJECT_META), description: tm.metadata },
    apiVersion: tm.apiVersion,
    kind: tm.kind,
  };
  return { ...out, ...gvk };
}

/** The published schema of a custom resource's List kind (apiextensions' `buildListSchema`). */
export function customResourceListSchema(cr: CustomResourceVersion, v: OpenApiVersion): JsonSchema {
  const tm = typeMeta();
  return {
    description: `${cr.listKind} is a list of ${cr.kind}`,
    required: ["items"],
    properties: {
      items: {
        description: `List of ${cr.plural}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`,
        type: "array",
        items: { $ref: ref(v, customResourceDefinitionName(cr.group, cr.version, cr.kind)) },
      },
      metadata: { $ref: ref(v, LIST_META), description: tm.listMetadata },
      apiVersion: tm.apiVersion,
      kind: tm.kind,
    },
    "x-kubernetes-group-version-kind": [{ group: cr.group, kind: cr.listKind, version: cr.version }],
  };
}
