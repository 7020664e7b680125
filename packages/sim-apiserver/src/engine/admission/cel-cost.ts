import type { ASTNode } from "@marcbachmann/cel-js";
import type { StructuralSchema } from "./custom-resource-schema.js";

/**
 * The cost limits of `x-kubernetes-validations`, as kube-apiserver sets them: `k8s.io/apiserver/pkg/apis/cel/config.go`
 * (`PerCallLimit`, `RuntimeCELCostBudget`, `MaxRequestSizeBytes`) and apiextensions-apiserver's
 * `pkg/apis/apiextensions/validation/validation.go` (`StaticEstimatedCostLimit`, `StaticEstimatedCRDCostLimit`).
 */
export const CEL_COST_LIMITS = Object.freeze({
  /** Largest estimated cost of one rule or messageExpression (times its cardinality) at CRD write. */
  staticEstimatedCostLimit: 10_000_000,
  /** Largest estimated cost of all rules of one schema together at CRD write. */
  staticEstimatedCRDCostLimit: 100_000_000,
  /** Largest cost of one evaluation. */
  perCallLimit: 1_000_000,
  /** Cost budget of all rules of one custom resource write. */
  runtimeCELCostBudget: 10_000_000,
  /** The request-size limit from which unbounded lists, maps and strings are sized. */
  maxRequestSizeBytes: 3 * 1024 * 1024,
});

/**
 * The worst-case shape of a value: its size (characters of a string, items of a list, entries of a map or object; 1
 * for a scalar) and the shapes of what it contains. Static estimation derives it from a schema's bounds, runtime
 * costing from the value itself ({@link shapeOfValue}).
 */
export interface CelShape {
  readonly size: number;
  /** List items, or map values (`additionalProperties`). */
  readonly elem?: CelShape;
  /** Object properties. */
  readonly props?: Readonly<Record<string, CelShape>>;
  /** A map's or object's keys (strings), when iterated. */
  readonly keys?: CelShape;
  /** A string (its size counts in comparisons and concatenation). */
  readonly str?: boolean;
}

/** A literal or computed scalar (cel-go sizes those 1). */
const SCALAR: CelShape = Object.freeze({ size: 1 });
/** A scalar or a struct from a schema (Kubernetes' declarations give those no elements). */
const FIELD: CelShape = Object.freeze({ size: 0 });
const UNKNOWN: CelShape = Object.freeze({ size: CEL_COST_LIMITS.maxRequestSizeBytes });

/**
 * The fewest bytes a value of `s` takes in a JSON request (apiextensions' `estimateMinSizeJSON`): `""`, `0`, `true`,
 * `[]`, `{}`; `null` where nullable.
 */
function minSerializedSize(s: StructuralSchema | undefined): number {
  if (s === undefined) return 1;
  if (s.nullable === true) return 4;
  switch (s.type) {
    case "string":
      return 2;
    case "boolean":
      return 4;
    case "array":
    case "object":
      return 2;
    default:
      return 1;
  }
}

/**
 * How many values of `s` fit in a request (apiserver/pkg/cel's `estimateMaxArrayItemsFromMinSize` and
 * `estimateMaxAdditionalPropertiesFromMinSize`): a list item takes its minimum size and a comma, a map entry its
 * value's and 6 bytes of key, colon and comma (the sizes upstream's `TestCostEstimation` fixes).
 */
export function unboundedCount(s: StructuralSchema | undefined, entry: "item" | "mapEntry" = "item"): number {
  const overhead = entry === "item" ? 1 : 6;
  return Math.floor((CEL_COST_LIMITS.maxRequestSizeBytes - 2) / (minSerializedSize(s) + overhead));
}

/**
 * The static shape of `s` (apiserver/pkg/cel `SchemaDeclType`'s `MaxElements`): a string with `maxLength` n is
 * 4·n bytes (a code point is at most 4 in UTF-8), with `enum` its longest value, otherwise the request size; a list
 * has `maxItems` items or as many as fit in a request, a map `maxProperties` entries likewise.
 */
