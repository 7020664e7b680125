import { type CelInput, isCelError, parse, plan } from "@bufbuild/cel";
import { type FieldError, fieldErrorString } from "@informer-ts/apimachinery";
import { type ASTNode, parse as parseAst } from "@marcbachmann/cel-js";
import type { StructuralSchema } from "../custom-resource-schema.js";
import { bindingsError } from "./bindings.js";
import {
  CEL_COST_LIMITS,
  type CelShape,
  costErrorMessage,
  estimateCost,
  maxCardinality,
  shapeOfSchema,
  shapeOfValue,
} from "./cost.js";
import { VALIDATION_ENV } from "./library.js";
import { correlatedListItem, Ratcheting } from "./ratcheting.js";
import { typeCheckRule } from "./typecheck.js";
import { unavailableCall, undeclaredCall, unevaluatedFeatures } from "./unevaluated.js";

/**
 * The release (1.x) whose CEL environment new expressions are compiled for: kube-apiserver 1.34's
 * `DefaultCompatibilityVersion()`, its minimum compatibility version, one release back.
 */
export const DEFAULT_CEL_COMPATIBILITY = 33;

/** One `x-kubernetes-validations` entry of a structural schema. */
export interface ValidationRule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: string;
  readonly fieldPath?: string;
}

/** A planned CEL program: evaluates the expression with these variables. */
export type Program = (ctx: Record<string, CelInput>) => unknown;

/**
 * Planned programs by expression (a definition's rules are few and run on every write); failures as errors. Also the
 * planner of ValidatingAdmissionPolicy expressions (`policy/`), which share the environment.
 */
const PROGRAMS = new Map<string, Program | Error>();

export function programOf(expr: string): Program | Error {
  let p = PROGRAMS.get(expr);
  if (p === undefined) {
    try {
      p = plan(VALIDATION_ENV, parse(expr)) as Program;
    } catch (err) {
      p = err instanceof Error ? err : new Error(String(err));
    }
    if (PROGRAMS.size > 10_000) PROGRAMS.clear();
    PROGRAMS.set(expr, p);
  }
  return p;
}

/** Whether an expression uses what the simulator cannot evaluate (unevaluated.ts), by expression. */
const UNEVALUATED = new Map<string, boolean>();

function isUnevaluated(expr: string): boolean {
  let u = UNEVALUATED.get(expr);
  if (u === undefined) {
    u = unevaluatedFeatures(expr).length > 0;
    if (UNEVALUATED.size > 10_000) UNEVALUATED.clear();
    UNEVALUATED.set(expr, u);
  }
  return u;
}

/** The cel-js syntax trees the cost estimator walks, by expression; `undefined` where cel-js cannot parse it. */
const ASTS = new Map<string, ASTNode | undefined>();

function astOf(expr: string): ASTNode | undefined {
  if (ASTS.has(expr)) return ASTS.get(expr);
  let ast: ASTNode | undefined;
  try {
    ast = parseAst(expr).ast;
  } catch {
    ast = undefined;
  }
  if (ASTS.size > 10_000) ASTS.clear();
  ASTS.set(expr, ast);
  return ast;
}

