import { type KubeObject, labelSelectorAsSelector } from "@informer-ts/apimachinery";
import type {
  AuthorizationMode,
  Authorizer,
  AuthzAttributes,
  AuthzDecision,
  AuthzRule,
  AuthzUser,
} from "./authorizer.js";
import { BOOTSTRAP_CLUSTER_ROLE_BINDINGS, BOOTSTRAP_CLUSTER_ROLES } from "./bootstrap-policy.js";
import { ruleAllows } from "./rbac-rules.js";

/** The four RBAC kinds the authorizer reads. */
export type RbacKind = "ClusterRole" | "ClusterRoleBinding" | "Role" | "RoleBinding";

/** Where the authorizer reads RBAC objects (the engine's storage; `namespace` is `""` for the cluster kinds). */
export interface RbacObjects {
  list(kind: RbacKind, namespace: string): Iterable<KubeObject>;
}

interface Subject {
  readonly kind?: string;
  readonly name?: string;
  readonly namespace?: string;
}

interface RoleRef {
  readonly kind?: string;
  readonly name?: string;
}

/** `serviceaccount.MakeUsername`: `system:serviceaccount:<namespace>:<name>`. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** `serviceaccount.MakeGroupNames`: `system:serviceaccounts` and `system:serviceaccounts:<namespace>`. */
export function serviceAccountGroups(namespace: string): readonly string[] {
  return ["system:serviceaccounts", `system:serviceaccounts:${namespace}`];
}

/** `appliesToUser`: a User by name, a Group by membership, a ServiceAccount by its username. */
export function appliesToUser(user: AuthzUser, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case "User":
      return user.username === subject.name;
    case "Group":
      return subject.name !== undefined && user.groups.includes(subject.name);
    case "ServiceAccount": {
      const ns = subject.namespace !== undefined && subject.namespace !== "" ? subject.namespace : bindingNamespace;
      if (ns === "") return false;
      return user.username === serviceAccountUsername(ns, subject.name ?? "");
    }
    default:
      return false;
  }
}

/** `describeSubject`: `User "alice"`, `ServiceAccount "default/ns"`. */
function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === "ServiceAccount") {
    const ns = s.namespace !== undefined && s.namespace !== "" ? s.namespace : bindingNamespace;
    return `ServiceAccount ${JSON.stringify(`${s.name ?? ""}/${ns}`)}`;
  }
  return `${s.kind ?? ""} ${JSON.stringify(s.name ?? "")}`;
}

function rulesOf(o: KubeObject): readonly AuthzRule[] {
  const rules = (o as { rules?: unknown }).rules;
  if (!Array.isArray(rules)) return [];
  return rules.filter((r): r is AuthzRule => typeof r === "object" && r !== null && Array.isArray(r.verbs));
}

function subjectsOf(o: KubeObject): readonly Subject[] {
  const s = (o as { subjects?: unknown }).subjects;
  return Array.isArray(s) ? (s as Subject[]) : [];
}

/**
 * The RBAC authorizer (`plugin/pkg/auth/authorizer/rbac/rbac.go` `RBACAuthorizer`) over the rule resolution of
 * `pkg/registry/rbac/validation/rule.go` (`DefaultRuleResolver.VisitRulesFor`): the ClusterRoleBindings whose
 * subjects include the user grant their ClusterRole's rules everywhere; in a namespace, the RoleBindings there grant
 * their Role's or ClusterRole's rules in that namespace. A request is allowed when one rule allows it (the reason
 * names the binding: `RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to User "alice"`); otherwise RBAC
 * has no opinion (no reason), which the simulator, with RBAC as its only authorizer, answers as forbidden.
 *
 * ClusterRoles with an `aggregationRule` get the rules of the ClusterRoles its selectors match at evaluation time
 * (what upstream's clusterrole-aggregation controller writes into `rules`). The bootstrap policy
 * ({@link BOOTSTRAP_CLUSTER_ROLES}) is consulted after the stored objects.
 *
 * Differences: a binding to a missing role grants nothing and is not reported (upstream lists it in the denial's
 * reason and marks a rules review incomplete).
 */
export class RbacAuthorizer implements Authorizer {
  readonly mode: AuthorizationMode = "RBAC";

  constructor(private readonly objects: RbacObjects) {}

  authorize(attrs: AuthzAttributes): AuthzDecision {
    let reason = "";
    const ns = attrs.resourceRequest ? attrs.namespace : "";
    this.visitRulesFor(attrs.user, ns, (source, rule) => {
      if (!ruleAllows(attrs, rule)) return true;
      reason = `RBAC: allowed by ${source()}`;
      return false;
    });
    return reason === "" ? { decision: "no-opinion", reason: "" } : { decision: "allow", reason };
  }