export function shapeOfSchema(s: StructuralSchema | undefined): CelShape {
  if (s === undefined || s["x-kubernetes-int-or-string"] === true) return UNKNOWN;
  switch (s.type) {
    case "string": {
      if (s.maxLength !== undefined) return { size: Math.max(0, s.maxLength) * 4, str: true };
      if (s.enum !== undefined && s.enum.length > 0)
        return { size: Math.max(...s.enum.map((e) => (typeof e === "string" ? e.length : 1))), str: true };
      return { size: CEL_COST_LIMITS.maxRequestSizeBytes - 2, str: true };
    }
    case "array": {
      const elem = shapeOfSchema(s.items);
      return { size: s.maxItems ?? unboundedCount(s.items), elem };
    }
    case "object": {
      const ap = s.additionalProperties;
      if (typeof ap === "object") {
        // Keys are costed as empty strings, as Kubernetes' size estimator leaves them unsized.
        const size = s.maxProperties ?? unboundedCount(ap, "mapEntry");
        return { size, elem: shapeOfSchema(ap), keys: { size: 0, str: true } };
      }
      if (s.properties === undefined) return UNKNOWN;
      const props: Record<string, CelShape> = {};
      for (const [k, p] of Object.entries(s.properties)) props[k] = shapeOfSchema(p);
      return { size: 0, props };
    }
    case undefined:
      return UNKNOWN;
    default:
      return FIELD;
  }
}

/** The smallest shape covering both. */
function union(a: CelShape | undefined, b: CelShape): CelShape {
  if (a === undefined) return b;
  const props = a.props === undefined && b.props === undefined ? undefined : { ...a.props };
  if (props !== undefined) for (const [k, p] of Object.entries(b.props ?? {})) props[k] = union(props[k], p);
  const elem = b.elem === undefined ? a.elem : union(a.elem, b.elem);
  const keys = b.keys === undefined ? a.keys : union(a.keys, b.keys);
  return {
    size: Math.max(a.size, b.size),
    ...(a.str === true || b.str === true ? { str: true } : {}),
    ...(elem !== undefined ? { elem } : {}),
    ...(props !== undefined ? { props } : {}),
    ...(keys !== undefined ? { keys } : {}),
  };
}

/** The actual shape of a value, for costing one evaluation (sizes of what is there, not what may be). */
export function shapeOfValue(v: unknown): CelShape {
  if (typeof v === "string") return { size: v.length, str: true };
  if (Array.isArray(v)) {
    let elem: CelShape | undefined;
    for (const item of v) elem = union(elem, shapeOfValue(item));
    return elem === undefined ? { size: 0 } : { size: v.length, elem };
  }
  if (typeof v === "object" && v !== null) {
    const props: Record<string, CelShape> = {};
    let elem: CelShape | undefined;
    let keyLen = 0;
    for (const [k, val] of Object.entries(v)) {
      const s = shapeOfValue(val);
      props[k] = s;
      elem = union(elem, s);
      keyLen = Math.max(keyLen, k.length);
    }
    const keys: CelShape = { size: keyLen, str: true };
    return { size: Object.keys(props).length, props, keys, ...(elem !== undefined ? { elem } : {}) };
  }
  return SCALAR;
}

/** cel-go's `MultiplyByCostFactor`: a size times a factor, rounded up. */
const factor = (size: number, f: number): number => Math.ceil(size * f);
/** `common.StringTraversalCostFactor` and `common.RegexStringLengthCostFactor`. */
const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;
const LIST_CREATE = 10;
const MAP_CREATE = 30;

interface Costed {
  readonly cost: number;
  readonly shape: CelShape;
}

/** Per-iteration and fixed costs of the comprehension a macro expands to (cel-go's `parser/macro.go`). */
const MACROS: Readonly<Record<string, { readonly step: number; readonly fixed: number }>> = {
  // loop condition @not_strictly_false(__result__) (2) + step __result__ && p (1); result __result__ (1)
  all: { step: 3, fixed: 1 },
  // @not_strictly_false(!__result__) (3) + __result__ || p (1)
  exists: { step: 4, fixed: 1 },
  // p ? __result__ + 1 : __result__ (2); result __result__ == 1 (2)
  exists_one: { step: 2, fixed: 2 },
  // __result__ + [f] (1 + 1 + list 10); accumulator [] (10) + result (1)
  map: { step: 12, fixed: LIST_CREATE + 1 },
  // p ? __result__ + [x] : __result__ (1 + 1 + 10 + 1); accumulator [] and result
  filter: { step: 13, fixed: LIST_CREATE + 1 },
};

