import type { FieldError, KubeObject } from "@informer-ts/apimachinery";
import type { Environment } from "@marcbachmann/cel-js";
import { typeCheckEnvironment, typeCheckIn } from "../cel/typecheck.js";
import { programOf, syntaxError } from "../cel/validation.js";
import { listAt, notSupported, objectAt, stringAt } from "./common.js";

const FAILURE_POLICIES = ["Fail", "Ignore"];
const MATCH_POLICIES = ["Equivalent", "Exact"];
const SIDE_EFFECTS = ["None", "NoneOnDryRun"];
const REINVOCATION = ["IfNeeded", "Never"];
const REVIEW_VERSIONS = ["v1", "v1beta1"];

let env: Environment | undefined;

/** A match condition's compile error (`object`, `oldObject`, `request`, `authorizer` declared, all `dyn`). */
function compileError(expr: string): string | undefined {
  const p = programOf(expr);
  if (p instanceof Error) return `ERROR: ${syntaxError(p.message)}`;
  env ??= typeCheckEnvironment({ object: undefined, oldObject: undefined, request: undefined, authorizer: undefined });
  return typeCheckIn(env, expr);
}

function required(field: string): FieldError {
  return { type: "FieldValueRequired", field };
}

function invalid(field: string, value: unknown, detail: string): FieldError {
  const badValue =
    typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? value : String(value);
  return { type: "FieldValueInvalid", field, badValue, detail };
}

/** `validateWebhookClientConfig`: exactly one of `url` (https, no fragment or query) and `service`. */
function validateClientConfig(cfg: Record<string, unknown> | undefined, at: string): FieldError[] {
  const c = cfg ?? {};
  const url = c.url;
  const svc = objectAt(c.service);
  if ((url === undefined) === (svc === undefined))
    return [required(`${at}`)].map((e) => ({ ...e, detail: "exactly one of url or service is required" }));
  if (typeof url === "string") {
    let u: URL | undefined;
    try {
      u = new URL(url);
    } catch {
      return [invalid(`${at}.url`, url, "host must be specified")];
    }
    if (u.protocol !== "https:") return [invalid(`${at}.url`, url, "'https' is the only allowed URL scheme")];
    if (u.search !== "") return [invalid(`${at}.url`, url, "query parameters are not allowed")];
    if (u.hash !== "") return [invalid(`${at}.url`, url, "fragments are not allowed")];
    return [];
  }
  const errs: FieldError[] = [];
  if (stringAt(svc?.name) === "") errs.push(required(`${at}.service.name`));
  if (stringAt(svc?.namespace) === "") errs.push(required(`${at}.service.namespace`));
  const port = svc?.port;
  if (port !== undefined && (typeof port !== "number" || port < 1 || port > 65535))
    errs.push(invalid(`${at}.service.port`, port, "port is not valid: must be between 1 and 65535, inclusive"));
  const path = svc?.path;
  if (typeof path === "string" && path !== "" && !path.startsWith("/"))
    errs.push(invalid(`${at}.service.path`, path, "must start with a '/'"));
  return errs;
}

/**
 * `ValidateValidatingWebhookConfiguration` / `ValidateMutatingWebhookConfiguration` (after the API's defaults): each
 * webhook's name (required, unique), `clientConfig`, enums (`failurePolicy`, `matchPolicy`, `sideEffects` — only
 * `None`/`NoneOnDryRun` on create in v1 —, `reinvocationPolicy`), `timeoutSeconds` (1–30),
 * `admissionReviewVersions` (one of `v1`, `v1beta1` present), the rules' operations, and `matchConditions`: unique
 * names, expressions that compile (`Invalid value: "<expr>": compilation failed: ERROR: …`).
 */
export function validateWebhookConfiguration(obj: KubeObject, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  listAt((obj as { webhooks?: unknown }).webhooks).forEach((raw, i) => {
    const w = objectAt(raw) ?? {};
    const at = `webhooks[${i}]`;
    const name = stringAt(w.name);
    if (name === "") errs.push(required(`${at}.name`));
    else if (names.has(name)) errs.push({ type: "FieldValueDuplicate", field: `${at}.name`, badValue: name });
    else if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/.test(name))
      errs.push(invalid(`${at}.name`, name, "should be a domain with at least three segments separated by dots"));
    names.add(name);
    errs.push(...validateClientConfig(objectAt(w.clientConfig), `${at}.clientConfig`));
    const enumAt = (v: unknown, field: string, allowed: string[]) => {
      if (v !== undefined && !allowed.includes(stringAt(v))) errs.push(notSupported(stringAt(v), field, allowed));
    };
    enumAt(w.failurePolicy, `${at}.failurePolicy`, FAILURE_POLICIES);
    enumAt(w.matchPolicy, `${at}.matchPolicy`, MATCH_POLICIES);
    if (w.sideEffects === undefined) errs.push(required(`${at}.sideEffects`));
    else enumAt(w.sideEffects, `${at}.sideEffects`, SIDE_EFFECTS);
    if (mutating) enumAt(w.reinvocationPolicy, `${at}.reinvocationPolicy`, REINVOCATION);
    const t = w.timeoutSeconds;
    if (t !== undefined && (typeof t !== "number" || t < 1 || t > 30))
      errs.push(invalid(`${at}.timeoutSeconds`, t, "the timeout value must be between 1 and 30 seconds"));
    const versions = listAt(w.admissionReviewVersions).map(stringAt);
    if (versions.length === 0) errs.push(required(`${at}.admissionReviewVersions`));
    else if (!versions.some((v) => REVIEW_VERSIONS.includes(v)))
      errs.push(
        invalid(
          `${at}.admissionReviewVersions`,
          versions,
          `must include at least one of ${REVIEW_VERSIONS.map((v) => JSON.stringify(v)).join(", ")}`,
        ),
      );
    listAt(w.rules).forEach((r, j) => {
      const ops = listAt(objectAt(r)?.operations).map(stringAt);
      if (ops.length === 0) errs.push(required(`${at}.rules[${j}].operations`));
      if (listAt(objectAt(r)?.resources).length === 0) errs.push(required(`${at}.rules[${j}].resources`));
    });
    const conditionNames = new Set<string>();
    listAt(w.matchConditions).forEach((rawC, j) => {
      const c = objectAt(rawC) ?? {};
      const cat = `${at}.matchConditions[${j}]`;
      const cname = stringAt(c.name);
      if (cname === "") errs.push(required(`${cat}.name`));
      else if (conditionNames.has(cname))
        errs.push({ type: "FieldValueDuplicate", field: `${cat}.name`, badValue: cname });
      conditionNames.add(cname);
      const expr = stringAt(c.expression).trim();
      if (expr === "") errs.push(required(`${cat}.expression`));
      else {
        const err = compileError(expr);
        if (err !== undefined) errs.push(invalid(`${cat}.expression`, expr, `compilation failed: ${err}`));
      }
    });
  });
  return errs;
}
