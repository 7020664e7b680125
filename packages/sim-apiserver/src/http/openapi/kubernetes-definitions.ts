import { readFileSync } from "node:fs";
import { brotliDecompressSync } from "node:zlib";
import { PUBLISHED_OPENAPI_ASSET } from "./published-definitions.js";

/** One OpenAPI schema as the documents carry it (JSON). */
export type JsonSchema = Record<string, unknown>;

/** Kubernetes' published OpenAPI v2 definitions, keyed `io.k8s.api.core.v1.Pod`, with an index by kind. */
export interface KubernetesDefinitions {
  readonly definitions: Readonly<Record<string, JsonSchema>>;
  /** The definition of a kind: `definitionOf("apps", "v1", "Deployment")` is `io.k8s.api.apps.v1.Deployment`. */
  definitionOf(group: string, version: string, kind: string): string | undefined;
}

let loaded: KubernetesDefinitions | undefined;

/**
 * The published definitions (scripts/publish-openapi.mjs wrote them to the package's `openapi/` file), decoded on the
 * first call and shared afterwards; treat them as read-only.
 */
export function kubernetesDefinitions(): KubernetesDefinitions {
  if (loaded !== undefined) return loaded;
  const file = new URL(`../../../${PUBLISHED_OPENAPI_ASSET}`, import.meta.url);
  const definitions = JSON.parse(brotliDecompressSync(readFileSync(file)).toString("utf8")) as Record<
    string,
    JsonSchema
  >;
  const byKind = new Map<string, string>();
  for (const [name, d] of Object.entries(definitions)) {
    const gvks = d["x-kubernetes-group-version-kind"];
    // Meta types (DeleteOptions, WatchEvent) name every group version: a kind has exactly one.
    if (!Array.isArray(gvks) || gvks.length !== 1) continue;
    const g = gvks[0] as { group: string; version: string; kind: string };
    byKind.set(`${g.group}/${g.version}/${g.kind}`, name);
  }
  loaded = {
    definitions,
    definitionOf: (group, version, kind) => byKind.get(`${group}/${version}/${kind}`),
  };
  return loaded;
}
