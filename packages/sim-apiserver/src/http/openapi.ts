import { createHash } from "node:crypto";
import type { ServedResource } from "../engine/served-resource.js";
import { SIM_VERSION_INFO } from "./discovery.js";

/** The `/openapi/v3` path key of a group version: `api/v1` or `apis/<group>/<version>`. */
export function openApiV3PathKey(group: string, version: string): string {
  return group === "" ? `api/${version}` : `apis/${group}/${version}`;
}

function gvKeys(resources: readonly ServedResource[]): Map<string, ServedResource[]> {
  const m = new Map<string, ServedResource[]>();
  for (const r of resources) {
    const k = openApiV3PathKey(r.group, r.version);
    let list = m.get(k);
    if (list === undefined) {
      list = [];
      m.set(k, list);
    }
    list.push(r);
  }
  return m;
}

const queryParam = (name: string) => ({ name, in: "query", schema: { type: "string", uniqueItems: true } });

/**
 * A minimal OpenAPI v3 document for one group version: for every served resource, its object path with a `patch`
 * operation tagged `x-kubernetes-group-version-kind` and declaring the `fieldValidation`, `fieldManager` and
 * `dryRun` query parameters. That is what kubectl's `queryParamVerifierV3` looks for before `create -f`/`apply -f`:
 * with it kubectl sends `?fieldValidation=Strict` and skips client-side schema validation.
 *
 * Differences from kube-apiserver: no schemas (`components.schemas` is empty) and only the patch operations, so
 * `kubectl explain` has nothing to show.
 */
export function openApiV3GroupVersionDoc(resources: readonly ServedResource[]): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const r of resources) {
    const prefix = r.group === "" ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
    const path = r.namespaced
      ? `${prefix}/namespaces/{namespace}/${r.resource}/{name}`
      : `${prefix}/${r.resource}/{name}`;
    paths[path] = {
      patch: {
        description: `partially update the specified ${r.kind}`,
        operationId: `patch${r.namespaced ? "Namespaced" : ""}${r.kind}`,
        parameters: [queryParam("dryRun"), queryParam("fieldManager"), queryParam("fieldValidation")],
        responses: { "200": { description: "OK" } },
        "x-kubernetes-action": "patch",
        "x-kubernetes-group-version-kind": { group: r.group, kind: r.kind, version: r.version },
      },
      parameters: [
        { name: "name", in: "path", required: true, schema: { type: "string", uniqueItems: true } },
        ...(r.namespaced
          ? [{ name: "namespace", in: "path", required: true, schema: { type: "string", uniqueItems: true } }]
          : []),
      ],
    };
  }
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: SIM_VERSION_INFO.gitVersion },
    paths,
    components: { schemas: {} },
  };
}

/** The served OpenAPI v3 documents: the index and one body per group version, with content hashes. */
export interface OpenApiV3 {
  /** `GET /openapi/v3`: `{"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=…"}}}`. */
  readonly index: Record<string, unknown>;
  /** Serialized per-GV documents by path key (`api/v1`, `apis/apps/v1`). */
  readonly docs: ReadonlyMap<string, string>;
}

/** Builds {@link OpenApiV3} for the served resources. */
export function buildOpenApiV3(resources: readonly ServedResource[]): OpenApiV3 {
  const docs = new Map<string, string>();
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const [key, rs] of gvKeys(resources)) {
    const text = JSON.stringify(openApiV3GroupVersionDoc(rs));
    const hash = createHash("sha512").update(text).digest("hex").slice(0, 128).toUpperCase();
    docs.set(key, text);
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
  }
  return { index: { paths }, docs };
}