  rulesFor(user: AuthzUser, namespace: string): { readonly rules: readonly AuthzRule[]; readonly incomplete: boolean } {
    const rules: AuthzRule[] = [];
    this.visitRulesFor(user, namespace, (_source, rule) => {
      rules.push(rule);
      return true;
    });
    return { rules, incomplete: false };
  }

  /** `VisitRulesFor`: calls `visit` with each rule that applies (and how it applies) until it returns false. */
  private visitRulesFor(
    user: AuthzUser,
    namespace: string,
    visit: (source: () => string, rule: AuthzRule) => boolean,
  ): void {
    const clusterRoles = this.clusterRoles();
    for (const crb of this.clusterRoleBindings()) {
      const subject = subjectsOf(crb).find((s) => appliesToUser(user, s, ""));
      if (subject === undefined) continue;
      const ref = ((crb as { roleRef?: RoleRef }).roleRef ?? {}) as RoleRef;
      if (ref.kind !== "ClusterRole") continue;
      const source = () =>
        `ClusterRoleBinding ${JSON.stringify(crb.metadata?.name ?? "")} of ClusterRole ${JSON.stringify(ref.name ?? "")} to ${describeSubject(subject, "")}`;
      for (const rule of this.clusterRoleRules(clusterRoles, ref.name ?? "")) if (!visit(source, rule)) return;
    }
    if (namespace === "") return;
    for (const rb of this.objects.list("RoleBinding", namespace)) {
      const subject = subjectsOf(rb).find((s) => appliesToUser(user, s, namespace));
      if (subject === undefined) continue;
      const ref = ((rb as { roleRef?: RoleRef }).roleRef ?? {}) as RoleRef;
      const source = () =>
        `RoleBinding ${JSON.stringify(`${rb.metadata?.name ?? ""}/${namespace}`)} of ${ref.kind ?? ""} ${JSON.stringify(ref.name ?? "")} to ${describeSubject(subject, namespace)}`;
      let rules: readonly AuthzRule[] = [];
      if (ref.kind === "ClusterRole") rules = this.clusterRoleRules(clusterRoles, ref.name ?? "");
      else if (ref.kind === "Role") {
        for (const role of this.objects.list("Role", namespace)) {
          if (role.metadata?.name === ref.name) rules = rulesOf(role);
        }
      }
      for (const rule of rules) if (!visit(source, rule)) return;
    }
  }

  /** Stored ClusterRoles by name, then the bootstrap ones not stored. */
  private clusterRoles(): Map<string, KubeObject> {
    const byName = new Map<string, KubeObject>();
    for (const o of this.objects.list("ClusterRole", "")) byName.set(o.metadata?.name ?? "", o);
    for (const o of BOOTSTRAP_CLUSTER_ROLES) if (!byName.has(o.metadata!.name!)) byName.set(o.metadata!.name!, o);
    return byName;
  }

  private *clusterRoleBindings(): Iterable<KubeObject> {
    const names = new Set<string>();
    for (const o of this.objects.list("ClusterRoleBinding", "")) {
      names.add(o.metadata?.name ?? "");
      yield o;
    }
    for (const o of BOOTSTRAP_CLUSTER_ROLE_BINDINGS) if (!names.has(o.metadata!.name!)) yield o;
  }

  /** A ClusterRole's rules; an aggregated one's are those of the ClusterRoles its selectors match (transitively). */
  private clusterRoleRules(roles: Map<string, KubeObject>, name: string, seen = new Set<string>()): AuthzRule[] {
    const role = roles.get(name);
    if (role === undefined || seen.has(name)) return [];
    seen.add(name);
    const agg = (role as { aggregationRule?: { clusterRoleSelectors?: unknown } }).aggregationRule;
    if (agg === undefined || !Array.isArray(agg.clusterRoleSelectors)) return [...rulesOf(role)];
    const out: AuthzRule[] = [];
    for (const raw of agg.clusterRoleSelectors) {
      let sel: ReturnType<typeof labelSelectorAsSelector>;
      try {
        sel = labelSelectorAsSelector(raw as Parameters<typeof labelSelectorAsSelector>[0]);
      } catch {
        continue;
      }
      if (sel.empty() || sel.matchesNothing()) continue;
      for (const [other, o] of roles) {
        if (other !== name && sel.matches(o.metadata?.labels)) out.push(...this.clusterRoleRules(roles, other, seen));
      }
    }
    return out;
  }
}
