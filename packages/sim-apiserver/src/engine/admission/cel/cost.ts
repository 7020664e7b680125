import type { ASTNode } from "@marcbachmann/cel-js";
import type { StructuralSchema } from "../custom-resource-schema.js";
import { MAX_FORMAT_REGEX_SIZE, NAMESPACES } from "./kubernetes-library.js";

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
 * Kubernetes' CEL libraries and cel-go's strings extension are costed as apiserver/pkg/cel/library/cost.go estimates
 * them ({@link methodLibraryCost}, {@link globalLibraryCost}).
 *
 * Differences from cel-go: only the maximum is tracked (no minimum), and the sizes of results other than string concatenation, list literals and `map`/`filter` are unknown (the
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
        const lib = globalLibraryCost(name, args.map(walk));
        if (lib !== undefined) return lib;
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
        // `format.dns1123Label()`, `ip.isCanonical(s)`, `strings.quote(s)`: a namespaced function, no receiver.
        if (target.op === "id" && NAMESPACES[target.args] !== undefined && lookup(target.args) === undefined) {
          const argCosts = args.map(walk);
          return (
            globalLibraryCost(`${target.args}.${name}`, argCosts) ?? {
              cost: 1 + argCosts.reduce((sum, a) => sum + a.cost, 0),
              shape: UNKNOWN,
            }
          );
        }
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
          case "substring":
            return { cost: t.cost + argSum + factor(t.shape.size, STRING_TRAVERSAL), shape: t.shape };
          default: {
            const lib = methodLibraryCost(name, t, argCosts, args);
            if (lib !== undefined) return { cost: t.cost + argSum + lib.cost, shape: lib.shape };
            return { cost: t.cost + argSum + 1, shape: UNKNOWN };
          }
        }
      }
    }
  };
  return walk(ast).cost;
}

/** A string's size where it is a literal (the least it can be), else 0 — for `replace`'s result size. */
function literalSize(n: ASTNode | undefined): number {
  return n?.op === "value" && typeof n.args === "string" ? n.args.length : 0;
}

/**
 * The cost of a global or namespaced function of Kubernetes' CEL libraries, apart from its arguments' (already in
 * `args`), and its result's shape — apiserver/pkg/cel/library/cost.go `EstimateCallCost`: parsing a string
 * (`url`, `ip`, `cidr`, `quantity`, `semver`, `isIP`, …) is a traversal of it, `ip.isCanonical` two, `strings.quote` one
 * (its result at most twice as long, plus quotes). `undefined`: not such a function.
 */
function globalLibraryCost(name: string, args: readonly Costed[]): Costed | undefined {
  const argSum = args.reduce((sum, a) => sum + a.cost, 0);
  const arg0 = args[0]?.shape.size ?? 0;
  switch (name) {
    case "url":
      // A URL compares as long as the text it was parsed from.
      return { cost: argSum + factor(arg0, STRING_TRAVERSAL), shape: { size: arg0 } };
    case "ip":
    case "cidr":
    case "isIP":
    case "isCIDR":
    case "isURL":
    case "quantity":
    case "isQuantity":
    case "semver":
    case "isSemver":
      return { cost: argSum + factor(arg0, STRING_TRAVERSAL), shape: SCALAR };
    case "ip.isCanonical":
      return { cost: argSum + factor(arg0, 2 * STRING_TRAVERSAL), shape: SCALAR };
    case "sets.contains":
    case "sets.intersects":
      // cel-go's ext/sets.go: a comparison per pair of items.
      return { cost: argSum + arg0 * (args[1]?.shape.size ?? 0) + 1, shape: SCALAR };
    case "sets.equivalent":
      return { cost: argSum + 2 * arg0 * (args[1]?.shape.size ?? 0) + 1, shape: SCALAR };
    case "strings.quote":
      return { cost: argSum + factor(arg0, STRING_TRAVERSAL), shape: { size: 2 * arg0 + 2, str: true } };
    default:
      return undefined;
  }
}

