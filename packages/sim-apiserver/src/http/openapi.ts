import { createHash } from "node:crypto";
import type { ServedResource } from "../engine/served-resource.js";
import { SIM_VERSION_INFO } from "./discovery.js";
import {
  type CustomResourceVersion,
  customResourceDefinitionName,
  customResourceListSchema,
  customResourceSchema,
  type OpenApiVersion,
} from "./openapi/custom-resource-schema.js";
import { type JsonSchema, kubernetesDefinitions } from "./openapi/kubernetes-definitions.js";
import { type PathsDefinitions, resourcePaths } from "./openapi/resource-paths.js";
import { referencedDefinitions, toV3Schema } from "./openapi/v3-schema.js";

/** The `/openapi/v3` path key of a group version: `api/v1` or `apis/<group>/<version>`. */
export function openApiV3PathKey(group: string, version: string): string {
  return group === "" ? `api/${version}` : `apis/${group}/${version}`;
}

/** What the served resource list says beyond {@link ServedResource} (the engine's `SimResource`). */
interface ServedExtras {
  readonly custom?: boolean;
  readonly subresources?: readonly string[];
  readonly listKind?: string;
  readonly openAPIV3Schema?: Readonly<Record<string, unknown>>;
}

const META = [
  "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
  "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
  "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
];
const SCALE = "io.k8s.api.autoscaling.v1.Scale";

/** One group version's paths and schemas (v2 definitions form; v3 converts). */
interface GroupVersionSpec {
  readonly paths: Record<string, Record<string, unknown>>;
  readonly schemas: Record<string, JsonSchema>;
}

function groupVersionSpec(resources: readonly ServedResource[], v: OpenApiVersion): GroupVersionSpec {
  const k8s = kubernetesDefinitions();
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, JsonSchema> = {};
  const builtin = new Set<string>(META);
  for (const served of resources) {
    const r = served as ServedResource & ServedExtras;
    let defs: PathsDefinitions;
    if (r.custom === true) {
      const cr: CustomResourceVersion = {
        group: r.group,
        version: r.version,
        kind: r.kind,
        listKind: r.listKind ?? `${r.kind}List`,
        plural: r.resource,
        ...(r.openAPIV3Schema !== undefined && { openAPIV3Schema: r.openAPIV3Schema }),
      };
      const name = customResourceDefinitionName(r.group, r.version, r.kind);
      const list = customResourceDefinitionName(r.group, r.version, cr.listKind);
      schemas[name] = customResourceSchema(cr, v);
      schemas[list] = customResourceListSchema(cr, v);
      for (const ref of referencedDefinitions(schemas[name], new Set())) if (k8s.definitions[ref]) builtin.add(ref);
      builtin.add("io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta");
      defs = { kind: name, list, scale: SCALE };
      if (r.subresources?.includes("scale")) builtin.add(SCALE);
    } else {
      const kind = k8s.definitionOf(r.group, r.version, r.kind);
      if (kind === undefined) continue;
      const list = k8s.definitionOf(r.group, r.version, `${r.kind}List`);
      builtin.add(kind);
      if (list !== undefined) builtin.add(list);
      if (r.subresources?.includes("scale")) builtin.add(SCALE);
      defs = { kind, ...(list !== undefined && { list }), scale: SCALE };
    }
    Object.assign(
      paths,
      resourcePaths(
        {
          group: r.group,
          version: r.version,
          resource: r.resource,
          kind: r.kind,
          namespaced: r.namespaced,
          verbs: r.verbs,
          ...(r.subresources !== undefined && { subresources: r.subresources }),
          ...(r.custom === true && { custom: true }),
        },
        defs,
        v,
      ),
    );
  }
  // Everything the kinds reach.
  const todo = [...builtin];
  while (todo.length > 0) {
    const name = todo.pop() as string;
    if (schemas[name] !== undefined) continue;
    const d = k8s.definitions[name];
    if (d === undefined) continue;
    schemas[name] = d;
    for (const ref of referencedDefinitions(d, new Set())) if (schemas[ref] === undefined) todo.push(ref);
  }
  return { paths, schemas };
}

const sorted = <T>(o: Record<string, T>): Record<string, T> =>
  Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k] as T]),
  );

/**
 * The OpenAPI v3 document of one group version as kube-apiserver publishes it at `/openapi/v3/<api/v1|apis/g/v>`:
 * the paths of every served resource ({@link resourcePaths}) and, in `components.schemas`, the kinds' schemas —
 * Kubernetes' published definitions for built-in kinds (descriptions, `x-kubernetes-group-version-kind`, the
 * patch-strategy and list-type extensions), the CustomResourceDefinition's schema for custom resources
 * ({@link customResourceSchema}) — with everything they reference.
 */
