import { type ListOptions, listOptionsQuery } from "@informer-ts/apimachinery";

/** What a request addresses, for the path kube-apiserver would have been asked at. */
export interface RequestTarget {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  /** Whether the resource is namespaced (a namespaced resource listed across namespaces has namespace ""). */
  readonly namespaced: boolean;
  readonly namespace: string;
  readonly name: string;
  readonly subresource?: string;
}

/**
 * The path of a request as a client would send it: `/api/v1/namespaces/<ns>/<resource>/<name>/<subresource>` for the
 * core group, `/apis/<group>/<version>/…` for others (namespace and name segments only when given).
 */
export function requestPath(t: RequestTarget): string {
  let p = t.group === "" ? `/api/${t.version}` : `/apis/${t.group}/${t.version}`;
  if (t.namespaced && t.namespace !== "") p += `/namespaces/${encodeURIComponent(t.namespace)}`;
  p += `/${t.resource}`;
  if (t.name !== "") p += `/${encodeURIComponent(t.name)}`;
  if (t.subresource !== undefined && t.subresource !== "") p += `/${t.subresource}`;
  return p;
}

/**
 * The request URI (path and query) of an in-process request, as client-go would have encoded it
 * ({@link listOptionsQuery}: the set list options, `watch=true` for a watch, keys sorted). Used for the audit line and the trace of requests that never had a URL.
 */
export function requestURI(
  t: RequestTarget,
  verb: string,
  opts: ListOptions | { readonly resourceVersion?: string } = {},
): string {
  const query = listOptionsQuery(opts as ListOptions, verb === "watch").toString();
  const path = requestPath(t);
  return query === "" ? path : `${path}?${query}`;
}
