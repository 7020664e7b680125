import { type ASTNode, Environment, type ParseResult } from "@marcbachmann/cel-js";
import type { StructuralSchema } from "../custom-resource-schema.js";
import { EQUATABLE_TYPES, KUBERNETES_DECLARATIONS, KUBERNETES_TYPES, NAMESPACES } from "./kubernetes-library.js";

/**
 * The declarations every rule is checked with: cel-js's standard library, plus Kubernetes' CEL libraries and the
 * strings-extension functions cel-js lacks, under upstream's type names (kubernetes-library.ts). The handlers
 * are never called — rules are evaluated by @bufbuild/cel.
 */
const BASE_ENV = (() => {
  const env = new Environment({ homogeneousAggregateLiterals: false, enableOptionalTypes: true });
  for (const name of KUBERNETES_TYPES) env.registerType(name, class {});
  const unused = (): never => {
    throw new Error("declaration only");
  };
  for (const d of KUBERNETES_DECLARATIONS) env.registerFunction(d, unused);
  for (const t of EQUATABLE_TYPES) env.registerOperator(`${t} == ${t}`, unused);
  for (const [name, type] of Object.entries(NAMESPACES)) env.registerVariable(name, type);
  return env;
})();

/** Every function name the checker knows: a call of another name is cel-go's `undeclared reference`. */
const DECLARED_FUNCTIONS: ReadonlySet<string> = new Set(
  BASE_ENV.clone()
    .getDefinitions()
    .functions.map((f) => f.name),
);

/** Whether a function (or macro) of this name is declared for the checker (a method's name without its receiver). */
export function isDeclaredFunction(name: string): boolean {
  return DECLARED_FUNCTIONS.has(name);
}

