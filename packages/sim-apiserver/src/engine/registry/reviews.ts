import { type FieldError, type KubeObject, newBadRequest, newInvalid } from "@informer-ts/apimachinery";
import { ALWAYS_ALLOW, type Authorizer, type AuthzAttributes, type AuthzUser } from "../authorization/index.js";
import { apiVersionOf, type SimResource } from "../resources.js";
import type { ServiceAccountTokens } from "../serviceaccount/service-account-tokens.js";

/** Who sent a request, as the review kinds read it (the HTTP face's authenticated user; in-process: an admin). */
export type ReviewUser = AuthzUser;

/** The user of an in-process request: the cluster admin a kubeconfig of `kind` or `kubeadm` carries. */
export const IN_PROCESS_USER: ReviewUser = Object.freeze({
  username: "system:admin",
  groups: Object.freeze(["system:masters", "system:authenticated"]),
});

/**
 * The user a request's authenticated name (and the groups its authenticator gave) stands for: `system:anonymous` is
 * in `system:unauthenticated`, any other name also in `system:authenticated` (kube-apiserver's authenticator group
 * rules), a service account's (`system:serviceaccount:<ns>:<name>`) also in `system:serviceaccounts` and
 * `system:serviceaccounts:<ns>`; no name is an in-process request (the superuser, {@link IN_PROCESS_USER}).
 */
export function reviewUserOf(
  name: string | undefined,
  groups: readonly string[] = [],
  uid?: string,
  extra?: Readonly<Record<string, readonly string[]>>,
): ReviewUser {
  if (name === undefined) return IN_PROCESS_USER;
  const rest = {
    ...(uid !== undefined && uid !== "" && { uid }),
    ...(extra !== undefined && Object.keys(extra).length > 0 && { extra }),
  };
  if (name === "system:anonymous")
    return { username: name, groups: [...new Set([...groups, "system:unauthenticated"])], ...rest };
  const all = [...groups];
  const sa = /^system:serviceaccount:([^:]+):[^:]+$/.exec(name);
  if (sa !== null) all.push("system:serviceaccounts", `system:serviceaccounts:${sa[1]}`);
  all.push("system:authenticated");
  return { username: name, groups: [...new Set(all)], ...rest };
}

/** A review's `spec.resourceAttributes` or `spec.nonResourceAttributes` as the authorizer's attributes. */
function attributesOf(spec: Record<string, unknown>, user: ReviewUser): AuthzAttributes {
  const str = (o: Record<string, unknown>, k: string) => (typeof o[k] === "string" ? (o[k] as string) : "");
  if (isObject(spec.resourceAttributes)) {
    const a = spec.resourceAttributes;
    return {
      user,
      resourceRequest: true,
      verb: str(a, "verb"),
      apiGroup: str(a, "group"),
      resource: str(a, "resource"),
      subresource: str(a, "subresource"),
      namespace: str(a, "namespace"),
      name: str(a, "name"),
    };
  }
  const n = isObject(spec.nonResourceAttributes) ? spec.nonResourceAttributes : {};
  return { user, resourceRequest: false, verb: str(n, "verb"), path: str(n, "path") };
}

/** The spec's subject (`spec.user`, `spec.groups`) of a (local) subject access review, as given. */
function specUser(spec: Record<string, unknown>): ReviewUser {
  const groups = Array.isArray(spec.groups) ? spec.groups.filter((g): g is string => typeof g === "string") : [];
  return { username: typeof spec.user === "string" ? spec.user : "", groups };
}

