import { isDeclaredFunction } from "./typecheck.js";

/**
 * What Kubernetes 1.34's CEL environment declares for `x-kubernetes-validations` (apiserver/pkg/cel/environment/
 * base.go) but the simulator cannot evaluate — neither @bufbuild/cel nor @marcbachmann/cel-js lets a library add
 * macros, and these need them or syntax of their own:
 * - cel-go's two-variable comprehensions (`ext.TwoVarComprehensions()`, ext/comprehensions.go, since 1.32):
 *   `all(k, v, …)`, `exists(k, v, …)`, `existsOne(k, v, …)`, `transformList`, `transformMap`, `transformMapEntry`;
 * - cel-go's lists extension (`ext.Lists(ext.ListsVersion(3))`, ext/lists.go, since 1.34): `lists.range`,
 *   `distinct`, `flatten`, `reverse`, `slice`, `sort`, `sortBy`, `first`, `last`;
 * - optional types (`cel.OptionalTypes()`, since 1.28) beyond the `hasValue`/`value`/`orValue` of the format
 *   library's results: `optional.of`/`none`/`ofNonZeroValue`, `or`, and the `.?field`, `[?key]`, `{?key: …}` syntax.
 *
 * A rule using one is accepted at CRD write, as upstream accepts it, with a warning; on custom-resource writes it is
 * not enforced (validation.ts).
 */
interface Gap {
  readonly pattern: RegExp;
  readonly what: (m: RegExpExecArray) => string;
  /** The call names the gap brings (allowed in a rule that uses it). */
  readonly names: readonly string[];
  /** The minor release whose base environment brought it (base.go's `IntroducedVersion`, 1.x). */
  readonly introduced: number;
}

const TWO_VAR = "two-variable comprehension";
const LISTS = "lists-extension function";
const OPTIONAL = "optional-types";

