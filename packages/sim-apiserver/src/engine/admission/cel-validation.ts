import { type CelInput, celEnv, isCelError, parse, plan } from "@bufbuild/cel";
import type { FieldError } from "@informer-ts/apimachinery";
import type { StructuralSchema } from "./custom-resource-schema.js";

/** One `x-kubernetes-validations` entry of a structural schema. */
export interface ValidationRule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: string;
  readonly fieldPath?: string;
}

type Program = (ctx: Record<string, CelInput>) => unknown;

const ENV = celEnv();
/** Planned programs by expression (a definition's rules are few and run on every write); failures as errors. */
const PROGRAMS = new Map<string, Program | Error>();

function programOf(expr: string): Program | Error {
  let p = PROGRAMS.get(expr);
  if (p === undefined) {
    try {
      p = plan(ENV, parse(expr)) as Program;
    } catch (err) {
      p = err instanceof Error ? err : new Error(String(err));
    }
    if (PROGRAMS.size > 10_000) PROGRAMS.clear();
    PROGRAMS.set(expr, p);
  }
  return p;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * A JSON value as CEL sees it (apiextensions' `UnstructuredToVal`): objects are maps, integers of `integer` (and
 * `int-or-string`, schemaless) fields are CEL ints, other numbers doubles.
 */
function toCel(v: unknown, s: StructuralSchema | undefined): CelInput {
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

/**
 * `x-kubernetes-validations` of a custom resource (apiextensions-apiserver's CEL validator), with @bufbuild/cel:
 * every rule of every schema node present in `obj` is evaluated with `self` bound to that node's value, and — on
 * updates where the node existed before — `oldSelf` to its old value; a rule that uses `oldSelf` (a transition
 * rule) is skipped on creates. A rule that is not `true` is a field error on the node (plus its `fieldPath`):
 * `spec: Invalid value: "object": <message>`, the message being `messageExpression`'s result, else `message`, else
 * `failed rule: <rule>`; a rule that cannot compile or evaluate is `Invalid value: "object": <rule>: <error>`.
 *
 * Differences from apiextensions-apiserver: no cost estimation or runtime cost limit; rules are compiled but not
 * type-checked when the definition is created ({@link validateSchemaRules}); list items are correlated with `oldSelf`
 * only through objects, not lists.
 */
export function validateCustomResourceRules(
  obj: unknown,
  schema: StructuralSchema | undefined,
  old?: unknown,
): FieldError[] {
  const errs: FieldError[] = [];
  if (schema === undefined) return errs;
  const walk = (v: unknown, s: StructuralSchema, o: unknown, path: string): void => {
    if (v === undefined || v === null) return;
    const rules = (s as { "x-kubernetes-validations"?: readonly ValidationRule[] })["x-kubernetes-validations"];
    if (rules !== undefined && rules.length > 0) {
      let self: CelInput | undefined;
      let oldSelf: CelInput | undefined;
      for (const r of rules) {
        const transition = /\boldSelf\b/.test(r.rule);
        if (transition && o === undefined) continue;
        self ??= toCel(v, s);
        if (transition) oldSelf ??= toCel(o, s);
        const ctx: Record<string, CelInput> = transition ? { self, oldSelf: oldSelf as CelInput } : { self };
        const field =
          r.fieldPath === undefined || r.fieldPath === ""
            ? path || "<nil>"
            : `${path}${r.fieldPath.startsWith(".") ? "" : "."}${r.fieldPath}`;
        const program = programOf(r.rule);
        const result = program instanceof Error ? program : program(ctx);
        if (result === true) continue;
        let detail: string;
        if (result instanceof Error || isCelError(result)) {
          detail = `${r.rule}: ${(result as Error).message}`;
        } else {
          detail = r.message ?? `failed rule: ${r.rule}`;
          if (r.messageExpression !== undefined) {
            const mp = programOf(r.messageExpression);
            const m = mp instanceof Error ? undefined : mp(ctx);
            if (typeof m === "string" && m.trim() !== "") detail = m;
          }
        }
        errs.push({ type: "FieldValueInvalid", field, badValue: typeName(s), detail });
      }
    }
    if (Array.isArray(v)) {
      const items = s.items;
      if (items !== undefined) for (let i = 0; i < v.length; i++) walk(v[i], items, undefined, `${path}[${i}]`);
      return;
    }
    if (!isObject(v)) return;
    const oldObj = isObject(o) ? o : undefined;
    const ap = s.additionalProperties;
    for (const [k, val] of Object.entries(v)) {
      const ps = s.properties?.[k] ?? (typeof ap === "object" ? ap : undefined);
      if (ps !== undefined) walk(val, ps, oldObj?.[k], path === "" ? k : `${path}.${k}`);
    }
  };
  walk(obj, schema, old, "");
  return errs;
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

/**
 * The compile step of a definition's `x-kubernetes-validations` at CustomResourceDefinition create and update
 * (apiextensions-apiserver's `ValidateCustomResourceDefinition` compiling each rule with its CEL environment): a rule
 * or `messageExpression` that does not compile makes the definition invalid —
 * `spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value:
 * apiextensions.ValidationRule{Rule:"self.x >", …}: compilation failed: ERROR: <input>:1:8: …` — and an empty rule
 * is `Required value`. `path` is where `schema` sits. Differences: the error text after `ERROR:` is @bufbuild/cel's
 * parser's, not cel-go's; rules are parsed and planned, not type-checked against the schema (the library has no
 * checker: a misspelt field fails when a write evaluates it), and no cost is estimated.
 */
export function validateSchemaRules(schema: unknown, path: string): FieldError[] {
  if (!isObject(schema)) return [];
  const errs: FieldError[] = [];
  const rules = schema["x-kubernetes-validations"];
  if (Array.isArray(rules)) {
    rules.forEach((raw, i) => {
      if (!isObject(raw)) return;
      const at = `${path}.x-kubernetes-validations[${i}]`;
      const rule = typeof raw.rule === "string" ? raw.rule : "";
      if (rule.trim() === "") {
        errs.push({ type: "FieldValueRequired", field: `${at}.rule` });
        return;
      }
      const compiled = programOf(rule);
      if (compiled instanceof Error)
        errs.push({
          type: "FieldValueInvalid",
          field: `${at}.rule`,
          printedValue: goValidationRule(raw),
          detail: `compilation failed: ERROR: ${compiled.message}`,
        });
      const mx = raw.messageExpression;
      if (typeof mx === "string" && mx.trim() !== "") {
        const m = programOf(mx);
        if (m instanceof Error)
          errs.push({
            type: "FieldValueInvalid",
            field: `${at}.messageExpression`,
            printedValue: goValidationRule(raw),
            detail: `messageExpression compilation failed: ERROR: ${m.message}`,
          });
      }
    });
  }
  const props = schema.properties;
  if (isObject(props))
    for (const [k, s] of Object.entries(props)) errs.push(...validateSchemaRules(s, `${path}.properties[${k}]`));
  errs.push(...validateSchemaRules(schema.items, `${path}.items`));
  errs.push(...validateSchemaRules(schema.additionalProperties, `${path}.additionalProperties`));
  return errs;
}
