// What a kube-apiserver request URI addresses (kube-apiserver's RequestInfoFactory, reduced to what load
// attribution needs): resource, group, namespace, name, subresource, the list options of the query.

/** The parts of a request URI that attribute load. */
export interface RequestTarget {
  /** `pods`, `deployments.apps` (resource.group for named groups); for a non-resource URL its path (`/healthz`). */
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  readonly subresource: string;
  /** The URI used a legacy `/watch/` path prefix. */
  readonly legacyWatchPath: boolean;
  /** False for non-resource URLs (`/healthz`, `/metrics`, discovery). */
  readonly isResource: boolean;
  /** The decoded query parameters (first value of each). */
  readonly query: ReadonlyMap<string, string>;
}

const NAMESPACE_SUBRESOURCES = new Set(["status", "finalize"]);

/**
 * Splits a request URI (path and query, as the httplog's `URI` and the audit event's `requestURI` hold it) into the
 * resource it addresses. Never throws: a URI it cannot read is reported as a non-resource URL with its path.
 */
export function parseRequestUri(uri: string): RequestTarget {
  const q = uri.indexOf("?");
  const path = q < 0 ? uri : uri.slice(0, q);
  const query = new Map<string, string>();
  if (q >= 0) {
    for (const part of uri.slice(q + 1).split("&")) {
      if (part === "") continue;
      const eq = part.indexOf("=");
      const k = safeDecode(eq < 0 ? part : part.slice(0, eq));
      if (!query.has(k)) query.set(k, eq < 0 ? "" : safeDecode(part.slice(eq + 1)));
    }
  }
  const nonResource: RequestTarget = {
    resource: path,
    namespace: "",
    name: "",
    subresource: "",
    legacyWatchPath: false,
    isResource: false,
    query,
  };
  let parts = path.split("/").filter((s) => s !== "");
  let group = "";
  if (parts[0] === "api" && parts.length >= 3) parts = parts.slice(2);
  else if (parts[0] === "apis" && parts.length >= 4) {
    group = parts[1] ?? "";
    parts = parts.slice(3);
  } else return nonResource;
  let legacyWatchPath = false;
  if (parts[0] === "watch") {
    legacyWatchPath = true;
    parts = parts.slice(1);
  }
  let namespace = "";
  if (parts[0] === "namespaces" && parts.length >= 2) {
    if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2] ?? "")) {
      namespace = parts[1] ?? "";
      parts = parts.slice(2);
    }
  }
  if (parts.length === 0) return nonResource;
  const resource = parts[0] ?? "";
  return {
    resource: group === "" ? resource : `${resource}.${group}`,
    namespace: resource === "namespaces" ? "" : namespace,
    name: parts[1] ?? "",
    subresource: parts.slice(2).join("/"),
    legacyWatchPath,
    isResource: true,
    query,
  };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    return s;
  }
}