const GAPS: readonly Gap[] = [
  {
    pattern: /\.\s*(all|exists|existsOne)\s*\(\s*[A-Za-z_]\w*\s*,\s*[A-Za-z_]\w*\s*,/g,
    what: (m) => `the ${TWO_VAR} '${m[1]}'`,
    names: [],
    introduced: 32,
  },
  {
    pattern: /\.\s*(transformList|transformMap|transformMapEntry)\s*\(/g,
    what: (m) => `the ${TWO_VAR} '${m[1]}'`,
    names: ["transformList", "transformMap", "transformMapEntry"],
    introduced: 32,
  },
  {
    pattern: /\.\s*(distinct|flatten|reverse|slice|sort|sortBy|first|last)\s*\(/g,
    what: (m) => `the ${LISTS} '${m[1]}'`,
    names: ["distinct", "flatten", "reverse", "slice", "sort", "sortBy", "first", "last"],
    introduced: 34,
  },
  {
    pattern: /\blists\s*\.\s*range\s*\(/g,
    what: () => `the ${LISTS} 'lists.range'`,
    names: ["range"],
    introduced: 34,
  },
  {
    pattern: /\boptional\s*\.\s*(of|none|ofNonZeroValue)\s*\(/g,
    what: (m) => `the ${OPTIONAL} function 'optional.${m[1]}'`,
    names: ["of", "none", "ofNonZeroValue"],
    introduced: 28,
  },
  { pattern: /\.\s*or\s*\(/g, what: () => `the ${OPTIONAL} function 'or'`, names: ["or"], introduced: 28 },
  { pattern: /\.\s*\?/g, what: () => `the ${OPTIONAL} selection '.?'`, names: [], introduced: 28 },
  { pattern: /[[{,]\s*\?/g, what: () => `the ${OPTIONAL} entry or index '[?…]'`, names: [], introduced: 28 },
];

/** Macros and names cel-go parses that are no declared function. */
const MACROS = new Set(["has", "all", "exists", "exists_one", "existsOne", "map", "filter", "bind", "in"]);

/** `expr` with the contents of its string and bytes literals blanked (same length), so only code is scanned. */
export function codeOnly(expr: string): string {
  let out = "";
  let i = 0;
  while (i < expr.length) {
    const c = expr[i] as string;
    if (c !== "'" && c !== '"') {
      out += c;
      i++;
      continue;
    }
    const prefix = /(?:^|[^\w])([rRbB]{1,2})$/.exec(expr.slice(0, i));
    const raw = prefix !== null && /[rR]/.test(prefix[1] as string);
    const quote = expr.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
    let j = i + quote.length;
    while (j < expr.length && !expr.startsWith(quote, j)) j += !raw && expr[j] === "\\" ? 2 : 1;
    const closed = j < expr.length;
    const end = closed ? j + quote.length : expr.length;
    const inner = end - i - quote.length - (closed ? quote.length : 0);
    out += `${quote}${" ".repeat(Math.max(0, inner))}${closed ? quote : ""}`;
    i = end;
  }
  return out;
}

/**
 * For a new expression at a CustomResourceDefinition write: the first call of a gap that the environment of
 * `compatibility` (1.x; upstream compiles new expressions for `DefaultCompatibilityVersion()`, the release before
 * the server's) does not have yet, as cel-go's checker reports a function it does not know — `undeclared reference
 * to 'sortBy'` at the call's parenthesis (`'lists'` at the identifier for `lists.range`); `undefined` if none. Only
 * the first error is given (cel-go lists every unknown name). The optional syntax (`.?`, `[?…]`) is left alone.
 */
export function unavailableCall(expr: string, compatibility: number): string | undefined {
  const code = codeOnly(expr);
  let first: { offset: number; name: string } | undefined;
  for (const g of GAPS) {
    if (g.introduced <= compatibility || g.pattern.source.includes("\\?")) continue;
    for (const m of code.matchAll(g.pattern)) {
      const at = m.index ?? 0;
      const ns = /^(\w+)\s*\./.exec(m[0]);
      const hit =
        ns !== null
          ? { offset: at, name: ns[1] as string }
          : { offset: at + m[0].indexOf("("), name: (/\w+/.exec(m[0]) as RegExpExecArray)[0] };
      if (first === undefined || hit.offset < first.offset) first = hit;
    }
    g.pattern.lastIndex = 0;
  }
  return first === undefined
    ? undefined
    : display(expr, first.offset, `undeclared reference to '${first.name}' (in container '')`);
}

/** One cel-go error as `ToDisplayString` prints it: position, message, the source line and a caret. */
export function display(expr: string, offset: number, message: string): string {
  const before = expr.slice(0, offset);
  const line = before.split("\n").length;
  const start = before.lastIndexOf("\n") + 1;
  const end = expr.indexOf("\n", offset);
  const col = offset - start + 1;
  return `ERROR: <input>:${line}:${col}: ${message}\n | ${expr.slice(start, end === -1 ? undefined : end)}\n | ${".".repeat(col - 1)}^`;
}

/** What of {@link GAPS} an expression uses, each once, as a warning names it (`the two-variable comprehension 'all'`). */
export function unevaluatedFeatures(expr: string): string[] {
  const code = codeOnly(expr);
  const found: string[] = [];
  for (const g of GAPS)
    for (const m of code.matchAll(g.pattern)) {
      const w = g.what(m as RegExpExecArray);
      if (!found.includes(w)) found.push(w);
    }
  return found;
}

/**
 * For an expression that uses one of the gaps (and so is not type-checked): the first call of a function no library
 * declares, as cel-go's `ERROR: <input>:1:4: undeclared reference to 'foo' (in container '')` with the source line
 * and a caret at the call's parenthesis — a name that upstream does not declare stays an error; `undefined` if none.
 */
export function undeclaredCall(expr: string): string | undefined {
  const code = codeOnly(expr);
  const allowed = new Set<string>();
  for (const g of GAPS) if (g.pattern.test(code)) for (const n of g.names) allowed.add(n);
  for (const g of GAPS) g.pattern.lastIndex = 0;
  for (const m of code.matchAll(/([A-Za-z_]\w*)\s*\(/g)) {
    const name = m[1] as string;
    if (MACROS.has(name) || allowed.has(name) || isDeclaredFunction(name)) continue;
    const paren = (m.index ?? 0) + m[0].length - 1;
    const before = expr.slice(0, paren);
    const line = before.split("\n").length;
    const start = before.lastIndexOf("\n") + 1;
    const end = expr.indexOf("\n", paren);
    const col = paren - start + 1;
    return `ERROR: <input>:${line}:${col}: undeclared reference to '${name}' (in container '')\n | ${expr.slice(start, end === -1 ? undefined : end)}\n | ${".".repeat(col - 1)}^`;
  }
  return undefined;
}
