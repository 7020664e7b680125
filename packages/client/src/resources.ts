import type { KubeObject, ResourceDescriptor } from "@informer-ts/apimachinery";

// The descriptor type is apimachinery's (the one resource descriptor of the packages); the client re-exports it.
export type { ObjectOf, ResourceDescriptor } from "@informer-ts/apimachinery";

/** `apiVersion` of a resource's objects: `v1`, `apps/v1`. */
export function apiVersionOf(r: ResourceDescriptor<unknown>): string {
  return r.group === "" ? r.version : `${r.group}/${r.version}`;
}

/** The resource's `group/resource` for error messages: `configmaps`, `deployments.apps`. */
export function groupResourceOf(r: ResourceDescriptor<unknown>): { group: string; resource: string } {
  return { group: r.group, resource: r.resource };
}

/**
 * Whether the resource is served by Kubernetes itself (core or a `*.k8s.io` / `*.kubernetes.io` / dot-less group)
 * rather than by a CustomResourceDefinition, whose group must be a domain of its owner. Strategic merge patch is
 * only served for built-in types.
 */
export function isBuiltinGroup(group: string): boolean {
  return !group.includes(".") || group.endsWith(".k8s.io") || group.endsWith(".kubernetes.io");
}

/**
 * A descriptor for a custom resource (or any resource not in {@link builtinResources}). `namespaced` defaults
 * to true. Throws {@link RequestConstructionError} when a field is not usable in a URL.
 */
export function customResource<T = KubeObject>(spec: {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced?: boolean;
  /** Subresources the CRD declares (`status`, `scale`); unset: not checked by the client. */
  subresources?: readonly string[];
}): ResourceDescriptor<T> {
  for (const [field, value] of [
    ["version", spec.version],
    ["resource", spec.resource],
    ["kind", spec.kind],
  ] as const) {
    if (value === "") throw new RequestConstructionError(`custom resource: ${field} may not be empty`);
  }
  checkSegment("resource", spec.resource);
  checkSegment("version", spec.version);
  for (const sub of spec.subresources ?? []) checkSegment("subresource", sub);
  if (spec.group !== "") checkSegment("group", spec.group);
  return {
    group: spec.group,
    version: spec.version,
    resource: spec.resource,
    kind: spec.kind,
    namespaced: spec.namespaced ?? true,
    ...(spec.subresources !== undefined && { subresources: [...spec.subresources] }),
  };
}

/**
 * A request could not be built (`rest.RequestConstructionError`): an invalid name, namespace or resource, or a
 * namespaced operation without a namespace. Nothing was sent.
 */
export class RequestConstructionError extends Error {
  override readonly name = "RequestConstructionError";
}

/** `IsValidPathSegmentName`: why `name` cannot be a path segment, or `[]`. */
export function isValidPathSegmentName(name: string): string[] {
  if (name === "." || name === "..") return [`may not be '${name}'`];
  const errs: string[] = [];
  for (const bad of ["/", "%"]) if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

function checkSegment(what: string, value: string): void {
  const msgs = isValidPathSegmentName(value);
  if (msgs.length > 0) {
    throw new RequestConstructionError(`invalid ${what} ${JSON.stringify(value)}: ${msgs.join(", ")}`);
  }
}

/** Where a request goes: the resource, and optionally a namespace, a name and a subresource. */
export interface ResourceLocation {
  /** Namespace; for a namespaced resource `undefined` (or "") means all namespaces (list/watch only). */
  readonly namespace?: string;
  readonly name?: string;
  readonly subresource?: string;
}

/**
 * The path of a resource request below the server's base path, as client-go's `Request.URL()` builds it:
 * `/api/v1[/namespaces/<ns>]/<resource>[/<name>[/<subresource>]]` or `/apis/<group>/<version>/…`.
 * The namespace is ignored for cluster-scoped resources. Throws {@link RequestConstructionError} for names
 * that are not valid path segments, or a subresource without a name.
 */
export function resourcePath(r: ResourceDescriptor<unknown>, loc: ResourceLocation = {}): string {
  checkSegment("resource", r.resource);
  let p = r.group === "" ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  if (r.namespaced && loc.namespace !== undefined && loc.namespace !== "") {
    checkSegment("namespace", loc.namespace);
    p += `/namespaces/${encodeURIComponent(loc.namespace)}`;
  }
  p += `/${r.resource}`;
  if (loc.name !== undefined) {
    if (loc.name === "") throw new RequestConstructionError("resource name may not be empty");
    checkSegment("resource name", loc.name);
    p += `/${encodeURIComponent(loc.name)}`;
  }
  if (loc.subresource !== undefined && loc.subresource !== "") {
    if (loc.name === undefined) throw new RequestConstructionError("a subresource needs a resource name");
    for (const s of loc.subresource.split("/")) checkSegment("subresource", s);
    p += `/${loc.subresource}`;
  }
  return p;
}

/**
 * The full URL of a request: the server's base URL (keeping its path prefix) + {@link resourcePath} + query.
 */
export function resourceURL(
  server: string | URL,
  r: ResourceDescriptor<unknown>,
  loc: ResourceLocation = {},
  query?: URLSearchParams,
): URL {
  const base = new URL(server);
  const prefix = base.pathname.replace(/\/+$/, "");
  const url = new URL(base.origin);
  url.pathname = prefix + resourcePath(r, loc);
  const q = query?.toString() ?? "";
  url.search = q === "" ? "" : `?${q}`;
  return url;
}

// The query encoding lives in @informer-ts/apimachinery (the simulated apiserver records the same URIs); the client
// keeps exporting it under its own name.
export { goDurationSeconds, listOptionsQuery } from "@informer-ts/apimachinery";
