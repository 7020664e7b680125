import type { OpenApiVersion } from "./custom-resource-schema.js";
import type { JsonSchema } from "./kubernetes-definitions.js";

/** One served resource as its OpenAPI paths need it. */
export interface PathsResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
  readonly subresources?: readonly string[];
  /** A custom resource: no strategic merge patch, CRD-style operation ids. */
  readonly custom?: boolean;
}

/** The definitions a resource's operations answer with. */
export interface PathsDefinitions {
  readonly kind: string;
  readonly list?: string;
  /** `io.k8s.api.autoscaling.v1.Scale`, when the resource serves `/scale`. */
  readonly scale?: string;
}

const STATUS = "io.k8s.apimachinery.pkg.apis.meta.v1.Status";
const PATCH = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch";
const DELETE_OPTIONS = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions";
const LIST_PARAMS = [
  "allowWatchBookmarks",
  "continue",
  "fieldSelector",
  "labelSelector",
  "limit",
  "resourceVersion",
  "resourceVersionMatch",
  "sendInitialEvents",
  "timeoutSeconds",
  "watch",
];
const WRITE_PARAMS = ["dryRun", "fieldManager", "fieldValidation"];

/** `apps` → `Apps`, `rbac.authorization.k8s.io` → `RbacAuthorization`, core → `Core` (upstream's operation ids). */
function groupCamel(group: string): string {
  if (group === "") return "Core";
  return group
    .replace(/\.k8s\.io$/, "")
    .split(".")
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join("");
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The paths of one served resource in the document of its group version, as kube-apiserver's installer (built-in
 * kinds) or apiextensions' builder (custom resources) write them: the collection (`list`, `create`,
 * `deletecollection`), the object (`read`, `replace`, `patch`, `delete`), the all-namespaces list of a namespaced
 * resource and the `status`/`scale` subresources, each operation tagged `x-kubernetes-group-version-kind` and
 * `x-kubernetes-action` with its query parameters. A `patch` lists the patch types the server accepts as its
 * request body's content: kubectl's client-side apply sends a strategic merge patch only where
 * `application/strategic-merge-patch+json` is listed (built-in kinds, never custom resources).
 */
