import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AggregatedDiscoveryVersion } from "../engine/kube-version.js";
import type { ServedResource } from "../engine/served-resource.js";
import { apiGroupList, apiResourceList, apiVersions } from "./discovery.js";
import { jsonOf } from "./encoding-cache.js";
import { newNotAcceptable, parseAccept, supportedMediaTypes } from "./negotiation.js";

/** The versions 1.34 serves when the backend does not say (`AggregatedDiscoveryEndpoint` GA, v2beta1 deprecated). */
export const DEFAULT_AGGREGATED_DISCOVERY_VERSIONS: readonly AggregatedDiscoveryVersion[] = Object.freeze([
  "v2",
  "v2beta1",
]);

const DISCOVERY_GROUP = "apidiscovery.k8s.io";
const DISCOVERY_KIND = "APIGroupDiscoveryList";

/** `metav1.GroupVersionKind` as discovery writes it (group and version empty when they are the resource's own). */
export interface ResponseKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** `apidiscovery.k8s.io/v2` `APISubresourceDiscovery`. */
export interface APISubresourceDiscovery {
  readonly subresource: string;
  readonly responseKind: ResponseKind;
  readonly verbs: readonly string[];
}

/** `apidiscovery.k8s.io/v2` `APIResourceDiscovery`. */
export interface APIResourceDiscovery {
  readonly resource: string;
  readonly responseKind: ResponseKind;
  readonly scope: "Namespaced" | "Cluster";
  readonly singularResource: string;
  readonly verbs: readonly string[];
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  readonly subresources?: readonly APISubresourceDiscovery[];
}

/** `apidiscovery.k8s.io/v2` `APIVersionDiscovery` (`freshness` is always `Current`: every group is local). */
export interface APIVersionDiscovery {
  readonly version: string;
  readonly resources: readonly APIResourceDiscovery[];
  readonly freshness: "Current";
}

/** `apidiscovery.k8s.io/v2` `APIGroupDiscovery`: the core group has no name. */
export interface APIGroupDiscovery {
  readonly metadata: { readonly name?: string; readonly creationTimestamp: null };
  readonly versions: readonly APIVersionDiscovery[];
}

/** `apidiscovery.k8s.io/<version>` `APIGroupDiscoveryList`. */
export interface APIGroupDiscoveryList {
  readonly kind: "APIGroupDiscoveryList";
  readonly apiVersion: string;
  readonly metadata: Record<string, never>;
  readonly items: readonly APIGroupDiscovery[];
}

/** One legacy `APIResourceList` entry, as {@link apiResourceList} writes it. */
interface LegacyResource {
  readonly name: string;
  readonly singularName: string;
  readonly namespaced: boolean;
  readonly group?: string;
  readonly version?: string;
  readonly kind: string;
  readonly verbs: readonly string[];
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
}

/**
 * The `apidiscovery.k8s.io` version the `Accept` header asks `/api` or `/apis` for, or `undefined` for the legacy
 * document (the wrapper of `staging/src/k8s.io/apiserver/pkg/endpoints/discovery/aggregated/wrapper.go`): the first
 * JSON media range (in the client's order) whose `g`/`v`/`as` name an `APIGroupDiscoveryList` version in `served`
 * picks it; a range without `as` before it picks the legacy document; ranges naming other transforms, or a version
 * not served, are skipped (the legacy handler then answers, or refuses them with 406).
 */
export function negotiateAggregatedDiscovery(
  accept: string | undefined,
  served: readonly AggregatedDiscoveryVersion[],
): AggregatedDiscoveryVersion | undefined {
  if (accept === undefined || served.length === 0) return undefined;
  for (const r of parseAccept(accept)) {
    if (r.type !== "application/json" && r.type !== "application/*" && r.type !== "*/*") continue;
    const { as, g, v } = r.params;
    if (as === undefined) return undefined;
    if (as === DISCOVERY_KIND && g === DISCOVERY_GROUP && served.includes(v as AggregatedDiscoveryVersion)) {
      return v as AggregatedDiscoveryVersion;
    }
  }
  return undefined;
}

/**
 * Refuses, as the legacy discovery handler does (`WriteObjectNegotiated` with `DefaultEndpointRestrictions`), an
 * `Accept` header whose every JSON media range asks for a transform (`as=…`) that was not served as aggregated
 * discovery: 406 NotAcceptable `only the following media types are accepted: …`. A header naming other media types
 * (YAML, protobuf) is answered with JSON, as the simulator's resource endpoints do.
 */
export function checkLegacyDiscoveryAccept(accept: string | undefined): void {
  if (accept === undefined) return;
  let transforms = false;
  for (const r of parseAccept(accept)) {
    if (r.type !== "application/json" && r.type !== "application/*" && r.type !== "*/*") return;
    if (r.params.as === undefined) return;
    transforms = true;
  }
  if (transforms) {
    throw newNotAcceptable(`only the following media types are accepted: ${supportedMediaTypes(false).join(", ")}`);
  }
}

/**
 * The aggregated discovery document of `/api` (`scope: "api"`: the core group, unnamed) or `/apis` (every other
 * group, in the legacy `APIGroupList`'s order, versions preferred first), built from the same legacy documents the
 * simulator serves (`apiVersions`/`apiGroupList` and one `apiResourceList` per group version) the way upstream's
 * `ConvertGroupVersionIntoToDiscovery` (`staging/src/k8s.io/apiserver/pkg/endpoints/installer.go`) folds an
 * `APIResourceList` into `APIResourceDiscovery` entries: `<resource>/<sub>` entries become the subresources of their
 * parent. Custom resources carry their own group and version in `responseKind`, as the CRD discovery controller
 * (`apiextensions-apiserver/pkg/apiserver/customresource_discovery_controller.go`) writes them.
 */