/**
 * The worst-case cost of a CEL expression in cel-go's cost units, following `cel-go/checker/cost.go` (`coster`): an
 * identifier or field selection costs 1, a constant 0, most calls 1 plus their arguments; string comparison,
 * concatenation, `contains`, `startsWith`/`endsWith` and `matches` are linear (or a product) in the sizes involved,
 * `in` on a list is linear in its size, and a macro (`all`, `exists`, `exists_one`, `map`, `filter`) costs its range's
 * size times its per-element cost plus the comprehension's own steps. Sizes come from `vars`' shapes — a schema's
 * bounds at CRD write, the values themselves at evaluation. The expression is `ast` as @marcbachmann/cel-js parses it.
 *
 * Differences from cel-go: only the maximum is tracked (no minimum), extension libraries are costed as O(1) calls,
 * and the sizes of results other than string concatenation, list literals and `map`/`filter` are unknown (the
 * request size), as cel-go's `UnknownSizeEstimate` is — but bounded, so never infinite.
 */
export function estimateCost(ast: ASTNode, vars: Readonly<Record<string, CelShape>>): number {
  const scope = new Map<string, CelShape[]>();
  const lookup = (name: string): CelShape | undefined => {
    const stack = scope.get(name);
    return stack !== undefined && stack.length > 0 ? stack[stack.length - 1] : vars[name];
  };
  const walk = (n: ASTNode): Costed => {
    switch (n.op) {
      case "value": {
        const v = n.args;
        return { cost: 0, shape: typeof v === "string" ? { size: v.length, str: true } : SCALAR };
      }
      case "id":
        return { cost: 1, shape: lookup(n.args) ?? UNKNOWN };
      case ".":
      case ".?": {
        const [target, name] = n.args;
        const t = walk(target);
        return { cost: t.cost + 1, shape: t.shape.props?.[name] ?? t.shape.elem ?? UNKNOWN };
      }
      case "[]":
      case "[?]": {
        const [target, index] = n.args;
        const t = walk(target);
        const i = walk(index);
        const key = index.op === "value" && typeof index.args === "string" ? t.shape.props?.[index.args] : undefined;
        return { cost: 1 + t.cost + i.cost, shape: key ?? t.shape.elem ?? UNKNOWN };
      }
      case "list": {
        let cost = LIST_CREATE;
        let elem: CelShape | undefined;
        for (const e of n.args) {
          const c = walk(e);
          cost += c.cost;
          elem = union(elem, c.shape);
        }
        return { cost, shape: elem === undefined ? { size: 0 } : { size: n.args.length, elem } };
      }
      case "map": {
        let cost = MAP_CREATE;
        for (const [k, v] of n.args) cost += walk(k).cost + walk(v).cost;
        return { cost, shape: { size: n.args.length } };
      }
      case "&&":
      case "||": {
        const [a, b] = n.args;
        return { cost: walk(a).cost + walk(b).cost, shape: SCALAR };
      }
      case "?:": {
        const [c, t, f] = n.args;
        const tc = walk(t);
        const fc = walk(f);
        return { cost: walk(c).cost + Math.max(tc.cost, fc.cost), shape: union(tc.shape, fc.shape) };
      }
      case "!_":
      case "-_":
        // cel-go parses a negative number as one constant.
        if (n.op === "-_" && n.args.op === "value") return { cost: 0, shape: SCALAR };
        return { cost: 1 + walk(n.args).cost, shape: SCALAR };
      case "==":
      case "!=":
      case "<":
      case "<=":
      case ">":
      case ">=": {
        const [a, b] = n.args;
        const l = walk(a);
        const r = walk(b);
        return {
          cost: l.cost + r.cost + factor(Math.min(l.shape.size, r.shape.size), STRING_TRAVERSAL),
          shape: SCALAR,
        };
      }
      case "in": {
        const [a, b] = n.args;
        const l = walk(a);
        const r = walk(b);
        const linear = r.shape.props === undefined && r.shape.keys === undefined;
        return { cost: l.cost + r.cost + (linear ? r.shape.size : 1), shape: SCALAR };
      }
      case "+": {
        const [a, b] = n.args;
        const l = walk(a);
        const r = walk(b);
        const size = l.shape.size + r.shape.size;
        const isString = l.shape.str === true || r.shape.str === true;
        const shape: CelShape = isString
          ? { size, str: true }
          : l.shape.elem !== undefined || r.shape.elem !== undefined
            ? { size, elem: union(l.shape.elem, r.shape.elem ?? UNKNOWN) }
            : { size };
        return { cost: l.cost + r.cost + (isString ? factor(size, STRING_TRAVERSAL) : 1), shape };
      }
      case "-":
      case "*":
      case "/":
      case "%": {
        const [a, b] = n.args;
        return { cost: 1 + walk(a).cost + walk(b).cost, shape: SCALAR };
      }
      case "call": {
        const [name, args] = n.args;
        // A presence test costs its select's operand, less the operand's own ident (upstream's PresenceTestHasCost off).
        if (name === "has")
          return { cost: Math.max(0, (args[0] === undefined ? 1 : walk(args[0]).cost) - 2), shape: SCALAR };
        let cost = 1;
        let shape: CelShape = UNKNOWN;
        for (const a of args) {
          const c = walk(a);
          cost += c.cost;
          if (name === "size" || name === "int" || name === "double" || name === "bool") shape = SCALAR;
          else if (name === "dyn") shape = c.shape;
          else if (name === "string") shape = { size: UNKNOWN.size, str: true };
        }
        return { cost, shape };
      }
      case "rcall": {
        const [name, target, args] = n.args;
        const t = walk(target);
        const macro = MACROS[name];
        if (macro !== undefined && args.length === 2 && args[0]?.op === "id") {
          const iterVar = args[0].args;
          // A list iterates its items, a map or an object its keys.
          const iterShape = t.shape.keys ?? t.shape.elem ?? UNKNOWN;
          const stack = scope.get(iterVar) ?? [];
          stack.push(iterShape);
          scope.set(iterVar, stack);
          const body = walk(args[1] as ASTNode);
          stack.pop();
          const cost = t.cost + macro.fixed + t.shape.size * (macro.step + body.cost);
          const shape: CelShape =
            name === "map"
              ? { size: t.shape.size, elem: body.shape }
              : name === "filter"
                ? { size: t.shape.size, elem: iterShape }
                : SCALAR;
          return { cost, shape };
        }
        const argCosts = args.map(walk);
        const argSum = argCosts.reduce((s, a) => s + a.cost, 0);
        const arg0 = argCosts[0]?.shape.size ?? 0;
        switch (name) {
          case "contains":
            return {
              cost: t.cost + argSum + factor(t.shape.size, STRING_TRAVERSAL) * factor(arg0, STRING_TRAVERSAL),
              shape: SCALAR,
            };
          case "startsWith":
          case "endsWith":
            return { cost: t.cost + argSum + factor(arg0, STRING_TRAVERSAL), shape: SCALAR };
          case "matches":
            return {
              cost: t.cost + argSum + factor(t.shape.size + 1, STRING_TRAVERSAL) * factor(arg0, REGEX_LENGTH),
              shape: SCALAR,
            };
          case "size":
            return { cost: t.cost + argSum + 1, shape: SCALAR };
          case "lowerAscii":
          case "upperAscii":
          case "trim":
            return { cost: t.cost + argSum + factor(t.shape.size, STRING_TRAVERSAL), shape: t.shape };
          default:
            return { cost: t.cost + argSum + 1, shape: UNKNOWN };
        }
      }
    }
  };
  return walk(ast).cost;
}

/**
 * How often a rule on `s` runs per object, at most (apiextensions' `CELSchemaContext.MaxCardinality`): the product of
 * the `maxItems`/`maxProperties` of the lists and maps above it, given as `bounds` from the root down; when one of
 * them is unbounded, as many values of `s` as fit in a request.
 */
export function maxCardinality(bounds: readonly (number | undefined)[], s: StructuralSchema): number {
  let product = 1;
  for (const b of bounds) {
    if (b === undefined) return unboundedCount(s);
    product *= Math.max(0, b);
  }
  return product;
}

/**
 * apiextensions' `getCostErrorMessage`: `<what> exceeds budget by factor of <f>x (try simplifying the rule, …)`, the
 * factor printed as Go's `%fx` below 1.5, `%.1fx` up to 100 and `more than 100x` beyond.
 */
export function costErrorMessage(what: string, cost: number, limit: number): string {
  const f = cost / limit;
  const shown = f > 100 ? "more than 100x" : f < 1.5 ? `${f.toFixed(6)}x` : `${f.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${shown} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
