import { type CelInput, isCelError } from "@bufbuild/cel";
import { type Program, programOf } from "../cel/validation.js";
import type { MatchResources } from "./policy-matching.js";

/** `MaxEvaluatedMessageExpressionSizeBytes`: a longer messageExpression result is not used. */
const MAX_MESSAGE_BYTES = 5 * 1024;

/** One expression of a policy, planned once per generation (a plan failure is kept as the error). */
export interface CompiledExpression {
  readonly name: string;
  readonly expression: string;
  readonly program: Program | Error;
}

/** One `spec.validations[]` entry, compiled. */
export interface CompiledValidation {
  readonly expression: CompiledExpression;
  readonly message?: string;
  readonly messageExpression?: CompiledExpression;
  readonly reason?: string;
}

/** A ValidatingAdmissionPolicy compiled for its generation (`validating.compilePolicy`). */
export interface CompiledPolicy {
  readonly name: string;
  readonly uid: string;
  readonly generation: number;
  /** `Fail` (the default) or `Ignore`; anything else denies (`unrecognized failure policy`). */
  readonly failurePolicy: string;
  readonly paramKind?: { readonly apiVersion: string; readonly kind: string };
  readonly matchConstraints?: MatchResources;
  readonly matchConditions: readonly CompiledExpression[];
  readonly variables: readonly CompiledExpression[];
  readonly validations: readonly CompiledValidation[];
  readonly auditAnnotations: readonly CompiledExpression[];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function compile(name: string, expression: string): CompiledExpression {
  return { name, expression, program: programOf(expression) };
}

function entries(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

/**
 * Compiles a stored ValidatingAdmissionPolicy (apiserver's `validating.compilePolicy`): its `matchConditions`,
 * `variables`, `validations` (expression and messageExpression) and `auditAnnotations` (valueExpression) are planned
 * with @bufbuild/cel in the environment CRD rules use (`cel/library.ts`). An expression that does not plan keeps its
 * error: it fails at evaluation, under the policy's `failurePolicy`, as upstream's compilation errors do.
 */
export function compilePolicy(policy: Record<string, unknown>): CompiledPolicy {
  const meta = isObject(policy.metadata) ? policy.metadata : {};
  const spec = isObject(policy.spec) ? policy.spec : {};
  const pk = isObject(spec.paramKind) ? spec.paramKind : undefined;
  return {
    name: str(meta.name) ?? "",
    uid: str(meta.uid) ?? "",
    generation: typeof meta.generation === "number" ? meta.generation : 0,
    failurePolicy: str(spec.failurePolicy) ?? "Fail",
    ...(pk !== undefined && { paramKind: { apiVersion: str(pk.apiVersion) ?? "", kind: str(pk.kind) ?? "" } }),
    ...(isObject(spec.matchConstraints) && { matchConstraints: spec.matchConstraints as MatchResources }),
    matchConditions: entries(spec.matchConditions).map((c) => compile(str(c.name) ?? "", str(c.expression) ?? "")),
    variables: entries(spec.variables).map((v) => compile(str(v.name) ?? "", str(v.expression) ?? "")),
    validations: entries(spec.validations).map((v) => {
      const mx = str(v.messageExpression);
      return {
        expression: compile("", str(v.expression) ?? ""),
        ...(str(v.message) !== undefined && { message: str(v.message) }),
        ...(mx !== undefined && mx !== "" && { messageExpression: compile("", mx) }),
        ...(str(v.reason) !== undefined && { reason: str(v.reason) }),
      };
    }),
    auditAnnotations: entries(spec.auditAnnotations).map((a) =>
      compile(str(a.key) ?? "", str(a.valueExpression) ?? ""),
    ),
  };
}

/** The CEL variables one evaluation binds (`object`, `oldObject`, `request`, `params`, `namespaceObject`). */
export type PolicyActivation = Readonly<Record<string, CelInput>>;

/** `PolicyDecision`: what one validation decided. */
export interface PolicyDecision {
  readonly action: "admit" | "deny";
  readonly evaluation: "admit" | "deny" | "error";
  readonly message: string;
  /** The deny's `reason` (`Invalid` unless the validation names another). */
  readonly reason?: string;
}

/** `ValidateResult`: the decisions of the validations (in order) and the audit annotations to publish. */
export interface ValidateResult {
  readonly decisions: readonly PolicyDecision[];
  readonly auditAnnotations: readonly { readonly key: string; readonly value: string }[];
  /** Audit annotations whose evaluation failed under `failurePolicy: Fail`: each denies. */
  readonly auditAnnotationErrors: readonly string[];
}

const EMPTY: ValidateResult = { decisions: [], auditAnnotations: [], auditAnnotationErrors: [] };

type Outcome = { readonly value: unknown } | { readonly error: string };

/** cel-go's wording of an evaluation error (`no such key: x` where @bufbuild/cel says `field not found: x`). */
function celErrorText(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/^field not found: /, "no such key: ");
}

/**
 * Evaluates one expression the way apiserver's `cel.filter.ForInput` does: a plan failure is `compilation error:
 * compilation failed: ERROR: …`, an evaluation failure `expression '<expr>' resulted in error: <cause>`; a reference
 * to a variable whose own evaluation failed fails with that variable's error (variables are lazy upstream: one that
 * no expression uses fails nothing).
 */
function evaluate(
  c: CompiledExpression,
  ctx: Record<string, CelInput>,
  failedVariables: ReadonlyMap<string, string>,
): Outcome {
  if (c.program instanceof Error)
    return { error: `compilation error: compilation failed: ERROR: ${c.program.message}` };
  for (const [name, error] of failedVariables)
    if (new RegExp(`\\bvariables\\.${name}\\b`).test(c.expression))
      return { error: `expression '${c.expression}' resulted in error: composited variable "${name}" fails: ${error}` };
  let value: unknown;
  try {
    value = c.program(ctx);
  } catch (err) {
    return { error: `expression '${c.expression}' resulted in error: ${celErrorText(err)}` };
  }
  if (isCelError(value) || value instanceof Error)
    return { error: `expression '${c.expression}' resulted in error: ${celErrorText(value)}` };
  return { value };
}

function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

/**
 * `validator.Validate` (apiserver/pkg/admission/plugin/policy/validating/validator.go) of one policy for one binding
 * and one param: `matchConditions` first (all must be true; an error decides by `failurePolicy`), then `variables` in
 * order (each may use the ones before it), each validation (not `true`: deny with the `messageExpression` result — a
 * non-empty one-line string of at most 5 KiB — else `message`, else `failed expression: <expression>`, and `reason`
 * or `Invalid`; an error: deny under `Fail`, admit under `Ignore`), and the `auditAnnotations` (a string is published
 * trimmed, an empty string or null is not, another type is an error).
 */
export function validatePolicy(p: CompiledPolicy, activation: PolicyActivation): ValidateResult {
  const fail = p.failurePolicy !== "Ignore";
  const onError = (message: string): PolicyDecision => ({
    action: fail ? "deny" : "admit",
    evaluation: "error",
    message,
  });
  const ctx: Record<string, CelInput> = { ...activation };
  const none = new Map<string, string>();
  for (const mc of p.matchConditions) {
    const out = evaluate(mc, ctx, none);
    if ("error" in out) return { ...EMPTY, decisions: [onError(out.error)] };
    if (out.value !== true) return EMPTY;
  }
  const variables = new Map<string, CelInput>();
  const failed = new Map<string, string>();
  ctx.variables = variables;
  for (const v of p.variables) {
    const out = evaluate(v, ctx, failed);
    if ("error" in out) failed.set(v.name, out.error);
    else variables.set(v.name, out.value as CelInput);
  }
  const decisions = p.validations.map((v): PolicyDecision => {
    const out = evaluate(v.expression, ctx, failed);
    if ("error" in out) return onError(out.error);
    if (out.value === true) return { action: "admit", evaluation: "admit", message: "" };
    let message = "";
    if (v.messageExpression !== undefined) {
      const m = evaluate(v.messageExpression, ctx, failed);
      if ("value" in m && typeof m.value === "string") {
        const text = m.value.trim();
        if (!text.includes("\n") && utf8Length(text) <= MAX_MESSAGE_BYTES) message = text;
      }
    }
    if (message === "" && v.message !== undefined) message = v.message.trim();
    if (message === "") message = `failed expression: ${v.expression.expression.trim()}`;
    return { action: "deny", evaluation: "deny", message, reason: v.reason ?? "Invalid" };
  });
  const auditAnnotations: { key: string; value: string }[] = [];
  const auditAnnotationErrors: string[] = [];
  for (const a of p.auditAnnotations) {
    const out = evaluate(a, ctx, failed);
    let error: string | undefined;
    if ("error" in out) error = out.error;
    else if (typeof out.value === "string") {
      const value = out.value.trim();
      if (value !== "") auditAnnotations.push({ key: a.name, value });
    } else if (out.value !== null)
      error = `valueExpression '${a.expression}' resulted in unsupported return type: ${celTypeName(out.value)}. Return type must be either string or null.`;
    if (error !== undefined && fail) auditAnnotationErrors.push(error);
  }
  return { decisions, auditAnnotations, auditAnnotationErrors };
}

function celTypeName(v: unknown): string {
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return "double";
  if (typeof v === "boolean") return "bool";
  if (v instanceof Map) return "map";
  if (Array.isArray(v)) return "list";
  return typeof v;
}
