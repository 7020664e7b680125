/**
 * What a request path means (`request.RequestInfo` from `pkg/endpoints/request/requestinfo.go`), for the parts the
 * simulator serves: resource requests under `/api/<version>` and `/apis/<group>/<version>`, including the legacy
 * `/watch/` verb prefix. Everything else (discovery, health, OpenAPI, metrics) is a non-resource request.
 */
export interface RequestInfo {
  readonly isResourceRequest: boolean;
  /** The decoded path, for non-resource requests. */
  readonly path: string;
  /** `api` or `apis` for resource requests. */
  readonly apiPrefix: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  /** `""` when the path names no namespace. */
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  /** True for the deprecated `/watch/` paths, which force a watch. */
  readonly legacyWatch: boolean;
  /** The path segments from the resource on (`[resource, name?, subresource?, …]`). */
  readonly parts: readonly string[];
}

/** Namespace sub-resources that keep `namespaces/<ns>/<x>` addressing the namespace itself. */
const NAMESPACE_SUBRESOURCES = new Set(["status", "finalize"]);

function nonResource(path: string): RequestInfo {
  return {
    isResourceRequest: false,
    path,
    apiPrefix: "",
    apiGroup: "",
    apiVersion: "",
    namespace: "",
    resource: "",
    subresource: "",
    name: "",
    legacyWatch: false,
    parts: [],
  };
}

/**
 * Parses a URL path the way `RequestInfoFactory.NewRequestInfo` does:
 * - `/api/v1/namespaces/ns/configmaps/name` → namespace `ns`, resource `configmaps`, name `name`;
 * - `/apis/apps/v1/deployments` → cluster-wide collection;
 * - `/api/v1/namespaces/ns` → resource `namespaces`, name `ns` (and namespace `ns`, as upstream);
 * - `/api/v1/watch/namespaces/ns/configmaps` → `legacyWatch`.
 * `/api`, `/api/v1`, `/apis`, `/apis/<g>`, `/apis/<g>/<v>` are non-resource (discovery) requests. Segments are
 * percent-decoded; a segment that fails to decode makes the request non-resource (it will 404).
 */
export function parseRequestInfo(rawPath: string): RequestInfo {
  let segments: string[];
  try {
    segments = rawPath
      .replace(/^\/+|\/+$/g, "")
      .split("/")
      .filter((s, _i, a) => !(s === "" && a.length === 1))
      .map((s) => decodeURIComponent(s));
  } catch {
    return nonResource(rawPath);
  }
  const path = `/${segments.join("/")}`;
  const prefix = segments[0];
  let rest: string[];
  let group = "";
  let version: string;
  if (prefix === "api") {
    if (segments.length < 3) return nonResource(path);
    version = segments[1]!;
    rest = segments.slice(2);
  } else if (prefix === "apis") {
    if (segments.length < 4) return nonResource(path);
    group = segments[1]!;
    version = segments[2]!;
    rest = segments.slice(3);
  } else {
    return nonResource(path);
  }
  let legacyWatch = false;
  if (rest[0] === "watch") {
    legacyWatch = true;
    rest = rest.slice(1);
    if (rest.length === 0) return nonResource(path);
  }
  let namespace = "";
  if (rest[0] === "namespaces" && rest.length > 1) {
    namespace = rest[1]!;
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2]!)) rest = rest.slice(2);
  }
  return {
    isResourceRequest: true,
    path,
    apiPrefix: prefix,
    apiGroup: group,
    apiVersion: version,
    namespace,
    resource: rest[0] ?? "",
    name: rest[1] ?? "",
    subresource: rest[2] ?? "",
    legacyWatch,
    parts: rest,
  };
}
