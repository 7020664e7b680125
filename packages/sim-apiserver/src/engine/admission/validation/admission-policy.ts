import type { FieldError, KubeObject } from "@informer-ts/apimachinery";
import type { Environment } from "@marcbachmann/cel-js";
import { typeCheckEnvironment, typeCheckIn } from "../cel/typecheck.js";
import { programOf, syntaxError } from "../cel/validation.js";
import { listAt, notSupported, objectAt, stringAt } from "./common.js";

const FAILURE_POLICIES = ["Fail", "Ignore"];
const MATCH_POLICIES = ["Equivalent", "Exact"];
const REASONS = ["Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"];
const ACTIONS = ["Audit", "Deny", "Warn"];
const PARAM_NOT_FOUND_ACTIONS = ["Allow", "Deny"];
const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;

/** The variables a policy's expressions may name, all `dyn` (`params` only with a `paramKind`). */
function policyEnvironment(hasParams: boolean): Environment {
  return typeCheckEnvironment({
    object: undefined,
    oldObject: undefined,
    request: undefined,
    namespaceObject: undefined,
    variables: undefined,
    authorizer: undefined,
    ...(hasParams && { params: undefined }),
  });
}

const ENVS = new Map<boolean, Environment>();

/**
 * The compile step of `validateCELCondition`: a parse error (@bufbuild/cel's, worded as cel-go's `ERROR: <input>:…:
 * Syntax error: …`) or an undeclared reference / constant type error of cel-js's checker, as a field error.
 */
function compileErrors(expr: string, field: string, hasParams: boolean): FieldError[] {
  const p = programOf(expr);
  let err: string | undefined;
  if (p instanceof Error) err = `ERROR: ${syntaxError(p.message)}`;
  else {
    let env = ENVS.get(hasParams);
    if (env === undefined) {
      env = policyEnvironment(hasParams);
      ENVS.set(hasParams, env);
    }
    err = typeCheckIn(env, expr);
  }
  return err === undefined
    ? []
    : [{ type: "FieldValueInvalid", field, badValue: expr, detail: `compilation failed: ${err}` }];
}

function required(field: string, detail = ""): FieldError {
  return { type: "FieldValueRequired", field, ...(detail !== "" && { detail }) };
}

/** `validateMatchResources` (after defaulting): the match policy and the selectors are present. */
function validateMatchResources(m: Record<string, unknown>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const mp = m.matchPolicy;
  if (mp === undefined) errs.push(required(`${path}.matchPolicy`));
  else if (!MATCH_POLICIES.includes(stringAt(mp)))
    errs.push(notSupported(stringAt(mp), `${path}.matchPolicy`, MATCH_POLICIES));
  if (m.namespaceSelector === undefined) errs.push(required(`${path}.namespaceSelector`));
  if (m.objectSelector === undefined) errs.push(required(`${path}.objectSelector`));
  return errs;
}

/**
 * `ValidateValidatingAdmissionPolicy` (pkg/apis/admissionregistration/validation/validation.go), the spec's
 * essentials on the defaulted object: `failurePolicy`, `paramKind` (apiVersion and kind), `matchConstraints` with
 * at least one resource rule, `matchConditions` and `variables` (names and expressions), at least one of
 * `validations`/`auditAnnotations`, each validation's `expression` (required, compiled) and `messageExpression`,
 * a supported `reason`, unique audit annotation keys. Expressions are compiled with every variable `dyn`: a syntax
 * error or a reference to an undeclared variable (`self`) is `Invalid value: "<expr>": compilation failed: ERROR:
 * <input>:1:1: …`.
 */
