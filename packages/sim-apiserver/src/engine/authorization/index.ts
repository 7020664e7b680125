export {
  ALWAYS_ALLOW,
  type AuthorizationMode,
  type Authorizer,
  type AuthzAttributes,
  type AuthzDecision,
  type AuthzRule,
  type AuthzUser,
  checkAuthorized,
  forbiddenMessage,
} from "./authorizer.js";
export { BOOTSTRAP_CLUSTER_ROLE_BINDINGS, BOOTSTRAP_CLUSTER_ROLES } from "./bootstrap-policy.js";
export {
  appliesToUser,
  RbacAuthorizer,
  type RbacKind,
  type RbacObjects,
  serviceAccountGroups,
  serviceAccountUsername,
} from "./rbac-authorizer.js";
export { ruleAllows } from "./rbac-rules.js";
