import type { IncomingHttpHeaders } from "node:http";
import { isDNS1123Label, isDNS1123Subdomain } from "@informer-ts/apimachinery";
import { type Authorizer, type AuthzUser, checkAuthorized } from "../engine/authorization/index.js";
import type { UserInfo } from "./auth.js";

/** The impersonation headers (`authenticationv1.Impersonate*Header`), lowercased as Node gives them. */
export const IMPERSONATE_USER_HEADER = "impersonate-user";
export const IMPERSONATE_GROUP_HEADER = "impersonate-group";
export const IMPERSONATE_UID_HEADER = "impersonate-uid";
export const IMPERSONATE_EXTRA_HEADER_PREFIX = "impersonate-extra-";

/**
 * One thing a request asks to act as (upstream builds an `ObjectReference` per header value): a user or a service
 * account (from `Impersonate-User`), a group, a uid, or one value of an extra key.
 */
export type ImpersonationRequest =
  | { readonly kind: "User"; readonly name: string }
  | { readonly kind: "ServiceAccount"; readonly namespace: string; readonly name: string }
  | { readonly kind: "Group"; readonly name: string }
  | { readonly kind: "UID"; readonly name: string }
  | { readonly kind: "UserExtra"; readonly key: string; readonly name: string };

/** The result of {@link parseImpersonationHeaders}. */
export type ImpersonationHeaders =
  | { readonly ok: true; readonly requests: readonly ImpersonationRequest[]; readonly groupsSpecified: boolean }
  | { readonly ok: false; readonly error: string };

/** `serviceaccount.SplitUsername`: `system:serviceaccount:<ns>:<name>` with a valid namespace and name. */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  const prefix = "system:serviceaccount:";
  if (!username.startsWith(prefix)) return undefined;
  const parts = username.slice(prefix.length).split(":");
  if (parts.length !== 2) return undefined;
  const [namespace = "", name = ""] = parts;
  if (isDNS1123Label(namespace).length > 0 || isDNS1123Subdomain(name).length > 0) return undefined;
  return { namespace, name };
}

/** An extra key as sent: percent-encoded (`Impersonate-Extra-Example.com%2fkey`), decoded when it decodes. */
function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** Go's `%v` of the `ObjectReference` upstream builds (its seven string fields, space-separated, in braces). */
function describe(r: ImpersonationRequest): string {
  const authn = "authentication.k8s.io/v1";
  const fields =
    r.kind === "ServiceAccount"
      ? [r.kind, r.namespace, r.name, "", "", "", ""]
      : r.kind === "UserExtra"
        ? [r.kind, "", r.name, "", authn, "", r.key]
        : r.kind === "UID"
          ? [r.kind, "", r.name, "", authn, "", ""]
          : [r.kind, "", r.name, "", "", "", ""];
  return `{${fields.join(" ")}}`;
}

/**
 * `buildImpersonationRequests` of `endpoints/filters/impersonation.go`: the requests the headers make, in upstream's
 * order (user, groups, extras, uid). Groups, extras or a uid without `Impersonate-User` are an error (upstream's
 * `requested [...] without impersonating a user`, which kube-apiserver answers as an internal error).
 */
export function parseImpersonationHeaders(
  headers: Readonly<Record<string, readonly string[] | undefined>>,
): ImpersonationHeaders {
  const requests: ImpersonationRequest[] = [];
  const user = headers[IMPERSONATE_USER_HEADER]?.[0] ?? "";
  const hasUser = user !== "";
  if (hasUser) {
    const sa = splitServiceAccountUsername(user);
    requests.push(sa === undefined ? { kind: "User", name: user } : { kind: "ServiceAccount", ...sa });
  }
  const groups = headers[IMPERSONATE_GROUP_HEADER] ?? [];
  for (const g of groups) requests.push({ kind: "Group", name: g });
  let hasExtra = false;
  for (const [header, values] of Object.entries(headers)) {
    if (!header.startsWith(IMPERSONATE_EXTRA_HEADER_PREFIX) || values === undefined) continue;
    hasExtra = true;
    const key = unescapeExtraKey(header.slice(IMPERSONATE_EXTRA_HEADER_PREFIX.length).toLowerCase());
    for (const v of values) requests.push({ kind: "UserExtra", key, name: v });
  }
  const uid = headers[IMPERSONATE_UID_HEADER]?.[0] ?? "";
  if (uid !== "") requests.push({ kind: "UID", name: uid });
  if ((groups.length > 0 || hasExtra || uid !== "") && !hasUser) {
    return { ok: false, error: `requested [${requests.map(describe).join(" ")}] without impersonating a user` };
  }
  return { ok: true, requests, groupsSpecified: groups.length > 0 };
}