export function openApiV3GroupVersionDoc(resources: readonly ServedResource[]): Record<string, unknown> {
  const spec = groupVersionSpec(resources, "v3");
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: SIM_VERSION_INFO.gitVersion },
    paths: sorted(spec.paths),
    components: {
      schemas: Object.fromEntries(
        Object.keys(spec.schemas)
          .sort()
          .map((k) => [k, toV3Schema(spec.schemas[k])]),
      ),
    },
  };
}

/**
 * The OpenAPI v2 document kube-apiserver serves at `/openapi/v2`: every served group version's paths and
 * definitions in one (custom resources' schemas cut to what v2 can say, see {@link customResourceSchema}).
 */
export function openApiV2Doc(resources: readonly ServedResource[]): Record<string, unknown> {
  const spec = groupVersionSpec(resources, "v2");
  return {
    swagger: "2.0",
    info: { title: "Kubernetes", version: SIM_VERSION_INFO.gitVersion },
    paths: sorted(spec.paths),
    definitions: sorted(spec.schemas),
    securityDefinitions: {
      BearerToken: { description: "Bearer Token authentication", in: "header", name: "authorization", type: "apiKey" },
    },
    security: [{ BearerToken: [] }],
  };
}

/** The served OpenAPI v3 documents: the index and one body per group version, with content hashes. */
export interface OpenApiV3 {
  /** `GET /openapi/v3`: `{"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=…"}}}`. */
  readonly index: Record<string, unknown>;
  /** Serialized per-GV documents by path key (`api/v1`, `apis/apps/v1`). */
  readonly docs: ReadonlyMap<string, string>;
  /** Each document's hash (upstream's: SHA-512, upper-case hex), by path key. */
  readonly hashes: ReadonlyMap<string, string>;
}

/** The served OpenAPI v2 document, serialized, and its ETag (`"<sha512 hex>"`). */
export interface OpenApiV2 {
  /** The document, serialized. */
  readonly body: string;
  /** Its ETag: the SHA-512 of the body, upper-case hex, quoted. */
  readonly etag: string;
}

const sha512 = (text: string) => createHash("sha512").update(text).digest("hex").toUpperCase();

let cacheKey: string | undefined;
let cacheV3: OpenApiV3 | undefined;
let cacheV2: OpenApiV2 | undefined;
const schemaIds = new WeakMap<object, number>();
let nextSchemaId = 0;

/** A key that changes whenever what the documents say could (resources, their verbs, CRD schemas). */
function keyOf(resources: readonly ServedResource[]): string {
  return resources
    .map((served) => {
      const r = served as ServedResource & ServedExtras;
      let id = -1;
      if (r.openAPIV3Schema !== undefined) {
        id = schemaIds.get(r.openAPIV3Schema) ?? nextSchemaId++;
        schemaIds.set(r.openAPIV3Schema, id);
      }
      return `${r.group}/${r.version}/${r.resource}/${r.kind}/${r.namespaced}/${r.verbs.join(",")}/${r.subresources?.join(",") ?? ""}/${r.custom === true}/${r.listKind ?? ""}/${id}`;
    })
    .join("|");
}

function refresh(resources: readonly ServedResource[]): void {
  const key = keyOf(resources);
  if (key === cacheKey) return;
  cacheKey = key;
  cacheV3 = undefined;
  cacheV2 = undefined;
}

/** Builds {@link OpenApiV3} for the served resources (cached until they change). */
export function buildOpenApiV3(resources: readonly ServedResource[]): OpenApiV3 {
  refresh(resources);
  if (cacheV3 !== undefined) return cacheV3;
  const byGv = new Map<string, ServedResource[]>();
  for (const r of resources) {
    const k = openApiV3PathKey(r.group, r.version);
    const list = byGv.get(k) ?? [];
    list.push(r);
    byGv.set(k, list);
  }
  const docs = new Map<string, string>();
  const hashes = new Map<string, string>();
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const [key, rs] of byGv) {
    const text = JSON.stringify(openApiV3GroupVersionDoc(rs));
    const hash = sha512(text);
    docs.set(key, text);
    hashes.set(key, hash);
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
  }
  cacheV3 = { index: { paths: sorted(paths) }, docs, hashes };
  return cacheV3;
}

/** Builds {@link OpenApiV2} for the served resources (cached until they change). */
export function buildOpenApiV2(resources: readonly ServedResource[]): OpenApiV2 {
  refresh(resources);
  if (cacheV2 !== undefined) return cacheV2;
  const body = JSON.stringify(openApiV2Doc(resources));
  cacheV2 = { body, etag: `"${sha512(body)}"` };
  return cacheV2;
}