export function validateValidatingAdmissionPolicy(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objectAt(obj.spec) ?? {};
  const fp = spec.failurePolicy;
  if (fp === undefined) errs.push(required("spec.failurePolicy"));
  else if (!FAILURE_POLICIES.includes(stringAt(fp)))
    errs.push(notSupported(stringAt(fp), "spec.failurePolicy", FAILURE_POLICIES));
  const pk = objectAt(spec.paramKind);
  if (pk !== undefined) {
    if (stringAt(pk.apiVersion) === "") errs.push(required("spec.paramKind.apiVersion"));
    if (stringAt(pk.kind) === "") errs.push(required("spec.paramKind.kind"));
  }
  const hasParams = pk !== undefined;
  const mc = objectAt(spec.matchConstraints);
  if (mc === undefined) errs.push(required("spec.matchConstraints"));
  else {
    errs.push(...validateMatchResources(mc, "spec.matchConstraints"));
    if (listAt(mc.resourceRules).length === 0) errs.push(required("spec.matchConstraints.resourceRules"));
  }
  listAt(spec.matchConditions).forEach((raw, i) => {
    const c = objectAt(raw) ?? {};
    const at = `spec.matchConditions[${i}]`;
    const expr = stringAt(c.expression).trim();
    if (expr === "") errs.push(required(`${at}.expression`));
    else errs.push(...compileErrors(expr, `${at}.expression`, hasParams));
    if (stringAt(c.name) === "") errs.push(required(`${at}.name`));
  });
  listAt(spec.variables).forEach((raw, i) => {
    const v = objectAt(raw) ?? {};
    const at = `spec.variables[${i}]`;
    const name = stringAt(v.name);
    if (name.trim() === "") errs.push(required(`${at}.name`, "name is not specified"));
    else if (!CEL_IDENTIFIER.test(name))
      errs.push({
        type: "FieldValueInvalid",
        field: `${at}.name`,
        badValue: name,
        detail: "name is not a valid CEL identifier",
      });
    const expr = stringAt(v.expression);
    if (expr.trim() === "") errs.push(required(`${at}.expression`, "expression is not specified"));
    else errs.push(...compileErrors(expr, `${at}.expression`, hasParams));
  });
  const validations = listAt(spec.validations);
  const annotations = listAt(spec.auditAnnotations);
  if (validations.length === 0 && annotations.length === 0) {
    const detail = "validations or auditAnnotations must contain at least one item";
    errs.push(required("spec.validations", detail), required("spec.auditAnnotations", detail));
    return errs;
  }
  validations.forEach((raw, i) => {
    const v = objectAt(raw) ?? {};
    const at = `spec.validations[${i}]`;
    const expr = stringAt(v.expression);
    if (expr.trim() === "") errs.push(required(`${at}.expression`, "expression is not specified"));
    else errs.push(...compileErrors(expr, `${at}.expression`, hasParams));
    const mx = stringAt(v.messageExpression);
    if (mx !== "" && mx.trim() === "")
      errs.push({
        type: "FieldValueInvalid",
        field: `${at}.messageExpression`,
        badValue: mx,
        detail: "must be non-empty if specified",
      });
    else if (mx !== "") errs.push(...compileErrors(mx, `${at}.messageExpression`, hasParams));
    const message = stringAt(v.message);
    if (message !== "" && message.trim() === "")
      errs.push({
        type: "FieldValueInvalid",
        field: `${at}.message`,
        badValue: message,
        detail: "message must be non-empty if specified",
      });
    else if (/[\n\r]/.test(message.trim()))
      errs.push({
        type: "FieldValueInvalid",
        field: `${at}.message`,
        badValue: message,
        detail: "message must not contain line breaks",
      });
    if (v.reason !== undefined && !REASONS.includes(stringAt(v.reason)))
      errs.push(notSupported(stringAt(v.reason), `${at}.reason`, REASONS));
  });
  const keys = new Set<string>();
  annotations.forEach((raw, i) => {
    const a = objectAt(raw) ?? {};
    const at = `spec.auditAnnotations[${i}]`;
    const key = stringAt(a.key);
    if (key === "") errs.push(required(`${at}.key`));
    else if (keys.has(key)) errs.push({ type: "FieldValueDuplicate", field: `${at}.key`, badValue: key });
    keys.add(key);
    const expr = stringAt(a.valueExpression);
    if (expr.trim() === "") errs.push(required(`${at}.valueExpression`));
    else errs.push(...compileErrors(expr, `${at}.valueExpression`, hasParams));
  });
  return errs;
}

/**
 * `ValidateValidatingAdmissionPolicyBinding`: `policyName` required; `validationActions` at least one, each
 * supported and once, not both `Deny` and `Warn`; a `paramRef` has a `name` or a `selector` (not both) and a
 * `parameterNotFoundAction`; `matchResources`, when given, is checked as the policy's.
 */
export function validateValidatingAdmissionPolicyBinding(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objectAt(obj.spec) ?? {};
  if (stringAt(spec.policyName) === "") errs.push(required("spec.policyName"));
  const actions = listAt(spec.validationActions);
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    const action = stringAt(a);
    if (!ACTIONS.includes(action)) errs.push(notSupported(action, `spec.validationActions[${i}]`, ACTIONS));
    if (seen.has(action))
      errs.push({ type: "FieldValueDuplicate", field: `spec.validationActions[${i}]`, badValue: action });
    seen.add(action);
  });
  if (seen.has("Deny") && seen.has("Warn"))
    errs.push({
      type: "FieldValueInvalid",
      field: "spec.validationActions",
      printedValue: `[]v1.ValidationAction{${actions.map((a) => JSON.stringify(stringAt(a))).join(", ")}}`,
      detail:
        "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
    });
  if (seen.size === 0) errs.push(required("spec.validationActions", "at least one validation action is required"));
  const ref = objectAt(spec.paramRef);
  if (ref !== undefined) {
    const hasName = stringAt(ref.name) !== "";
    if (hasName && ref.selector !== undefined)
      errs.push({
        type: "FieldValueForbidden",
        field: "spec.paramRef.name",
        detail: "name and selector are mutually exclusive",
      });
    if (!hasName && ref.selector === undefined)
      errs.push(required("spec.paramRef", "one of name or selector must be specified"));
    const action = ref.parameterNotFoundAction;
    if (action === undefined) errs.push(required("spec.paramRef.parameterNotFoundAction"));
    else if (!PARAM_NOT_FOUND_ACTIONS.includes(stringAt(action)))
      errs.push(notSupported(stringAt(action), "spec.paramRef.parameterNotFoundAction", PARAM_NOT_FOUND_ACTIONS));
  }
  const mr = objectAt(spec.matchResources);
  if (mr !== undefined) errs.push(...validateMatchResources(mr, "spec.matchResources"));
  return errs;
}
