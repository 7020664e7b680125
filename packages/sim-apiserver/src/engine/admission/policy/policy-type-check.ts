import type { KubeObject } from "@informer-ts/apimachinery";
import type { Environment } from "@marcbachmann/cel-js";
import type { SimResource } from "../../resources.js";
import { inferredType, typeCheckEnvironment, typeCheckIn } from "../cel/typecheck.js";
import type { StructuralSchema } from "../custom-resource-schema.js";
import type { NamedRule } from "./policy-matching.js";
import { schemaOfResource } from "./policy-schema.js";

/** `maxTypesToCheck`: at most this many kinds a policy matches are checked. */
const MAX_TYPES_TO_CHECK = 10;

/** One `status.typeChecking.expressionWarnings[]` entry. */
export interface ExpressionWarning {
  readonly fieldRef: string;
  readonly warning: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** Go's `schema.GroupVersionKind.String()`: `apps/v1, Kind=Deployment` (`/v1, Kind=Pod` for the core group). */
function gvkString(r: SimResource): string {
  return `${r.group}/${r.version}, Kind=${r.kind}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * `TypeChecker.typesToCheck`: the served kinds the policy's `matchConstraints.resourceRules` name exactly — a rule
 * with a wildcard group or version is skipped, wildcard and subresource entries of `resources` are — sorted by group,
 * version and kind, at most ten.
 */
function typesToCheck(policy: KubeObject, resources: readonly SimResource[]): SimResource[] {
  const spec = isObject(policy.spec) ? policy.spec : {};
  const mc = isObject(spec.matchConstraints) ? spec.matchConstraints : {};
  const out = new Set<SimResource>();
  const rules = Array.isArray(mc.resourceRules) ? (mc.resourceRules as NamedRule[]) : [];
  for (const rule of rules) {
    const groups = strings(rule.apiGroups);
    const versions = strings(rule.apiVersions);
    if (groups.some((g) => g.includes("*")) || versions.some((v) => v.includes("*"))) continue;
    const names = strings(rule.resources).filter((n) => !/[*/]/.test(n));
    for (const g of [...groups].sort())
      for (const v of [...versions].sort())
        for (const n of [...names].sort()) {
          // Served views count too: every CRD version is one, as are converted built-ins (autoscaling/v1 HPAs).
          const r = resources.find((x) => x.group === g && x.version === v && x.resource === n);
          if (r === undefined) continue;
          out.add(r);
          if (out.size === MAX_TYPES_TO_CHECK) return sorted(out);
        }
  }
  return sorted(out);
}

function sorted(set: Set<SimResource>): SimResource[] {
  return [...set].sort((a, b) => compare(a.group, b.group) || compare(a.version, b.version) || compare(a.kind, b.kind));
}

/**
 * The type checking of a ValidatingAdmissionPolicy (apiserver's `validating/typechecking.go`, run by
 * kube-controller-manager's `validatingadmissionpolicy-status` controller): every `spec.validations[i].expression`
 * and `messageExpression` is checked once per kind the policy matches ({@link typesToCheck}) that the simulator has a
 * schema for (built-ins from `openapi/`, custom resources from their served version), with `object` and `oldObject`
 * of that kind's type, `params` of the `paramKind`'s (`dyn` if unknown), `namespaceObject` a Namespace; `variables.<name>`
 * the type its expression checks to (`dyn` where it does not), `request` and `authorizer` `dyn`. A warning is `<gvk>: <cel-go's error>` per failing kind, joined — as
 * `ERROR: <input>:1:22: found no matching overload for '_>_' applied to '(int, string)'` and its caret lines
 * ({@link typeCheckIn}). Differences: `request` is untyped; what the checker of `cel/typecheck.ts` leaves to evaluation is not warned about.
 */
export function typeCheckPolicy(policy: KubeObject, resources: readonly SimResource[]): ExpressionWarning[] {
  const spec = isObject(policy.spec) ? policy.spec : {};
  const types = typesToCheck(policy, resources).flatMap((r) => {
    const s = schemaOfResource(r);
    return s === undefined ? [] : [{ r, s }];
  });
  if (types.length === 0) return [];
  const pk = isObject(spec.paramKind) ? spec.paramKind : undefined;
  let params: StructuralSchema | undefined;
  if (pk !== undefined) {
    const av = String(pk.apiVersion ?? "");
    const slash = av.indexOf("/");
    const [g, v] = slash === -1 ? ["", av] : [av.slice(0, slash), av.slice(slash + 1)];
    const pr = resources.find((x) => x.group === g && x.version === v && x.kind === pk.kind);
    params = pr === undefined ? undefined : schemaOfResource(pr);
  }
  const nsr = resources.find((x) => x.group === "" && x.resource === "namespaces");
  const namespace = nsr === undefined ? undefined : schemaOfResource(nsr);
  const variables = (Array.isArray(spec.variables) ? spec.variables.filter(isObject) : []).flatMap((v) =>
    typeof v.name === "string" && typeof v.expression === "string" ? [{ name: v.name, expression: v.expression }] : [],
  );
  const envs: { r: SimResource; env: Environment }[] = types.map(({ r, s }) => {
    const declared = {
      object: s,
      oldObject: s,
      params,
      namespaceObject: namespace,
      request: undefined,
      authorizer: undefined,
    };
    // `variables.<name>` has the type its expression checks to (in order: each sees the ones before), else dyn.
    const fields: Record<string, string> = {};
    for (const v of variables) {
      const env = typeCheckEnvironment(declared, { name: "variables", fields });
      fields[v.name] = inferredType(env, v.expression) ?? "dyn";
    }
    return { r, env: typeCheckEnvironment(declared, { name: "variables", fields }) };
  });
  const check = (expr: string): string | undefined => {
    const issues: string[] = [];
    for (const { r, env } of envs) {
      const err = typeCheckIn(env, expr);
      if (err !== undefined) issues.push(`${gvkString(r)}: ${err}\n`);
    }
    return issues.length === 0 ? undefined : issues.join("\n");
  };
  const warnings: ExpressionWarning[] = [];
  const validations = Array.isArray(spec.validations) ? spec.validations.filter(isObject) : [];
  validations.forEach((v, i) => {
    if (typeof v.expression === "string") {
      const w = check(v.expression);
      if (w !== undefined) warnings.push({ fieldRef: `spec.validations[${i}].expression`, warning: w });
    }
    if (typeof v.messageExpression === "string" && v.messageExpression !== "") {
      const w = check(v.messageExpression);
      if (w !== undefined) warnings.push({ fieldRef: `spec.validations[${i}].messageExpression`, warning: w });
    }
  });
  return warnings;
}