/** The cost of evaluating `expr` once with these shapes of `self`/`oldSelf` (0 where it cannot be parsed). */
function costOf(expr: string, vars: Readonly<Record<string, CelShape>>): number {
  const ast = astOf(expr);
  return ast === undefined ? 0 : estimateCost(ast, vars);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * A JSON value as CEL sees it (apiextensions' `UnstructuredToVal`): objects are maps, integers of `integer` (and
 * `int-or-string`, schemaless) fields are CEL ints, other numbers doubles.
 */
export function toCel(v: unknown, s: StructuralSchema | undefined): CelInput {
  if (Array.isArray(v)) return v.map((item) => toCel(item, s?.items));
  if (isObject(v)) {
    const m = new Map<string, CelInput>();
    const ap = s?.additionalProperties;
    for (const [k, val] of Object.entries(v))
      m.set(k, toCel(val, s?.properties?.[k] ?? (typeof ap === "object" ? ap : undefined)));
    return m;
  }
  if (typeof v === "number" && Number.isInteger(v) && s?.type !== "number") return BigInt(v);
  // An int64 beyond 2^53 (a bigint from the lossless decode) is a CEL int, or a double in a `number` field.
  if (typeof v === "bigint" && s?.type === "number") return Number(v);
  return v as CelInput;
}

function typeName(s: StructuralSchema): string {
  if (s["x-kubernetes-int-or-string"] === true) return "integer,string";
  return s.type ?? "object";
}

/** Schemas whose rules cannot exceed the runtime limits, by {@link fitsRuntimeLimits}. */
const FITS = new WeakMap<StructuralSchema, boolean>();

/**
 * Whether no write can exceed the runtime limits with `schema`'s rules: each rule's and messageExpression's static
 * estimate (over the schema's bounds, unbounded ones sized from the request limit, as at CRD write) within
 * `PerCallLimit`, and all of them times their nodes' cardinality within `RuntimeCELCostBudget`. Then an object that
 * fits the schema (CEL runs after schema validation) and a request needs no costing of its own.
 */
function fitsRuntimeLimits(schema: StructuralSchema): boolean {
  let fits = FITS.get(schema);
  if (fits !== undefined) return fits;
  let total = 0;
  let perCall = 0;
  const walk = (s: StructuralSchema | undefined, bounds: readonly (number | undefined)[]): void => {
    if (s === undefined) return;
    const rules = (s as { "x-kubernetes-validations"?: readonly ValidationRule[] })["x-kubernetes-validations"];
    if (rules !== undefined && rules.length > 0) {
      const shape = shapeOfSchema(s);
      const vars = { self: shape, oldSelf: shape };
      for (const r of rules)
        for (const expr of [r.rule, r.messageExpression]) {
          if (expr === undefined) continue;
          const cost = costOf(expr, vars);
          perCall = Math.max(perCall, cost);
          total += cost * maxCardinality(bounds, s);
        }
    }
    for (const p of Object.values(s.properties ?? {})) walk(p, bounds);
    walk(s.items, [...bounds, s.maxItems]);
    if (typeof s.additionalProperties === "object") walk(s.additionalProperties, [...bounds, s.maxProperties]);
  };
  walk(schema, []);
  fits = perCall <= CEL_COST_LIMITS.perCallLimit && total <= CEL_COST_LIMITS.runtimeCELCostBudget;
  FITS.set(schema, fits);
  return fits;
}

/** `MaxEvaluatedMessageExpressionSizeBytes` (apiserver/pkg/apis/cel): a longer result is not used. */
const MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE = 5 * 1024;

function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

/** apiextensions' `ruleMessageOrDefault`: the rule's message, else `failed rule: <rule>`. */
function ruleMessageOrDefault(r: ValidationRule): string {
  return r.message !== undefined && r.message !== "" ? r.message.trim() : `failed rule: ${ruleErrorString(r)}`;
}

/**
 * apiextensions' `fieldErrorForReason`: a failed rule's `reason` picks the cause — `FieldValueForbidden` and
 * `FieldValueRequired` carry the message, `FieldValueDuplicate` the value's type only, anything else (or none) is
 * `FieldValueInvalid`.
 */
function fieldErrorForReason(field: string, type: string, detail: string, reason: string | undefined): FieldError {
  switch (reason) {
    case "FieldValueForbidden":
      return { type: "FieldValueForbidden", field, detail };
    case "FieldValueRequired":
      return { type: "FieldValueRequired", field, detail };
    case "FieldValueDuplicate":
      return { type: "FieldValueDuplicate", field, badValue: type };
    default:
      return { type: "FieldValueInvalid", field, badValue: type, detail };
  }
}

/** Whether a schema node or any node below it has `x-kubernetes-validations`, by node. */
const HAS_RULES = new WeakMap<StructuralSchema, boolean>();

/** Whether `s` or a node below it has rules: a write's walk skips the subtrees that have none. */
function hasRulesBelow(s: StructuralSchema): boolean {
  let has = HAS_RULES.get(s);
  if (has !== undefined) return has;
  HAS_RULES.set(s, false); // a cycle (not structural, but cheap to survive) counts as rule-free
  const rules = (s as { "x-kubernetes-validations"?: readonly ValidationRule[] })["x-kubernetes-validations"];
  const ap = s.additionalProperties;
  has =
    (rules !== undefined && rules.length > 0) ||
    Object.values(s.properties ?? {}).some(hasRulesBelow) ||
    (s.items !== undefined && hasRulesBelow(s.items)) ||
    (typeof ap === "object" && hasRulesBelow(ap));
  HAS_RULES.set(s, has);
  return has;
}

/** Whether a rule is a transition rule (uses `oldSelf`), by rule text. */
const TRANSITION = new Map<string, boolean>();

function isTransition(rule: string): boolean {
  let t = TRANSITION.get(rule);
  if (t === undefined) {
    t = /\boldSelf\b/.test(rule);
    if (TRANSITION.size > 10_000) TRANSITION.clear();
    TRANSITION.set(rule, t);
  }
  return t;
}

/** apiextensions' `ruleErrorString`: a rule is named by its message, else by its text. */
function ruleErrorString(r: ValidationRule): string {
  return r.message !== undefined && r.message.trim() !== "" ? r.message.trim() : r.rule.trim();
}

/**
 * `x-kubernetes-validations` of a custom resource (apiextensions-apiserver's `schema/cel/validation.go`), with
 * @bufbuild/cel: every rule of every schema node present in `obj` is evaluated with `self` bound to that node's value,
 * and — on updates where the node existed before — `oldSelf` to its old value; a rule that uses `oldSelf` (a
 * transition rule) is skipped on creates. A rule that is not `true` is a field error on the node (plus its
 * `fieldPath`): `spec: Invalid value: "object": <message>`, the message being `messageExpression`'s result, else
 * `message`, else `failed rule: <rule>`; a rule that cannot compile or evaluate is `Invalid value: "object": <rule>:
 * <error>`.
 *
 * Cost: each evaluation is costed before it runs, with {@link estimateCost} over the sizes of the values it is given
 * (@bufbuild/cel counts no steps) — unless the schema's static estimate already fits the limits
 * ({@link fitsRuntimeLimits}; it assumes, as upstream's does, a request within 3 MiB). One that costs more than `PerCallLimit` (1,000,000) is not run and ends the
 * validation: `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call
 * cost exceeds limit for rule: <rule>`; all evaluations of one write share `RuntimeCELCostBudget` (10,000,000), and
 * the one that would overdraw it ends the validation with `validation failed due to running out of cost budget, no
 * further validation rules will be run` (the same for a `messageExpression`). Differences from apiextensions-apiserver:
 * the cost charged is the worst case over those sizes (cel-go counts what the evaluation did, so a short-circuit
 * costs less there); list items are correlated with `oldSelf` only through objects, not lists; a rule using what the
 * simulator cannot evaluate (unevaluated.ts; warned about at CRD write) is skipped, and such a messageExpression
 * is not used (the rule's `message`, or `failed rule: …`, is).
 */
export function validateCustomResourceRules(
  obj: unknown,
  schema: StructuralSchema | undefined,
  old?: unknown,
  warnings?: string[],
): FieldError[] {
  const errs: FieldError[] = [];
  if (schema === undefined) return errs;
  let remaining: number = CEL_COST_LIMITS.runtimeCELCostBudget;
  const costed = !fitsRuntimeLimits(schema);
  /** Charges one evaluation of `cost`; an error detail ending the validation when it does not fit. */
  const charge = (cost: number, what: "rule" | "messageExpression", r: ValidationRule): string | undefined => {
    const spent = Math.min(cost, CEL_COST_LIMITS.perCallLimit + 1);
    if (spent > remaining)
      return what === "rule"
        ? "validation failed due to running out of cost budget, no further validation rules will be run"
        : "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run";
    remaining -= spent;
    if (cost <= CEL_COST_LIMITS.perCallLimit) return undefined;
    return what === "rule"
      ? `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(r)}`
      : `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(r.messageExpression)}`;
  };
  /** Validates one node and what it contains; `false` once the cost budget ended the validation. */
  const walk = (v: unknown, s: StructuralSchema, o: unknown, path: string, ratchet: Ratcheting): boolean => {
    if (v === undefined || v === null || !hasRulesBelow(s)) return true;
    const rules = (s as { "x-kubernetes-validations"?: readonly ValidationRule[] })["x-kubernetes-validations"];
    if (rules !== undefined && rules.length > 0) {
      let self: CelInput | undefined;
      let oldSelf: CelInput | undefined;
      let shapes: Record<string, CelShape> | undefined;
      for (const r of rules) {
        // A rule the simulator cannot evaluate was accepted with a warning at CRD write; it is not enforced.
        if (isUnevaluated(r.rule)) continue;
        const transition = isTransition(r.rule);
        if (transition && o === undefined) continue;
        self ??= toCel(v, s);
        if (transition) oldSelf ??= toCel(o, s);
        if (costed) shapes ??= { self: shapeOfValue(v), oldSelf: shapeOfValue(o) };
        const ctx: Record<string, CelInput> = transition ? { self, oldSelf: oldSelf as CelInput } : { self };
        // `NormalizedRuleFieldPath`: the fieldPath without its leading dot, a child of the rule's node.
        const relative = (r.fieldPath ?? "").replace(/^\./, "");
        const field = relative === "" ? path || "<nil>" : path === "" ? relative : `${path}.${relative}`;
        const program = programOf(r.rule);
        const over =
          program instanceof Error || shapes === undefined ? undefined : charge(costOf(r.rule, shapes), "rule", r);
        if (over !== undefined) {
          errs.push({ type: "FieldValueInvalid", field: path || "<nil>", badValue: typeName(s), detail: over });
          return false;
        }
        const result = program instanceof Error ? program : program(ctx);
        if (result === true) continue;
        let detail: string;
        if (result instanceof Error || isCelError(result)) {
          // @bufbuild/cel's "field not found: x" on a map is cel-go's "no such key: x" (objects are CEL maps).
          const message = (result as Error).message.replace(/^field not found: /, "no such key: ");
          detail = message.startsWith("no such overload")
            ? `'${message}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(r)}`
            : `${message} evaluating rule: ${ruleErrorString(r)}`;
        } else {
          detail = ruleMessageOrDefault(r);
          if (r.messageExpression !== undefined) {
            const mp = isUnevaluated(r.messageExpression) ? new Error("not evaluated") : programOf(r.messageExpression);
            const mOver =
              mp instanceof Error || shapes === undefined
                ? undefined
                : charge(costOf(r.messageExpression, shapes), "messageExpression", r);
            if (mOver !== undefined) {
              errs.push({ type: "FieldValueInvalid", field: path || "<nil>", badValue: typeName(s), detail: mOver });
              return false;
            }
            const m = mp instanceof Error ? undefined : mp(ctx);
            const text = typeof m === "string" ? m.trim() : "";
            // An empty, multi-line or over-long message (or a failed evaluation) falls back to `message`.
            if (text !== "" && !text.includes("\n") && utf8Length(text) <= MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE)
              detail = text;
          }
        }
        const e = fieldErrorForReason(field, typeName(s), detail, r.reason);
        if (!transition && ratchet.shouldRatchet()) warnings?.push(fieldErrorString(e));
        else errs.push(e);
      }
    }
    if (Array.isArray(v)) {
      const items = s.items;
      if (items !== undefined && hasRulesBelow(items))
        for (let i = 0; i < v.length; i++)
          if (!walk(v[i], items, correlatedListItem(s, o, v[i]), `${path}[${i}]`, ratchet.index(i))) return false;
      return true;
    }
    if (!isObject(v)) return true;
    // Children of an atomic map have no old values (`MapIsCorrelatable`).
    const oldObj =
      isObject(o) && (s as { "x-kubernetes-map-type"?: string })["x-kubernetes-map-type"] !== "atomic" ? o : undefined;
    const ap = s.additionalProperties;
    for (const [k, val] of Object.entries(v)) {
      const ps = s.properties?.[k] ?? (typeof ap === "object" ? ap : undefined);
      // Only nodes with rules at or below them are walked (and their paths made).
      if (
        ps !== undefined &&
        hasRulesBelow(ps) &&
        !walk(val, ps, oldObj?.[k], path === "" ? k : `${path}.${k}`, ratchet.key(k))
      )
        return false;
    }
    return true;
  };
  walk(obj, schema, old, "", Ratcheting.root(obj, old, schema));
  return errs;
}

/**
 * A parse error as cel-go words it: `<input>:1:6: Syntax error: <what>` (the text after `Syntax error:` is
 * @bufbuild/cel's); other planning errors (an unknown function) are left as they are.
 */
export function syntaxError(message: string): string {
  const m = /^(<input>:\d+:\d+: )(.*)$/s.exec(message);
  return m === null ? message : `${m[1]}Syntax error: ${m[2]}`;
}

/** Go's `%#v` of an `apiextensions.ValidationRule`, as a field error prints the rule it rejects. */
function goValidationRule(r: Record<string, unknown>): string {
  const str = (v: unknown) => JSON.stringify(typeof v === "string" ? v : "");
  const reason =
    typeof r.reason === "string"
      ? "(*apiextensions.FieldValueErrorReason)(…)"
      : "(*apiextensions.FieldValueErrorReason)(nil)";
  const oldSelf = typeof r.optionalOldSelf === "boolean" ? "(*bool)(…)" : "(*bool)(nil)";
  return `apiextensions.ValidationRule{Rule:${str(r.rule)}, Message:${str(r.message)}, MessageExpression:${str(r.messageExpression)}, Reason:${reason}, FieldPath:${str(r.fieldPath)}, OptionalOldSelf:${oldSelf}}`;
}

/** A rule or messageExpression that counts toward the definition's total (apiextensions' `RuleCost`). */
interface RuleCost {
  readonly field: string;
  readonly cost: number;
}

/**
 * The CEL step of a definition's `x-kubernetes-validations` at CustomResourceDefinition create and update
 * (apiextensions-apiserver's `ValidateCustomResourceDefinitionOpenAPISchema` compiling each rule with
 * `schema/cel/compilation.go`, and `validateCustomResourceDefinitionValidation` summing their costs). `path` is where
 * `schema` (the `openAPIV3Schema`) sits.
 * - An empty rule is `Required value: rule is not specified`. A rule or `messageExpression` that does not parse
 *   (@bufbuild/cel), or does not type-check against the schema (`self`/`oldSelf` declared as the node's type,
 *   {@link typeCheckRule}), makes the definition invalid: `…x-kubernetes-validations[0].rule: Invalid value:
 *   apiextensions.ValidationRule{…}: compilation failed: ERROR: <input>:1:5: undefined field 'x'` and the source line
 *   with a caret.
 * - Each expression's worst-case cost ({@link estimateCost} over the schema's `maxLength`/`maxItems`/`maxProperties`,
 *   unbounded ones sized from the 3 MiB request limit) times how often its node can occur (the bounds of the lists
 *   and maps above it) must stay within `StaticEstimatedCostLimit` (10,000,000): `…rule: Forbidden: estimated rule
 *   cost exceeds budget by factor of 3.2x (try simplifying the rule, or adding maxItems, …)` (`estimated
 *   messageExpression cost` likewise).
 * - All of them together must stay within `StaticEstimatedCRDCostLimit` (100,000,000): the four most expensive (of at
 *   least 1% of it) are `Forbidden: contributed to estimated rule cost total exceeding cost limit for entire
 *   OpenAPIv3 schema`, and `path` is `Forbidden: x-kubernetes-validations estimated rule cost total for entire
 *   OpenAPIv3 schema exceeds budget by factor of …`.
 *
 * - A function or variable no library declares is `compilation failed: ERROR: <input>:1:4: undeclared reference to
 *   'foo' (in container '')`; Kubernetes' libraries (regex, `url`, `quantity`, `ip`/`cidr`, `format`, lists) and
 *   cel-go's strings extension are declared with upstream's types, so their misuse is an overload error.
 *
 * - `cel.bind(…)` is refused whatever the version: cel-go's `ext.Bindings()` is in no release's base environment
 *   ({@link bindingsError}: `undeclared reference to 'cel'`, `… 'bind'` and the bound variable's references).
 *
 * - New expressions are compiled for `compatibility` (1.x, the server's release minus one, as upstream's
 *   `DefaultCompatibilityVersion()`): what a later release brought (`ext.Lists` in 1.34, two-variable
 *   comprehensions in 1.32, optional functions in 1.28) is `undeclared reference to '<name>'` ({@link unavailableCall}).
 *
 * - A rule or `messageExpression` using what Kubernetes 1.34 declares but the simulator cannot evaluate
 *   (two-variable comprehensions, cel-go's lists extension, optional types — unevaluated.ts) is accepted, as
 *   upstream accepts it, and a warning naming it and the gap is appended to `warnings`; it is not type-checked, only
 *   its calls are checked for names nobody declares (`undeclared reference`). On custom-resource writes
 *   ({@link validateCustomResourceRules}) such a rule is not enforced, such a messageExpression not used.
 *
 * Differences: a syntax error's text after `ERROR:` is @bufbuild/cel's parser's, not cel-go's; the per-expression
 * limit is not waived for versions whose schema an update leaves unchanged; the rules above are not enforced.
 */
export function validateSchemaRules(
  schema: unknown,
  path: string,
  warnings?: string[],
  compatibility: number = DEFAULT_CEL_COMPATIBILITY,
): FieldError[] {
  const errs: FieldError[] = [];
  const costs: RuleCost[] = [];
  let total = 0;
  const observe = (field: string, cost: number) => {
    total += cost;
    if (cost >= CEL_COST_LIMITS.staticEstimatedCRDCostLimit / 100) costs.push({ field, cost });
  };
  const walk = (s: unknown, at: string, bounds: readonly (number | undefined)[], root: boolean): void => {
    if (!isObject(s)) return;
    const node = s as StructuralSchema;
    const rules = s["x-kubernetes-validations"];
    if (Array.isArray(rules)) {
      let shape: CelShape | undefined;
      rules.forEach((raw, i) => {
        if (!isObject(raw)) return;
        const ruleAt = `${at}.x-kubernetes-validations[${i}]`;
        const rule = typeof raw.rule === "string" ? raw.rule : "";
        if (rule.trim() === "") {
          errs.push({ type: "FieldValueRequired", field: `${ruleAt}.rule`, detail: "rule is not specified" });
          return;
        }
        shape ??= shapeOfSchema(node);
        const cardinality = maxCardinality(bounds, node);
        const compile = (expr: string, field: string): string | undefined => {
          const binding = bindingsError(expr);
          if (binding !== undefined) return binding;
          const gaps = unevaluatedFeatures(expr);
          if (gaps.length > 0) {
            const unavailable = unavailableCall(expr, compatibility);
            if (unavailable !== undefined) return unavailable;
            const undeclared = undeclaredCall(expr);
            if (undeclared !== undefined) return undeclared;
            const effect = field.endsWith(".rule")
              ? "the rule is not enforced on custom resources"
              : "the rule's message is used instead";
            warnings?.push(
              `${field}: ${JSON.stringify(expr)} uses ${gaps.join(", ")}, which the simulator cannot evaluate: ${effect}`,
            );
            return undefined;
          }
          const p = programOf(expr);
          return p instanceof Error ? `ERROR: ${syntaxError(p.message)}` : typeCheckRule(expr, node, root);
        };
        const ruleError = compile(rule, `${ruleAt}.rule`);
        if (ruleError === undefined) {
          const cost = costOf(rule, { self: shape, oldSelf: shape }) * cardinality;
          if (cost > CEL_COST_LIMITS.staticEstimatedCostLimit)
            errs.push({
              type: "FieldValueForbidden",
              field: `${ruleAt}.rule`,
              detail: costErrorMessage("estimated rule cost", cost, CEL_COST_LIMITS.staticEstimatedCostLimit),
            });
          observe(`${ruleAt}.rule`, cost);
        } else
          errs.push({
            type: "FieldValueInvalid",
            field: `${ruleAt}.rule`,
            printedValue: goValidationRule(raw),
            detail: `compilation failed: ${ruleError}`,
          });
        const mx = raw.messageExpression;
        if (typeof mx === "string" && mx.trim() !== "") {
          const mError = compile(mx, `${ruleAt}.messageExpression`);
          if (mError === undefined) {
            const cost = costOf(mx, { self: shape, oldSelf: shape }) * cardinality;
            if (cost > CEL_COST_LIMITS.staticEstimatedCostLimit)
              errs.push({
                type: "FieldValueForbidden",
                field: `${ruleAt}.messageExpression`,
                detail: costErrorMessage(
                  "estimated messageExpression cost",
                  cost,
                  CEL_COST_LIMITS.staticEstimatedCostLimit,
                ),
              });
            observe(`${ruleAt}.messageExpression`, cost);
          } else
            errs.push({
              type: "FieldValueInvalid",
              field: `${ruleAt}.messageExpression`,
              printedValue: goValidationRule(raw),
              detail: `messageExpression compilation failed: ${mError}`,
            });
        }
      });
    }
    const props = s.properties;
    if (isObject(props)) for (const [k, p] of Object.entries(props)) walk(p, `${at}.properties[${k}]`, bounds, false);
    const count = (n: unknown) => (typeof n === "number" ? n : undefined);
    walk(s.items, `${at}.items`, [...bounds, count(s.maxItems)], false);
    walk(s.additionalProperties, `${at}.additionalProperties`, [...bounds, count(s.maxProperties)], false);
  };
  walk(schema, path, [], true);
  if (total > CEL_COST_LIMITS.staticEstimatedCRDCostLimit) {
    costs.sort((a, b) => b.cost - a.cost);
    for (const c of costs.slice(0, 4))
      errs.push({
        type: "FieldValueForbidden",
        field: c.field,
        detail: "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
      });
    errs.push({
      type: "FieldValueForbidden",
      field: path,
      detail: costErrorMessage(
        "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
        total,
        CEL_COST_LIMITS.staticEstimatedCRDCostLimit,
      ),
    });
  }
  return errs;
}
