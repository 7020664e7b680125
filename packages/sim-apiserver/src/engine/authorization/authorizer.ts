/**
 * The engine's authorization step (kube-apiserver's `authorizer.Authorizer`,
 * `staging/src/k8s.io/apiserver/pkg/authorization/authorizer/interfaces.go`, and the 403 message of
 * `staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go`).
 */
import { newForbidden } from "@informer-ts/apimachinery";

/** Who asks: authentication's `user.Info` (the authorizers read the name and groups; SelfSubjectReview all four). */
export interface AuthzUser {
  readonly username: string;
  readonly groups: readonly string[];
  readonly uid?: string;
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** What a request asks to do (`authorizer.Attributes`): a resource request or a non-resource path. */
export type AuthzAttributes =
  | {
      readonly user: AuthzUser;
      readonly resourceRequest: true;
      readonly verb: string;
      readonly apiGroup: string;
      readonly resource: string;
      readonly subresource: string;
      readonly namespace: string;
      readonly name: string;
    }
  | {
      readonly user: AuthzUser;
      readonly resourceRequest: false;
      readonly verb: string;
      readonly path: string;
    };

/** `authorizer.Decision` with its reason. */
export interface AuthzDecision {
  readonly decision: "allow" | "deny" | "no-opinion";
  readonly reason: string;
}

/** A PolicyRule as the rules review lists it (`authorizer.ResourceRuleInfo` / `NonResourceRuleInfo`). */
export interface AuthzRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

/** `authorizer.Authorizer` plus `authorizer.RuleResolver` (what SelfSubjectRulesReview lists). */
export interface Authorizer {
  /** `"AlwaysAllow"` or `"RBAC"` (the `--authorization-mode` it stands for). */
  readonly mode: AuthorizationMode;
  authorize(attrs: AuthzAttributes): AuthzDecision;
  /** The rules that apply to `user` in `namespace`; `incomplete` when some could not be read. */
  rulesFor(user: AuthzUser, namespace: string): { readonly rules: readonly AuthzRule[]; readonly incomplete: boolean };
}

/** The authorization modes the simulator serves (`--authorization-mode`). */
export type AuthorizationMode = "AlwaysAllow" | "RBAC";

/** `authorizerfactory.NewAlwaysAllowAuthorizer`: every request is allowed; every rule applies. */
export const ALWAYS_ALLOW: Authorizer = Object.freeze({
  mode: "AlwaysAllow" as const,
  authorize: (): AuthzDecision => ({ decision: "allow", reason: "" }),
  rulesFor: () => ({
    rules: [
      { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
      { verbs: ["*"], nonResourceURLs: ["*"] },
    ],
    incomplete: false,
  }),
});

/**
 * The authorization filter's check (`filters/authorization.go`): throws kube-apiserver's 403 (`configmaps "x" is
 * forbidden: User …`, `forbidden: User … cannot get path …`) unless the authorizer allows `attrs`.
 */
export function checkAuthorized(authorizer: Authorizer, attrs: AuthzAttributes): void {
  const d = authorizer.authorize(attrs);
  if (d.decision === "allow") return;
  const gr = attrs.resourceRequest ? { group: attrs.apiGroup, resource: attrs.resource } : { group: "", resource: "" };
  throw newForbidden(gr, attrs.resourceRequest ? attrs.name : "", forbiddenMessage(attrs, d.reason));
}

/**
 * `forbiddenMessage`: `User "alice" cannot list resource "configmaps" in API group "" in the namespace "ns"` (or
 * `at the cluster scope`, or `cannot get path "/apis"`), with `: <reason>` when the authorizer gave one.
 */
export function forbiddenMessage(attrs: AuthzAttributes, reason: string): string {
  const user = JSON.stringify(attrs.user.username);
  let msg: string;
  if (!attrs.resourceRequest) {
    msg = `User ${user} cannot ${attrs.verb} path ${JSON.stringify(attrs.path)}`;
  } else {
    const resource = attrs.subresource === "" ? attrs.resource : `${attrs.resource}/${attrs.subresource}`;
    const where =
      attrs.namespace === "" ? "at the cluster scope" : `in the namespace ${JSON.stringify(attrs.namespace)}`;
    msg = `User ${user} cannot ${attrs.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(attrs.apiGroup)} ${where}`;
  }
  return reason === "" ? msg : `${msg}: ${reason}`;
}