/** What the authorizer is asked for one impersonation request (verb `impersonate`). */
function resourceOf(r: ImpersonationRequest): {
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
} {
  switch (r.kind) {
    case "User":
      return { apiGroup: "", resource: "users", subresource: "", namespace: "" };
    case "ServiceAccount":
      return { apiGroup: "", resource: "serviceaccounts", subresource: "", namespace: r.namespace };
    case "Group":
      return { apiGroup: "", resource: "groups", subresource: "", namespace: "" };
    case "UID":
      return { apiGroup: "authentication.k8s.io", resource: "uids", subresource: "", namespace: "" };
    case "UserExtra":
      return { apiGroup: "authentication.k8s.io", resource: "userextras", subresource: r.key, namespace: "" };
  }
}

/**
 * `WithImpersonation`: checks that `requestor` may `impersonate` each of `parsed.requests` (throws kube-apiserver's
 * 403, `users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster
 * scope`, for the first one it may not) and returns the identity the request then acts as. A service account
 * without `Impersonate-Group` gets its fixed groups; a non-anonymous user gets `system:authenticated` unless the groups
 * name it or `system:unauthenticated`; `system:anonymous` gets `system:unauthenticated`.
 */
export function impersonate(
  requestor: AuthzUser,
  parsed: Extract<ImpersonationHeaders, { ok: true }>,
  authorizer: Authorizer | undefined,
): UserInfo {
  let username = "";
  let uid = "";
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const r of parsed.requests) {
    if (authorizer !== undefined && authorizer.mode !== "AlwaysAllow") {
      checkAuthorized(authorizer, {
        user: requestor,
        resourceRequest: true,
        verb: "impersonate",
        name: r.name,
        ...resourceOf(r),
      });
    }
    switch (r.kind) {
      case "ServiceAccount":
        username = `system:serviceaccount:${r.namespace}:${r.name}`;
        if (!parsed.groupsSpecified) groups = ["system:serviceaccounts", `system:serviceaccounts:${r.namespace}`];
        break;
      case "User":
        username = r.name;
        break;
      case "Group":
        groups.push(r.name);
        break;
      case "UID":
        uid = r.name;
        break;
      case "UserExtra":
        extra[r.key] = [...(extra[r.key] ?? []), r.name];
        break;
    }
  }
  if (username !== "system:anonymous") {
    if (!groups.includes("system:authenticated") && !groups.includes("system:unauthenticated"))
      groups.push("system:authenticated");
  } else if (!groups.includes("system:unauthenticated")) {
    groups.push("system:unauthenticated");
  }
  return {
    name: username,
    method: "impersonated",
    groups,
    ...(uid !== "" && { uid }),
    ...(Object.keys(extra).length > 0 && { extra }),
  };
}

/**
 * The impersonation headers of a request, every value of each (`distinct`: Node's `headersDistinct`, asked only
 * when there is such a header — building it costs a copy of every header).
 */
export function impersonationHeadersOf(
  headers: IncomingHttpHeaders,
  distinct?: () => Readonly<Record<string, string[] | undefined>>,
): Record<string, readonly string[] | undefined> {
  const out: Record<string, readonly string[] | undefined> = {};
  let all: Readonly<Record<string, string[] | undefined>> | undefined;
  for (const name of Object.keys(headers)) {
    if (!name.startsWith("impersonate-")) continue;
    all ??= distinct?.();
    const raw = headers[name];
    out[name] = all?.[name] ?? (raw === undefined ? undefined : Array.isArray(raw) ? raw : [raw]);
  }
  return out;
}