/**
 * The own cost of a member function of Kubernetes' CEL libraries and cel-go's strings extension, and its result's
 * shape (cost.go `EstimateCallCost`): the list functions one step per item (plus a traversal of string items);
 * `replace`/`split` two traversals of the string, `join` one of the result; `find`/`findAll` the string's traversal
 * times a quarter of the regex's length; `containsIP`/`containsCIDR` comparisons of 16-byte addresses (plus parsing a
 * string argument); `validate` like `find` with the longest format's regex; accessors, quantity arithmetic and semver parts 1.
 * `undefined`: the default (1).
 */
function methodLibraryCost(
  name: string,
  t: Costed,
  args: readonly Costed[],
  argNodes: readonly ASTNode[],
): Costed | undefined {
  const size = t.shape.size;
  const arg0 = args[0]?.shape.size ?? 0;
  switch (name) {
    case "isSorted":
    case "sum":
    case "min":
    case "max":
    case "indexOf":
    case "lastIndexOf": {
      if (t.shape.str === true) return { cost: factor(size, STRING_TRAVERSAL), shape: SCALAR };
      const elem = t.shape.elem;
      const perItem = 1 + (elem?.str === true ? factor(elem.size, STRING_TRAVERSAL) : 0);
      return { cost: size * perItem, shape: name === "min" || name === "max" ? (elem ?? UNKNOWN) : SCALAR };
    }
    case "replace": {
      if (args.length < 2) return undefined;
      const toReplace = literalSize(argNodes[0]);
      const replaceWith = args[1]?.shape.size ?? 0;
      const resultSize =
        toReplace === 0
          ? (size + 1) * replaceWith + size
          : replaceWith <= toReplace
            ? size
            : Math.ceil(size / toReplace) * replaceWith;
      return { cost: factor(size, 2 * STRING_TRAVERSAL), shape: { size: resultSize, str: true } };
    }
    case "split": {
      const limit = argNodes[1];
      const max = limit?.op === "value" && typeof limit.args === "bigint" ? Number(limit.args) : size;
      return {
        cost: factor(size, 2 * STRING_TRAVERSAL),
        shape: { size: Math.max(0, max), elem: { size, str: true } },
      };
    }
    case "join": {
      const elem = t.shape.elem?.size ?? 0;
      const separators = args.length > 0 ? arg0 * Math.max(0, size - 1) : 0;
      const joined = size * elem + separators;
      return { cost: factor(joined, STRING_TRAVERSAL), shape: { size: joined, str: true } };
    }
    case "find":
    case "findAll": {
      if (args.length < 1) return undefined;
      const cost = factor(size + 1, STRING_TRAVERSAL) * factor(arg0, REGEX_LENGTH);
      return {
        cost,
        shape: name === "find" ? { size, str: true } : { size, elem: { size, str: true } },
      };
    }
    case "containsIP":
    case "containsCIDR": {
      let cost = factor(16 + 16, STRING_TRAVERSAL);
      if (name === "containsCIDR") cost += factor(16, STRING_TRAVERSAL) + 1;
      if (args[0]?.shape.str === true) cost += factor(arg0, STRING_TRAVERSAL);
      return { cost, shape: SCALAR };
    }
    case "validate":
      return {
        cost: factor(arg0 + 1, STRING_TRAVERSAL) * factor(MAX_FORMAT_REGEX_SIZE, REGEX_LENGTH),
        shape: { size: 1 },
      };
    case "ip":
    case "masked":
    case "prefixLength":
    case "family":
    case "isUnspecified":
    case "isLoopback":
    case "isLinkLocalMulticast":
    case "isLinkLocalUnicast":
    case "isGlobalUnicast":
    case "sign":
    case "asInteger":
    case "isInteger":
    case "asApproximateFloat":
    case "isGreaterThan":
    case "isLessThan":
    case "compareTo":
    case "add":
    case "sub":
    case "major":
    case "minor":
    case "patch":
      return { cost: 1, shape: SCALAR };
    default:
      return undefined;
  }
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