/** The functions whose overloads are declared as cel-go's are: a call matching none of them is a type error. */
const CHECKED_FUNCTIONS: ReadonlySet<string> = new Set([
  "size",
  "startsWith",
  "endsWith",
  "contains",
  "matches",
  "int",
  "uint",
  "double",
  "string",
  "bool",
  "bytes",
  "duration",
  "timestamp",
  ...KUBERNETES_DECLARATIONS.map((d) => (/(\w+)\(/.exec(d) as RegExpExecArray)[1] as string),
]);

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * CEL declarations of a structural schema for @marcbachmann/cel-js's checker (apiextensions-apiserver's
 * `schema/cel/model` → apiserver/pkg/cel `SchemaDeclType`): `integer` is `int`, `number` `double`, `boolean` `bool`,
 * `string` `string`, an array `list<…>`, an object with `additionalProperties` `map<string, …>`, an object with
 * `properties` an object type with those fields. What the checker cannot type as upstream does is `dyn` (checked at
 * evaluation only): `x-kubernetes-int-or-string`, `x-kubernetes-preserve-unknown-fields` or `-embedded-resource`
 * objects, strings of `format` `date`/`date-time`/`duration` (upstream's timestamp and duration), and objects with a
 * property name that is no CEL identifier (upstream escapes those as `__dash__` …).
 */
class SchemaDeclarations {
  readonly env = BASE_ENV.clone();
  private next = 0;

  declType(s: StructuralSchema | undefined, root = false): string {
    if (s === undefined || s["x-kubernetes-int-or-string"] === true) return "dyn";
    switch (s.type) {
      case "integer":
        return "int";
      case "number":
        return "double";
      case "boolean":
        return "bool";
      case "string":
        return s.format === "date" || s.format === "date-time" || s.format === "duration" ? "dyn" : "string";
      case "array":
        return `list<${this.declType(s.items)}>`;
      case "object": {
        const ap = s.additionalProperties;
        if (typeof ap === "object") return `map<string, ${this.declType(ap)}>`;
        const props = s.properties;
        if (
          props === undefined ||
          s["x-kubernetes-preserve-unknown-fields"] === true ||
          s["x-kubernetes-embedded-resource"] === true ||
          !Object.keys(props).every((k) => IDENTIFIER.test(k))
        )
          return "dyn";
        const fields: Record<string, string> = {};
        for (const [k, p] of Object.entries(props)) fields[k] = this.declType(p);
        if (root) {
          // The root object also carries apiVersion, kind and metadata's name and generateName.
          fields.apiVersion ??= "string";
          fields.kind ??= "string";
          if (fields.metadata === undefined) {
            const meta = `Object${this.next++}`;
            this.env.registerType({ name: meta, schema: { name: "string", generateName: "string" } });
            fields.metadata = meta;
          }
        }
        const name = `Object${this.next++}`;
        this.env.registerType({ name, schema: fields });
        return name;
      }
      default:
        return "dyn";
    }
  }
}

const ENVS = new WeakMap<StructuralSchema, Environment>();

function envFor(schema: StructuralSchema, root: boolean): Environment {
  let env = ENVS.get(schema);
  if (env === undefined) {
    const decls = new SchemaDeclarations();
    const type = decls.declType(schema, root);
    decls.env.registerVariable("self", type).registerVariable("oldSelf", type);
    env = decls.env;
    ENVS.set(schema, env);
  }
  return env;
}

/** Line and column (1-based, as cel-go prints them) of `offset` in `input`. */
function location(input: string, offset: number): { line: number; col: number; text: string } {
  const before = input.slice(0, offset);
  const line = before.split("\n").length;
  const start = before.lastIndexOf("\n") + 1;
  const end = input.indexOf("\n", offset);
  return { line, col: offset - start + 1, text: input.slice(start, end === -1 ? undefined : end) };
}

const GO_OPERATORS: Readonly<Record<string, string>> = {
  "==": "_==_",
  "!=": "_!=_",
  "<": "_<_",
  "<=": "_<=_",
  ">": "_>_",
  ">=": "_>=_",
  "+": "_+_",
  "-": "_-_",
  "*": "_*_",
  "/": "_/_",
  "%": "_%_",
  in: "@in",
};

/**
 * A cel-js type name as cel-go prints it: `null_type`, `list(int)`, `map(string, int)`; the object types declared
 * here print as `object` (cel-go names them after their schema path).
 */
function goTypeName(t: string): string {
  return t
    .replace(/\bObject\d+\b/g, "object")
    .replace(/\bnull\b/g, "null_type")
    .replace(/</g, "(")
    .replace(/>/g, ")");
}

/** The offset of a binary node's operator: the first occurrence after its left operand. */
function operatorOffset(input: string, node: ASTNode): number {
  if (!Array.isArray(node.args) || node.args.length !== 2) return node.pos;
  const left = node.args[0] as ASTNode;
  const at = input.indexOf(node.op, left.range.end);
  return at === -1 ? node.pos : at;
}

/**
 * Type-checks `expr` with `self` (and `oldSelf`) declared as `schema`'s type, as apiextensions-apiserver's
 * `schema/cel/compilation.go` compiles a rule with cel-go. Returns cel-go's error text for the errors a schema makes
 * visible — `ERROR: <input>:1:5: undefined field 'x'`, `ERROR: <input>:1:15: found no matching overload for '_==_'
 * applied to '(int, string)'` (an operator), `… for 'size' applied to '(double)'` or `… for 'add' applied to
 * 'kubernetes.Quantity.(string)'` (a standard or Kubernetes library function), `ERROR: <input>:1:4: undeclared
 * reference to 'foo' (in container '')` (a function or variable nobody declares), each followed by the source line
 * and a caret — or `undefined` when the expression checks or fails for another reason (syntax errors are
 * @bufbuild/cel's to report; functions cel-js declares more narrowly than cel-go, and `&&`/`||` on non-booleans, are
 * left to evaluation).
 */
export function typeCheckRule(expr: string, schema: StructuralSchema, root: boolean): string | undefined {
  return typeCheckIn(envFor(schema, root), expr);
}

/**
 * A checker environment with these variables, each of its schema's type (the root object's, as for
 * {@link typeCheckRule}) or `dyn` where `undefined` — for expressions whose variables are not `self`/`oldSelf`
 * (ValidatingAdmissionPolicy's `object`, `oldObject`, `params`, `namespaceObject`, `request`, `variables`).
 */
export function typeCheckEnvironment(
  vars: Readonly<Record<string, StructuralSchema | undefined>>,
  objectVariables?: { readonly name: string; readonly fields: Readonly<Record<string, string>> },
): Environment {
  const decls = new SchemaDeclarations();
  for (const [name, s] of Object.entries(vars))
    decls.env.registerVariable(name, s === undefined ? "dyn" : decls.declType(s, true));
  if (objectVariables !== undefined) {
    // An object type of these fields, whose types are checker type names of this environment's declarations (the
    // same schemas declared in the same order name their types alike).
    decls.env.registerType({ name: "Variables", schema: { ...objectVariables.fields } });
    decls.env.registerVariable(objectVariables.name, "Variables");
  }
  return decls.env;
}

/** The type cel-js's checker infers for `expr` in `env` (`undefined` where it does not check). */
export function inferredType(env: Environment, expr: string): string | undefined {
  try {
    const result = env.parse(expr).check();
    return result.valid ? result.type : undefined;
  } catch {
    return undefined;
  }
}

/** {@link typeCheckRule} in an environment of {@link typeCheckEnvironment}. */
export function typeCheckIn(env: Environment, expr: string): string | undefined {
  let parsed: ParseResult;
  try {
    parsed = env.parse(expr);
  } catch {
    return undefined;
  }
  const result = parsed.check();
  const err = result.error;
  if (result.valid || err === undefined || err.name !== "TypeError") return undefined;
  const node = err.node as ASTNode | undefined;
  if (node === undefined) return undefined;
  let offset: number;
  let message: string;
  if (err.code === "no_such_key" && node.op === ".") {
    offset = node.input.lastIndexOf(".", node.pos);
    message = `undefined field '${node.args[1]}'`;
  } else if (err.code === "no_such_overload" && node.op in GO_OPERATORS) {
    const types = /^no such overload: (.+?) (?:==|!=|<=|>=|<|>|\+|-|\*|\/|%|in) (.+)$/.exec(err.summary);
    if (types === null) return undefined;
    offset = operatorOffset(expr, node);
    message = `found no matching overload for '${GO_OPERATORS[node.op]}' applied to '(${goTypeName(types[1] as string)}, ${goTypeName(types[2] as string)})'`;
  } else if (err.code === "no_matching_overload" && (node.op === "call" || node.op === "rcall")) {
    // cel-js names the call as `size(double)` or `double.size()`; cel-go as `'size' applied to '(double)'` or
    // `'size' applied to 'double.()'`, at the call's opening parenthesis.
    const call = /^found no matching overload for '(?:(.*)\.)?(\w+)\((.*)\)'$/.exec(err.summary);
    if (call === null) return undefined;
    const [, receiver, name, args] = call;
    const paren = expr.indexOf("(", node.op === "rcall" ? (node.args[1] as ASTNode).range.end : node.pos);
    offset = paren === -1 ? node.pos : paren;
    if (!DECLARED_FUNCTIONS.has(name as string)) message = `undeclared reference to '${name}' (in container '')`;
    else if (!CHECKED_FUNCTIONS.has(name as string)) return undefined;
    else {
      const target =
        receiver === undefined || receiver.startsWith("kubernetes.namespace.") ? "" : `${goTypeName(receiver)}.`;
      message = `found no matching overload for '${name}' applied to '${target}(${goTypeName(args as string)})'`;
    }
  } else if (err.code === "unknown_variable" && node.op === "id") {
    offset = node.pos;
    message = `undeclared reference to '${node.args}' (in container '')`;
  } else return undefined;
  const at = location(expr, Math.max(0, offset));
  return `ERROR: <input>:${at.line}:${at.col}: ${message}\n | ${at.text}\n | ${".".repeat(at.col - 1)}^`;
}