/** `status` of an access review: `allowed`, with `denied` and `reason` when set (as upstream's omitempty fields). */
function accessStatus(authorizer: Authorizer, attrs: AuthzAttributes): Record<string, unknown> {
  const d = authorizer.authorize(attrs);
  return {
    allowed: d.decision === "allow",
    ...(d.decision === "deny" && { denied: true }),
    ...(d.reason !== "" && { reason: d.reason }),
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `ValidateSubjectAccessReviewSpec`'s shared rule: exactly one of resource and non-resource attributes. */
function attributeErrors(spec: Record<string, unknown>): FieldError[] {
  const res = spec.resourceAttributes;
  const non = spec.nonResourceAttributes;
  if (res === undefined && non === undefined) {
    return [
      {
        type: "FieldValueInvalid",
        field: "spec.resourceAttributes",
        badValue: "null",
        detail: "exactly one of nonResourceAttributes or resourceAttributes must be specified",
      },
    ];
  }
  if (res !== undefined && non !== undefined) {
    return [
      {
        type: "FieldValueInvalid",
        field: "spec.nonResourceAttributes",
        badValue: JSON.stringify(non),
        detail: "cannot be specified in combination with resourceAttributes",
      },
    ];
  }
  return [];
}

/** `ValidateSubjectAccessReviewSpec`: a (local) subject access review names a user or a group. */
function subjectErrors(spec: Record<string, unknown>): FieldError[] {
  if ((spec.user ?? "") !== "" || (Array.isArray(spec.groups) && spec.groups.length > 0)) return [];
  return [
    {
      type: "FieldValueInvalid",
      field: "spec.user",
      badValue: "",
      detail: "at least one of user or group must be specified",
    },
  ];
}

/**
 * Answers a create of a review kind (`authorization.k8s.io` and `authentication.k8s.io`, upstream's
 * `pkg/registry/authorization/*review/rest.go` and `pkg/registry/authentication/selfsubjectreview/rest.go`): the
 * object sent, with the status the simulator's authorizer gives — every request is allowed (the simulator has no
 * authorization step, as kube-apiserver with `--authorization-mode=AlwaysAllow`) — or the requester's identity.
 * Nothing is stored; invalid specs are 422 (400 for a rules review without a namespace) with upstream's messages.
 *
 * TokenReviews authenticate the service-account tokens the engine issued (`tokens`, see `ServiceAccountTokens.review`).
 *
 * Differences from kube-apiserver: no other token authenticates (the engine does not know the HTTP face's bearer
 * tokens): a TokenReview of one answers `authenticated: false` with the reason.
 */
export function answerReview(
  r: SimResource,
  namespace: string,
  obj: KubeObject,
  user: ReviewUser,
  tokens?: ServiceAccountTokens,
  authorizer: Authorizer = ALWAYS_ALLOW,
): KubeObject {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const gk = { group: r.group, kind: r.kind };
  const name = obj.metadata?.name ?? "";
  const errs: FieldError[] = [];
  let status: Record<string, unknown>;
  switch (r.resource) {
    case "selfsubjectaccessreviews":
      errs.push(...attributeErrors(spec));
      status = accessStatus(authorizer, attributesOf(spec, user));
      break;
    case "localsubjectaccessreviews": {
      errs.push(...attributeErrors(spec));
      const attrs = isObject(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
      if (attrs !== undefined && (attrs.namespace ?? "") !== namespace) {
        errs.push({
          type: "FieldValueInvalid",
          field: "spec.resourceAttributes.namespace",
          badValue: String(attrs.namespace ?? ""),
          detail: "must match metadata.namespace",
        });
      }
      errs.push(...subjectErrors(spec));
      status = accessStatus(authorizer, attributesOf(spec, specUser(spec)));
      break;
    }
    case "subjectaccessreviews":
      errs.push(...attributeErrors(spec), ...subjectErrors(spec));
      status = accessStatus(authorizer, attributesOf(spec, specUser(spec)));
      break;
    case "selfsubjectrulesreviews":
      if (typeof spec.namespace !== "string" || spec.namespace === "") throw newBadRequest("no namespace on request");
      status = rulesReviewStatus(authorizer, user, spec.namespace);
      break;
    case "selfsubjectreviews":
      status = {
        userInfo: {
          username: user.username,
          ...(user.uid !== undefined && { uid: user.uid }),
          groups: [...user.groups],
          ...(user.extra !== undefined && {
            extra: Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]])),
          }),
        },
      };
      break;
    case "tokenreviews":
      if (typeof spec.token !== "string" || spec.token === "") {
        errs.push({ type: "FieldValueRequired", field: "spec.token", detail: "token is required" });
      } else if (tokens !== undefined) {
        const audiences = Array.isArray(spec.audiences) ? spec.audiences.filter((a) => typeof a === "string") : [];
        status = tokens.review(spec.token, audiences);
        break;
      }
      status = { user: {}, error: "token reviews are not simulated: no token authenticates" };
      break;
    default:
      throw newBadRequest(`${r.resource} is not a review resource`);
  }
  if (errs.length > 0) throw newInvalid(gk, name, errs);
  const metadata = { ...(isObject(obj.metadata) ? obj.metadata : {}), creationTimestamp: null };
  if (r.namespaced) (metadata as Record<string, unknown>).namespace = namespace;
  return { kind: r.kind, apiVersion: apiVersionOf(r), metadata, spec, status } as unknown as KubeObject;
}

/** `SelfSubjectRulesReview` status: the rules that apply, split into resource and non-resource rules. */
function rulesReviewStatus(authorizer: Authorizer, user: ReviewUser, namespace: string): Record<string, unknown> {
  const { rules, incomplete } = authorizer.rulesFor(user, namespace);
  const resourceRules: Record<string, unknown>[] = [];
  const nonResourceRules: Record<string, unknown>[] = [];
  for (const r of rules) {
    if ((r.nonResourceURLs ?? []).length > 0) {
      nonResourceRules.push({ verbs: [...r.verbs], nonResourceURLs: [...(r.nonResourceURLs ?? [])] });
    } else {
      resourceRules.push({
        verbs: [...r.verbs],
        ...(r.apiGroups !== undefined && { apiGroups: [...r.apiGroups] }),
        ...(r.resources !== undefined && { resources: [...r.resources] }),
        ...((r.resourceNames ?? []).length > 0 && { resourceNames: [...(r.resourceNames ?? [])] }),
      });
    }
  }
  return { resourceRules, nonResourceRules, incomplete };
}