export function aggregatedDiscovery(
  resources: readonly ServedResource[],
  scope: "api" | "apis",
  version: AggregatedDiscoveryVersion = "v2",
): APIGroupDiscoveryList {
  const custom = new Set(
    resources.filter((r) => (r as { custom?: boolean }).custom === true).map((r) => `${r.group}/${r.version}`),
  );
  const groups: { name: string; versions: string[] }[] =
    scope === "api"
      ? [{ name: "", versions: [...(apiVersions(resources, "") as { versions: string[] }).versions] }]
      : (apiGroupList(resources) as { groups: { name: string; versions: { version: string }[] }[] }).groups.map(
          (g) => ({ name: g.name, versions: g.versions.map((v) => v.version) }),
        );
  const items: APIGroupDiscovery[] = [];
  for (const g of groups) {
    const versions: APIVersionDiscovery[] = [];
    for (const v of g.versions) {
      const list = apiResourceList(resources, g.name, v) as { resources: LegacyResource[] } | undefined;
      if (list === undefined) continue;
      const own = custom.has(`${g.name}/${v}`) ? { group: g.name, version: v } : { group: "", version: "" };
      versions.push({ version: v, resources: foldSubresources(list.resources, own), freshness: "Current" });
    }
    if (versions.length === 0) continue;
    items.push({
      metadata: g.name === "" ? { creationTimestamp: null } : { name: g.name, creationTimestamp: null },
      versions,
    });
  }
  return { kind: DISCOVERY_KIND, apiVersion: `${DISCOVERY_GROUP}/${version}`, metadata: {}, items };
}

function foldSubresources(
  list: readonly LegacyResource[],
  own: { readonly group: string; readonly version: string },
): APIResourceDiscovery[] {
  const kindOf = (r: LegacyResource): ResponseKind =>
    r.group !== undefined || r.version !== undefined
      ? { group: r.group ?? "", version: r.version ?? "", kind: r.kind }
      : { ...own, kind: r.kind };
  const subs = new Map<string, APISubresourceDiscovery[]>();
  for (const r of list) {
    const slash = r.name.indexOf("/");
    if (slash < 0) continue;
    const parent = r.name.slice(0, slash);
    let mine = subs.get(parent);
    if (mine === undefined) {
      mine = [];
      subs.set(parent, mine);
    }
    mine.push({
      subresource: r.name.slice(slash + 1),
      responseKind: r.kind === "" ? { group: "", version: "", kind: "" } : kindOf(r),
      verbs: [...r.verbs],
    });
  }
  // A subresource whose parent is not listed is left out (upstream refuses such a list; none is built so).
  return list
    .filter((r) => !r.name.includes("/"))
    .map((r) => {
      const mine = subs.get(r.name);
      return {
        resource: r.name,
        responseKind: kindOf(r),
        scope: r.namespaced ? "Namespaced" : "Cluster",
        singularResource: r.singularName,
        verbs: [...r.verbs],
        ...(r.shortNames !== undefined && r.shortNames.length > 0 && { shortNames: [...r.shortNames] }),
        ...(r.categories !== undefined && r.categories.length > 0 && { categories: [...r.categories] }),
        ...(mine !== undefined && { subresources: mine }),
      };
    });
}

/**
 * The document's ETag as upstream's `calculateETag` (`aggregated/etag.go`): the hex SHA-512 of its JSON. Computed
 * from the items only, so v2 and v2beta1 answers share it (the response `Vary`s on `Accept`).
 */
export function aggregatedDiscoveryETag(list: APIGroupDiscoveryList): string {
  return createHash("sha512")
    .update(jsonOf({ metadata: {}, items: list.items }))
    .digest("hex")
    .toUpperCase();
}

/**
 * Writes `list` as upstream's `ServeHTTPWithETag` does: `ETag` (quoted), `Vary: Accept`, `Cache-Control: public`,
 * and 304 Not Modified without a body when `If-None-Match` is exactly that ETag; else 200 with the JSON document and
 * the media type the client asked for (`application/json;g=apidiscovery.k8s.io;v=<v>;as=APIGroupDiscoveryList`,
 * which client-go reads to tell the aggregated answer from the legacy one).
 */
export function writeAggregatedDiscovery(req: IncomingMessage, res: ServerResponse, list: APIGroupDiscoveryList): void {
  if (res.headersSent || res.writableEnded) return;
  const etag = JSON.stringify(aggregatedDiscoveryETag(list));
  const headers = { ETag: etag, Vary: "Accept", "Cache-Control": "public" };
  if (req.headers["if-none-match"] === etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  const version = list.apiVersion.slice(DISCOVERY_GROUP.length + 1);
  const bytes = Buffer.from(`${jsonOf(list)}\n`, "utf8");
  res.writeHead(200, {
    ...headers,
    "Content-Type": `application/json;g=${DISCOVERY_GROUP};v=${version};as=${DISCOVERY_KIND}`,
    "Content-Length": String(bytes.length),
  });
  res.end(req.method === "HEAD" ? undefined : bytes);
}