export function resourcePaths(
  r: PathsResource,
  defs: PathsDefinitions,
  v: OpenApiVersion,
): Record<string, Record<string, unknown>> {
  const refOf = (name: string) => ({ $ref: `${v === "v2" ? "#/definitions/" : "#/components/schemas/"}${name}` });
  const gvk = { group: r.group, kind: r.kind, version: r.version };
  const prefix = r.group === "" ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  const collection = r.namespaced ? `${prefix}/namespaces/{namespace}/${r.resource}` : `${prefix}/${r.resource}`;
  const object = `${collection}/{name}`;
  const ns = r.namespaced ? "Namespaced" : "";
  const idPart = r.custom === true ? "" : `${groupCamel(r.group)}${cap(r.version)}`;
  const tag =
    r.custom === true
      ? undefined
      : `${groupCamel(r.group).charAt(0).toLowerCase()}${groupCamel(r.group).slice(1)}_${r.version}`;
  const has = (verb: string) => r.verbs.includes(verb);
  const query = (name: string) =>
    v === "v2"
      ? {
          name,
          in: "query",
          type:
            name === "limit" || name === "timeoutSeconds"
              ? "integer"
              : name === "watch" || name === "allowWatchBookmarks" || name === "sendInitialEvents" || name === "force"
                ? "boolean"
                : "string",
          uniqueItems: true,
        }
      : {
          name,
          in: "query",
          schema: {
            type:
              name === "limit" || name === "timeoutSeconds"
                ? "integer"
                : name === "watch" || name === "allowWatchBookmarks" || name === "sendInitialEvents" || name === "force"
                  ? "boolean"
                  : "string",
            uniqueItems: true,
          },
        };
  const pathParam = (name: string) =>
    v === "v2"
      ? { name, in: "path", required: true, type: "string", uniqueItems: true }
      : { name, in: "path", required: true, schema: { type: "string", uniqueItems: true } };
  const responses = (codes: Record<string, [string, string]>) => {
    const out: Record<string, unknown> = {};
    for (const [code, [description, def]] of Object.entries(codes)) {
      out[code] =
        v === "v2"
          ? { description, schema: refOf(def) }
          : {
              description,
              content: Object.fromEntries(
                ["application/json", "application/yaml"].map((c) => [c, { schema: refOf(def) }]),
              ),
            };
    }
    out["401"] = { description: "Unauthorized" };
    return out;
  };
  const patchTypes = [
    "application/json-patch+json",
    "application/merge-patch+json",
    ...(r.custom === true ? [] : ["application/strategic-merge-patch+json"]),
    "application/apply-patch+yaml",
  ];
  const body = (def: string, required: boolean, types = ["*/*"]) =>
    v === "v2"
      ? { parameters: [{ name: "body", in: "body", required, schema: refOf(def) }], consumes: types }
      : { requestBody: { content: Object.fromEntries(types.map((c) => [c, { schema: refOf(def) }])), required } };
  const op = (
    verb: string,
    action: string,
    description: string,
    idKind: string,
    params: string[],
    codes: Record<string, [string, string]>,
    extra: Record<string, unknown> = {},
    kindGvk = gvk,
  ) => {
    const extraParams = (extra.parameters as unknown[] | undefined) ?? [];
    const { parameters: _, ...rest } = extra;
    return {
      description,
      operationId: `${verb}${idPart}${idKind}`,
      parameters: [...params.map(query), ...extraParams],
      ...rest,
      responses: responses(codes),
      ...(tag !== undefined && { tags: [tag] }),
      ...(v === "v2" && { produces: ["application/json", "application/yaml"], schemes: ["https"] }),
      "x-kubernetes-action": action,
      "x-kubernetes-group-version-kind": kindGvk,
    };
  };
  const pathParams = (names: string[]) => ({ parameters: [...names.map(pathParam), query("pretty")] });
  const out: Record<string, Record<string, unknown>> = {};
  const list = defs.list ?? defs.kind;
  const coll: Record<string, unknown> = {};
  if (has("list"))
    coll.get = op("list", "list", `list or watch objects of kind ${r.kind}`, `${ns}${r.kind}`, LIST_PARAMS, {
      "200": ["OK", list],
    });
  if (has("create"))
    coll.post = op(
      "create",
      "post",
      `create ${article(r.kind)} ${r.kind}`,
      `${ns}${r.kind}`,
      WRITE_PARAMS,
      { "200": ["OK", defs.kind], "201": ["Created", defs.kind], "202": ["Accepted", defs.kind] },
      body(defs.kind, true),
    );
  if (has("deletecollection"))
    coll.delete = op(
      r.custom === true ? "deletecollection" : "delete",
      "deletecollection",
      `delete collection of ${r.kind}`,
      `${r.custom === true ? "" : "Collection"}${ns}${r.kind}`,
      [
        ...LIST_PARAMS.filter((p) => p !== "watch" && p !== "allowWatchBookmarks"),
        "dryRun",
        "gracePeriodSeconds",
        "orphanDependents",
        "propagationPolicy",
      ],
      { "200": ["OK", STATUS] },
      body(DELETE_OPTIONS, false),
    );
  if (Object.keys(coll).length > 0) out[collection] = { ...coll, ...pathParams(r.namespaced ? ["namespace"] : []) };
  if (r.namespaced && has("list")) {
    out[`${prefix}/${r.resource}`] = {
      get: op("list", "list", `list or watch objects of kind ${r.kind}`, `${r.kind}ForAllNamespaces`, LIST_PARAMS, {
        "200": ["OK", list],
      }),
      ...pathParams([]),
    };
  }
  const objectOps = (path: string, sub: string, def: string, subGvk = gvk) => {
    const ops: Record<string, unknown> = {};
    const idKind = `${ns}${r.kind}${cap(sub)}`;
    const of = sub === "" ? "" : ` ${sub} of`;
    if (has("get"))
      ops.get = op("read", "get", `read${of} the specified ${r.kind}`, idKind, [], { "200": ["OK", def] }, {}, subGvk);
    if (has("update"))
      ops.put = op(
        "replace",
        "put",
        `replace${of} the specified ${r.kind}`,
        idKind,
        WRITE_PARAMS,
        { "200": ["OK", def], "201": ["Created", def] },
        body(def, true),
        subGvk,
      );
    if (has("patch"))
      ops.patch = op(
        "patch",
        "patch",
        `partially update${of} the specified ${r.kind}`,
        idKind,
        [...WRITE_PARAMS, "force"],
        { "200": ["OK", def], "201": ["Created", def] },
        body(PATCH, true, patchTypes),
        subGvk,
      );
    if (sub === "" && has("delete"))
      ops.delete = op(
        "delete",
        "delete",
        `delete ${article(r.kind)} ${r.kind}`,
        idKind,
        [
          "dryRun",
          "gracePeriodSeconds",
          "ignoreStoreReadErrorWithClusterBreakingPotential",
          "orphanDependents",
          "propagationPolicy",
        ],
        { "200": ["OK", STATUS], "202": ["Accepted", STATUS] },
        body(DELETE_OPTIONS, false),
      );
    if (Object.keys(ops).length > 0)
      out[path] = { ...ops, ...pathParams(r.namespaced ? ["name", "namespace"] : ["name"]) };
  };
  objectOps(object, "", defs.kind);
  if (r.subresources?.includes("status")) objectOps(`${object}/status`, "status", defs.kind);
  if (r.subresources?.includes("scale") && defs.scale !== undefined) {
    objectOps(`${object}/scale`, "scale", defs.scale, { group: "autoscaling", kind: "Scale", version: "v1" });
  }
  return out;
}

/** `a` or `an`, as upstream's descriptions (`create a Pod`, `create an Ingress`). */
function article(noun: string): string {
  return /^[AEIOU]/.test(noun) ? "an" : "a";
}

export type { JsonSchema };
